// Creates an issue (POST /projects/:id/issues): its number from the project's sequence, its labels
// (titles the project has no label for yet become project labels), assignee and milestone as the
// caller may set them, and its `created` event, in one transaction. The counts (open_issues_count,
// issue_counts) and the search index follow by trigger. Creating into one busy project serializes
// on its number and counts from the number's upsert to the commit: everything that can be decided
// before is.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import { sql, type Insertable } from 'kysely'
import type { IssueRow, IssuesTable, LabelRow, MilestoneRow, UserRow } from '../../db/schema.js'
import { isPostgres } from '../../db/dialect.js'
import { flag } from '../../db/values.js'
import { validationFailed } from '../../common/errors.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { markProjectActive, recordEvent } from '../events/record-event.js'
import { nextInternalId } from '../issuables/internal-ids.js'
import { findOrCreateLabels } from '../labels/issuable-labels.js'
import { isUniqueViolation } from '../projects/create-project.js'
import { assignableUsers, availableMilestone, permittedInput, titleErrors, type IssueInput } from './issue-rules.js'

/** The new issue with what it was given, so that presenting it needs no reading back. */
export interface CreatedIssue {
  issue: IssueRow
  labels: LabelRow[]
  assignees: UserRow[]
  milestone: MilestoneRow | null
}

export async function createIssue(ctx: AppContext, actor: Actor, subject: ProjectSubject, input: IssueInput & { title: string }): Promise<CreatedIssue> {
  const { db } = ctx
  const errors = titleErrors(input.title)
  if (errors !== null) throw validationFailed(errors)
  const permitted = permittedInput(actor, subject, input)
  const projectId = subject.project.id
  // Decided before the transaction, which then holds the project's iid sequence only briefly.
  const assignees = permitted.assigneeIds === undefined ? [] : await assignableUsers(db, subject, null, permitted.assigneeIds) ?? []
  const milestone = await availableMilestone(db, projectId, permitted.milestoneId ?? null)
  const insert = () => db.transaction().execute(async (trx) => {
    const labels = await findOrCreateLabels(trx, projectId, permitted.labels ?? [])
    const now = Date.now()
    const values: NewIssueValues = {
      project_id: projectId,
      author_id: actor.user.id,
      title: input.title,
      description: permitted.description ?? null,
      confidential: flag(permitted.confidential ?? false),
      discussion_locked: flag(permitted.discussionLocked ?? false),
      milestone_id: milestone?.id ?? null,
      due_date: permitted.dueDate ?? null,
      created_at: permitted.createdAt ?? now,
      updated_at: permitted.createdAt ?? now,
    }
    const links = { labelIds: labels.map((label) => label.id), assigneeIds: assignees.map((user) => user.id), now }
    const issue = isPostgres(db) ? await insertInOneStatement(trx, actor, values, links) : await insertStepByStep(trx, actor, values, links)
    return { issue, labels, assignees, milestone }
  })
  let created: CreatedIssue
  try {
    created = await insert()
  } catch (err) {
    // A concurrent request created one of the new labels first: now it exists.
    if (!isUniqueViolation(err)) throw err
    created = await insert()
  }
  await ctx.activity.publish({
    kind: 'issue', action: 'open', projectId, issueId: created.issue.id, userId: actor.user.id, changes: {},
  }, ctx)
  return created
}

type NewIssueValues = Omit<Insertable<IssuesTable>, 'iid'>

interface IssueLinks {
  labelIds: number[]
  assigneeIds: number[]
  now: number
}

/** The issue's number, row, assignees, label links and `created` event, one statement at a time. */
async function insertStepByStep(trx: Db, actor: Actor, values: NewIssueValues, links: IssueLinks): Promise<IssueRow> {
  const iid = await nextInternalId(trx, { type: 'project', id: values.project_id }, 'issues')
  const issue = await trx.insertInto('issues').values({ ...values, iid }).returningAll().executeTakeFirstOrThrow()
  if (links.assigneeIds.length > 0) {
    await trx.insertInto('issue_assignees').values(links.assigneeIds.map((userId) => ({ issue_id: issue.id, user_id: userId }))).execute()
  }
  if (links.labelIds.length > 0) {
    await trx.insertInto('label_links').values(links.labelIds.map((labelId) => ({ label_id: labelId, target_type: 'Issue' as const, target_id: issue.id }))).execute()
  }
  await recordEvent(trx, {
    action: 'created', authorId: actor.user.id, projectId: issue.project_id,
    target: { type: 'Issue', id: issue.id, iid, title: issue.title }, createdAt: links.now,
  })
  return issue
}

/**
 * The same in one statement, for PostgreSQL: the project's number sequence, issue counts and
 * project row stay locked from the number's upsert to the commit, so concurrent creators into one
 * project queue behind each other for that long — one round trip here instead of five.
 */
async function insertInOneStatement(trx: Db, actor: Actor, values: NewIssueValues, links: IssueLinks): Promise<IssueRow> {
  await markProjectActive(trx, values.project_id, links.now)
  const { rows } = await sql<IssueRow>`with next as (
      insert into internal_ids (owner_type, owner_id, usage, last_value) values ('project', ${values.project_id}, 'issues', 1)
      on conflict (owner_type, owner_id, usage) do update set last_value = internal_ids.last_value + 1
      returning last_value
    ), issue as (
      insert into issues (project_id, iid, author_id, title, description, confidential, discussion_locked, milestone_id, due_date,
        created_at, updated_at)
      select ${values.project_id}, last_value, ${values.author_id}, ${values.title}, ${values.description}, ${values.confidential},
        ${values.discussion_locked}, ${values.milestone_id}, ${values.due_date}, ${values.created_at}, ${values.updated_at}
      from next
      returning *
    ), assigned as (
      insert into issue_assignees (issue_id, user_id) select issue.id, u from issue, unnest(cast(${links.assigneeIds} as integer[])) u
    ), labelled as (
      insert into label_links (label_id, target_type, target_id)
      select l, 'Issue', issue.id from issue, unnest(cast(${links.labelIds} as integer[])) l
    ), created as (
      insert into events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at)
      select issue.project_id, ${actor.user.id}, 'created', 'Issue', issue.id, issue.iid, issue.title, ${links.now} from issue
    )
    select * from issue`.execute(trx)
  const issue = rows[0]
  if (issue === undefined) throw new Error('the issue insert returned no row')
  return issue
}
