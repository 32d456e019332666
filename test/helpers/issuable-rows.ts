// Issues and merge requests as bare rows (with their per-project iids, labels and assignees), for
// the tests of what hangs on them — labels, milestones, boards, notes, award emoji — where going
// through their own endpoints (tested elsewhere) would only slow the setup down.
import type { TestApp } from './app.js'
import type { IssueRow, LabelRow, MergeRequestRow } from '../../src/db/schema.js'
import { nextInternalId } from '../../src/services/issuables/internal-ids.js'

export interface IssuableRowOptions {
  authorId: number
  title?: string
  confidential?: boolean
  discussionLocked?: boolean
  milestoneId?: number
  labels?: readonly LabelRow[]
  assigneeIds?: readonly number[]
}

export async function insertIssue(
  t: TestApp, projectId: number, options: IssuableRowOptions & { state?: 'opened' | 'closed' },
): Promise<IssueRow> {
  return t.ctx.db.transaction().execute(async (trx) => {
    const now = Date.now()
    const issue = await trx.insertInto('issues').values({
      project_id: projectId,
      iid: await nextInternalId(trx, { type: 'project', id: projectId }, 'issues'),
      author_id: options.authorId,
      title: options.title ?? 'An issue',
      description: null,
      state: options.state ?? 'opened',
      confidential: options.confidential ? 1 : 0,
      discussion_locked: options.discussionLocked ? 1 : 0,
      milestone_id: options.milestoneId ?? null,
      due_date: null,
      closed_at: options.state === 'closed' ? now : null,
      closed_by_id: null,
      moved_to_id: null,
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    for (const userId of options.assigneeIds ?? []) {
      await trx.insertInto('issue_assignees').values({ issue_id: issue.id, user_id: userId }).execute()
    }
    for (const label of options.labels ?? []) {
      await trx.insertInto('label_links').values({ label_id: label.id, target_type: 'Issue', target_id: issue.id }).execute()
    }
    return issue
  })
}

/** A merge request from `feature-<iid>` into master of the same project (no repository behind it). */
export async function insertMergeRequest(
  t: TestApp, projectId: number, options: IssuableRowOptions & { state?: 'opened' | 'closed' | 'merged' },
): Promise<MergeRequestRow> {
  return t.ctx.db.transaction().execute(async (trx) => {
    const now = Date.now()
    const iid = await nextInternalId(trx, { type: 'project', id: projectId }, 'merge_requests')
    const mergeRequest = await trx.insertInto('merge_requests').values({
      target_project_id: projectId,
      iid,
      source_project_id: projectId,
      source_branch: `feature-${iid}`,
      target_branch: 'master',
      author_id: options.authorId,
      assignee_id: options.assigneeIds?.[0] ?? null,
      title: options.title ?? 'A merge request',
      description: null,
      state: options.state ?? 'opened',
      milestone_id: options.milestoneId ?? null,
      sha: null,
      target_sha: null,
      merge_commit_sha: null,
      merged_by_id: null,
      merged_at: null,
      closed_by_id: null,
      closed_at: null,
      should_remove_source_branch: null,
      discussion_locked: options.discussionLocked ? 1 : 0,
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    for (const label of options.labels ?? []) {
      await trx.insertInto('label_links').values({ label_id: label.id, target_type: 'MergeRequest', target_id: mergeRequest.id }).execute()
    }
    return mergeRequest
  })
}
