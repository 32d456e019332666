// What an issue write may set, as the original's issue services decide it: the fields only those
// who administer issues (Reporters and up) may set, who can be assigned, which milestones an issue
// of a project can have, and the title's rules. Also the references and note texts the issue
// services write ("moved to group/project#3", "changed title from **a{-b-}** to **a{+c+}**").
import { sql } from 'kysely'
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import type { IssueRow, MilestoneRow, UserRow } from '../../db/schema.js'
import { findAvailableMilestone } from '../../finders/milestones-finder.js'
import type { FieldErrors } from '../../common/errors.js'
import { canReadIssue } from '../../policies/issuable-policy.js'
import { canOnProject, isProjectOwner, type ProjectSubject } from '../../policies/project-policy.js'
import { projectGroupChain } from '../labels/issuable-labels.js'
import { collectErrors } from '../validation.js'
import { assignableUser } from '../issuables/assignees.js'

/** The fields of POST and PUT /projects/:id/issues[/:issue_iid], as the services take them. */
export interface IssueInput {
  title?: string
  description?: string | null
  confidential?: boolean
  discussionLocked?: boolean
  /** Everyone it should be assigned to; [] or [0] unassigns. */
  assigneeIds?: readonly number[]
  /** null or 0: no milestone. */
  milestoneId?: number | null
  /** Every label title it should carry. */
  labels?: readonly string[]
  /** 'YYYY-MM-DD'; null: none. */
  dueDate?: string | null
  /** Epoch ms; for admins and the project's owners only (ignored otherwise). */
  createdAt?: number
  updatedAt?: number
}

export const MAX_TITLE_LENGTH = 255

/**
 * The input without what the caller may not set, dropped silently as the original does: labels,
 * milestone, assignees, due date and the discussion lock need admin_issue; backdating needs an
 * admin or an owner of the project.
 */
export function permittedInput(actor: Actor, subject: ProjectSubject, input: IssueInput): IssueInput {
  const { labels, milestoneId, assigneeIds, dueDate, discussionLocked, createdAt, updatedAt, ...anyone } = input
  const permitted: IssueInput = { ...anyone }
  if (canOnProject(actor, subject, 'admin_issue')) {
    Object.assign(permitted, { labels, milestoneId, assigneeIds, dueDate, discussionLocked })
  }
  if (actor.user.admin === 1 || isProjectOwner(actor, subject)) Object.assign(permitted, { createdAt, updatedAt })
  for (const key of Object.keys(permitted) as (keyof IssueInput)[]) if (permitted[key] === undefined) delete permitted[key]
  return permitted
}

export function titleErrors(title: string): FieldErrors | null {
  const problems: string[] = []
  if (title.trim() === '') problems.push("can't be blank")
  if ([...title].length > MAX_TITLE_LENGTH) problems.push(`is too long (maximum is ${MAX_TITLE_LENGTH} characters)`)
  return collectErrors({ title: problems })
}

/**
 * Who of `requested` may be assigned: active users who can read the issue (for an issue being
 * created, the project's issues). As the original's Community Edition, an issue has one assignee,
 * the first that may be. [] and [0] unassign; undefined when none of the users may be assigned,
 * which leaves the assignees as they are.
 */
export async function assignableUsers(
  db: Db, subject: ProjectSubject, issue: { row: IssueRow; assigneeIds: readonly number[] } | null, requested: readonly number[],
): Promise<UserRow[] | undefined> {
  if (requested.length === 0 || (requested.length === 1 && requested[0] === 0)) return []
  for (const userId of requested) {
    const user = await assignable(db, subject, issue, userId)
    if (user !== null) return [user]
  }
  return undefined
}

function assignable(
  db: Db, subject: ProjectSubject, issue: { row: IssueRow; assigneeIds: readonly number[] } | null, userId: number,
): Promise<UserRow | null> {
  return assignableUser(db, subject, userId, (user, theirs) =>
    (issue === null ? canOnProject(user, theirs, 'read_issue') : canReadIssue(user, theirs, issue.row, issue.assigneeIds)))
}

/** A milestone of the project or of one of its groups; null for none or any other id (an issue then has none). */
export async function availableMilestone(db: Db, projectId: number, milestoneId: number | null): Promise<MilestoneRow | null> {
  if (milestoneId === null || milestoneId <= 0) return null
  return findAvailableMilestone(db, { type: 'project', id: projectId }, milestoneId)
}

/** The milestone of the project, else of one of its groups, with this title (where a moved issue's goes). */
export async function availableMilestoneTitled(db: Db, projectId: number, title: string): Promise<MilestoneRow | null> {
  const milestone = await db.selectFrom('milestones').selectAll().where('title', '=', title)
    .where((eb) => eb.or([eb('project_id', '=', projectId), eb('group_id', 'in', projectGroupChain(projectId))]))
    .orderBy(sql`case when project_id is null then 1 else 0 end`).executeTakeFirst()
  return milestone ?? null
}

/** `group/project#3`: an issue referred to from another project. */
export function issueReference(projectFullPath: string, iid: number): string {
  return `${projectFullPath}#${iid}`
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

/** "changed due date to November 22, 2018" / "removed due date". */
export function dueDateChangeNote(dueDate: string | null): string {
  if (dueDate === null) return 'removed due date'
  const [year, month, day] = dueDate.split('-').map(Number)
  return `changed due date to ${MONTHS[(month ?? 1) - 1]} ${day}, ${year}`
}

/** "assigned to @a and unassigned @b", as the original's assignee notes. */
export function assigneesChangeNote(added: readonly string[], removed: readonly string[]): string | null {
  const sentence = (names: readonly string[]) => {
    const refs = names.map((name) => `@${name}`)
    return refs.length <= 2 ? refs.join(' and ') : `${refs.slice(0, -1).join(', ')}, and ${refs[refs.length - 1]}`
  }
  const parts: string[] = []
  if (added.length > 0) parts.push(`assigned to ${sentence(added)}`)
  if (removed.length > 0) parts.push(`unassigned ${sentence(removed)}`)
  return parts.length === 0 ? null : parts.join(' and ')
}
