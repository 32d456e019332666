// Issues for tests, made through the real services (so every row, label link and event is what the
// API writes), and small ways to set what those services decide by themselves (times, awards).
import type { TestApp } from './app.js'
import { rootActor, type TestUser } from './factories.js'
import type { IssueRow, MilestoneRow, ProjectRow } from '../../src/db/schema.js'
import { NO_PROJECT_ACCESS, projectAccessFor } from '../../src/finders/access.js'
import type { ProjectSubject } from '../../src/policies/project-policy.js'
import { createIssue } from '../../src/services/issues/create-issue.js'
import type { IssueInput } from '../../src/services/issues/issue-rules.js'
import { updateIssue } from '../../src/services/issues/update-issue.js'

export interface MakeIssueInput extends IssueInput {
  /** Closed by its author right after creation. */
  closed?: boolean
}

/** The project as loadProject() hands it to routes, for the user. */
export async function projectSubjectOf(t: TestApp, project: ProjectRow, userId: number): Promise<ProjectSubject> {
  const namespace = await t.ctx.db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
  const access = (await projectAccessFor(t.ctx.db, userId, [project.id])).get(project.id) ?? NO_PROJECT_ACCESS
  return { project, namespace, access }
}

/**
 * An issue of the project written by `by` (root when null). Labels, assignees, milestone and due
 * date are set as the service lets `by` set them (Reporters and up, the project's owner, admins).
 */
export async function makeIssue(t: TestApp, project: ProjectRow, by: TestUser | null, input: MakeIssueInput = {}): Promise<IssueRow> {
  const actor = by?.actor ?? await rootActor(t)
  const subject = await projectSubjectOf(t, project, actor.user.id)
  const { closed, ...fields } = input
  const { issue } = await createIssue(t.ctx, actor, subject, { ...fields, title: fields.title ?? `Issue ${Date.now()}` })
  if (!closed) return issue
  return updateIssue(t.ctx, actor, { ...subject, issue, assigneeIds: [] }, { stateEvent: 'close' })
}

/** Sets an issue's times directly (the services stamp the present). */
export async function setIssueTimes(t: TestApp, issueId: number, times: { created_at?: number; updated_at?: number }): Promise<void> {
  await t.ctx.db.updateTable('issues').set(times).where('id', '=', issueId).execute()
}

/** An award emoji of the user on the issue, as the award emoji services would write it. */
export async function awardIssue(t: TestApp, issueId: number, userId: number, name: string): Promise<void> {
  const now = Date.now()
  await t.ctx.db.insertInto('award_emoji')
    .values({ name, user_id: userId, awardable_type: 'Issue', awardable_id: issueId, created_at: now, updated_at: now })
    .execute()
}

/** A milestone row of a project or a group (the milestone services' own tests cover how they are made). */
export async function insertMilestone(t: TestApp, owner: { projectId: number } | { groupId: number }, title: string): Promise<MilestoneRow> {
  const now = Date.now()
  const projectId = 'projectId' in owner ? owner.projectId : null
  const groupId = 'groupId' in owner ? owner.groupId : null
  const last = await t.ctx.db.selectFrom('milestones').select((eb) => eb.fn.max('iid').as('iid'))
    .where(projectId === null ? 'group_id' : 'project_id', '=', projectId ?? groupId ?? 0).executeTakeFirst()
  return t.ctx.db.insertInto('milestones').values({
    project_id: projectId, group_id: groupId, iid: Number(last?.iid ?? 0) + 1, title, description: null, due_date: null, start_date: null,
    created_at: now, updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
}

/** The bodies of the issue's system notes, oldest first. */
export async function systemNoteBodies(t: TestApp, issueId: number): Promise<string[]> {
  const rows = await t.ctx.db.selectFrom('notes').select('body')
    .where('noteable_type', '=', 'Issue').where('noteable_id', '=', issueId).where('system', '=', 1).orderBy('id').execute()
  return rows.map((row) => row.body)
}

/** The issue's events as `action` strings, oldest first. */
export async function issueEventActions(t: TestApp, issueId: number): Promise<string[]> {
  const rows = await t.ctx.db.selectFrom('events').select('action')
    .where('target_type', '=', 'Issue').where('target_id', '=', issueId).orderBy('id').execute()
  return rows.map((row) => row.action)
}

/** The project's open_issues_count and issue_counts rows, as `state/confidential` → count. */
export async function issueCountsOf(t: TestApp, projectId: number): Promise<Record<string, number>> {
  const rows = await t.ctx.db.selectFrom('issue_counts').selectAll().where('project_id', '=', projectId).execute()
  const project = await t.ctx.db.selectFrom('projects').select('open_issues_count').where('id', '=', projectId).executeTakeFirstOrThrow()
  const counts: Record<string, number> = { open_issues_count: Number(project.open_issues_count) }
  for (const row of rows) if (Number(row.value) !== 0) counts[`${row.state}/${row.confidential}`] = Number(row.value)
  return counts
}
