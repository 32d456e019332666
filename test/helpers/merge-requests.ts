// Merge requests for tests, opened through POST /projects/:id/merge_requests (so sha, the head ref
// and merge_status are what the API itself computes), each from a branch of its own unless told;
// milestones and award emoji are set up in their own tables.
import assert from 'node:assert/strict'
import type { TestApp } from './app.js'
import { uniqueName, type TestUser } from './factories.js'
import { commitFiles } from './git.js'
import type { MergeRequestRow, MergeRequestsTable, MilestoneRow, ProjectRow } from '../../src/db/schema.js'
import type { Updateable } from 'kysely'
import { nextInternalId } from '../../src/services/issuables/internal-ids.js'

export interface MergeRequestInput {
  title?: string
  description?: string
  /** Default: a new branch one commit ahead of master. */
  sourceBranch?: string
  targetBranch?: string
  assigneeId?: number
  milestoneId?: number
  labels?: string[]
  /** A fork of the project (forked_from_project_id set) whose branch is the source. */
  sourceProjectId?: number
}

/** A repository with master and the given branches, each one commit ahead of master. */
export async function makeBranches(t: TestApp, projectId: number, branches: readonly string[]): Promise<Record<string, string>> {
  const heads: Record<string, string> = {}
  const repo = t.ctx.repositories.open(projectId)
  heads.master = await repo.resolveCommit('refs/heads/master') ?? await commitFiles(t, projectId, { 'README.md': '# readme\n' })
  for (const branch of branches) {
    heads[branch] = await commitFiles(t, projectId, { [`${branch}.txt`]: `${branch}\n` }, { branch, parent: heads.master, message: `Add ${branch}` })
  }
  return heads
}

/**
 * Opens a merge request as root (who may open one anywhere), then makes `author` (root when null)
 * its author, so that any user can be one, as opening from a fork would allow.
 */
export async function makeMergeRequest(t: TestApp, project: ProjectRow, author: TestUser | null, input: MergeRequestInput = {}): Promise<MergeRequestRow> {
  const sourceProjectId = input.sourceProjectId ?? project.id
  let sourceBranch = input.sourceBranch
  if (sourceBranch === undefined) {
    sourceBranch = uniqueName('mr-')
    await makeBranches(t, sourceProjectId, [sourceBranch])
  }
  const res = await t.api('POST', `/projects/${sourceProjectId}/merge_requests`, {
    body: {
      title: input.title ?? uniqueName('Merge request '),
      source_branch: sourceBranch,
      target_branch: input.targetBranch ?? 'master',
      ...(sourceProjectId === project.id ? {} : { target_project_id: project.id }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.assigneeId === undefined ? {} : { assignee_id: input.assigneeId }),
      ...(input.milestoneId === undefined ? {} : { milestone_id: input.milestoneId }),
      ...(input.labels === undefined ? {} : { labels: input.labels.join(',') }),
    },
  })
  assert.equal(res.status, 201, res.text)
  return setMergeRequestColumns(t, res.body.id, { author_id: author?.user.id ?? t.root.user.id })
}

/** Sets columns the API computes (state, timestamps, merge results) for list and entity tests. */
export async function setMergeRequestColumns(t: TestApp, id: number, values: Updateable<MergeRequestsTable>): Promise<MergeRequestRow> {
  return t.ctx.db.updateTable('merge_requests').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function makeMilestone(t: TestApp, owner: { projectId?: number; groupId?: number }, title: string): Promise<MilestoneRow> {
  const { db } = t.ctx
  const now = Date.now()
  return db.transaction().execute(async (trx) => {
    const iid = await nextInternalId(trx, owner.projectId !== undefined
      ? { type: 'project', id: owner.projectId } : { type: 'group', id: owner.groupId ?? 0 }, 'milestones')
    return trx.insertInto('milestones').values({
      project_id: owner.projectId ?? null, group_id: owner.groupId ?? null, iid, title, description: null,
      due_date: null, start_date: null, state: 'active', created_at: now, updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
  })
}

export async function awardEmoji(t: TestApp, userId: number, mergeRequestId: number, name: string): Promise<void> {
  const now = Date.now()
  await t.ctx.db.insertInto('award_emoji')
    .values({ name, user_id: userId, awardable_type: 'MergeRequest', awardable_id: mergeRequestId, created_at: now, updated_at: now })
    .execute()
}

/** The system notes of a merge request, oldest first. */
export async function systemNotesOf(t: TestApp, mergeRequestId: number): Promise<string[]> {
  const rows = await t.ctx.db.selectFrom('notes').select('body')
    .where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', mergeRequestId).where('system', '=', 1)
    .orderBy('id').execute()
  return rows.map((row) => row.body)
}

/** The events recorded about a merge request, oldest first, as "action". */
export async function eventsOf(t: TestApp, mergeRequestId: number): Promise<{ action: string; author_id: number; target_iid: number | null; target_title: string | null }[]> {
  return t.ctx.db.selectFrom('events').select(['action', 'author_id', 'target_iid', 'target_title'])
    .where('target_type', '=', 'MergeRequest').where('target_id', '=', mergeRequestId)
    .orderBy('id').execute()
}
