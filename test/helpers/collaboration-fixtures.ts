// Labels, milestones, issues and merge requests for the tests of the resources that show them:
// labels and milestones through their services, issues and merge requests as bare rows (with their
// iids and label links), for tests that only need them to exist.
import type { TestApp } from './app.js'
import { rootActor } from './factories.js'
import type { Actor } from '../../src/auth/actor.js'
import type { IssueRow, LabelRow, MergeRequestRow, MilestoneRow } from '../../src/db/schema.js'
import type { LabelOwner } from '../../src/finders/labels-finder.js'
import { nextInternalId } from '../../src/services/issuables/internal-ids.js'
import { createLabel } from '../../src/services/labels/labels.js'
import { createMilestone } from '../../src/services/milestones/milestones.js'

export const projectOwner = (id: number): LabelOwner => ({ type: 'project', id })
export const groupOwner = (id: number): LabelOwner => ({ type: 'group', id })

export function makeLabel(t: TestApp, owner: LabelOwner, title: string, color = '#428BCA'): Promise<LabelRow> {
  return createLabel(t.ctx.db, owner, { title, color })
}

export async function makeMilestone(
  t: TestApp, owner: LabelOwner, title: string, options: { by?: Actor; description?: string } = {},
): Promise<MilestoneRow> {
  return createMilestone(t.ctx.db, owner, options.by ?? await rootActor(t), {
    title, ...(options.description === undefined ? {} : { description: options.description }),
  })
}

export interface IssueOptions {
  authorId: number
  state?: 'opened' | 'closed'
  confidential?: boolean
  milestoneId?: number
  labels?: readonly LabelRow[]
}

export async function makeIssue(t: TestApp, projectId: number, options: IssueOptions): Promise<IssueRow> {
  return t.ctx.db.transaction().execute(async (trx) => {
    const now = Date.now()
    const issue = await trx.insertInto('issues').values({
      project_id: projectId,
      iid: await nextInternalId(trx, { type: 'project', id: projectId }, 'issues'),
      author_id: options.authorId,
      title: 'An issue',
      description: null,
      state: options.state ?? 'opened',
      confidential: options.confidential ? 1 : 0,
      milestone_id: options.milestoneId ?? null,
      due_date: null,
      closed_at: options.state === 'closed' ? now : null,
      closed_by_id: null,
      moved_to_id: null,
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    for (const label of options.labels ?? []) {
      await trx.insertInto('label_links').values({ label_id: label.id, target_type: 'Issue', target_id: issue.id }).execute()
    }
    return issue
  })
}

export interface MergeRequestOptions {
  authorId: number
  state?: 'opened' | 'closed' | 'merged'
  milestoneId?: number
  labels?: readonly LabelRow[]
}

export async function makeMergeRequest(t: TestApp, projectId: number, options: MergeRequestOptions): Promise<MergeRequestRow> {
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
      assignee_id: null,
      title: 'A merge request',
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
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    for (const label of options.labels ?? []) {
      await trx.insertInto('label_links').values({ label_id: label.id, target_type: 'MergeRequest', target_id: mergeRequest.id }).execute()
    }
    return mergeRequest
  })
}
