// What a push means for open merge requests, as the original's MergeRequests::RefreshService: a
// moved source branch refreshes the merge requests it feeds (sha, head ref, merge_status) and notes
// "added N commits"; a moved target branch that now holds a merge request's head marks it merged
// by the pusher; the other merge requests into that branch show `unchecked` until a job (its kind
// is in jobs.ts) re-checks them, so a push (or a merge) never waits for one three-way merge per open
// merge request. A moved source branch also turns merge when pipeline succeeds off.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { MergeRequestRow } from '../../db/schema.js'
import { commitTitle } from '../../entities/commit.js'
import { commitIdsBetween, refsBroughtIn } from '../../git/merge.js'
import { NULL_OID } from '../../git/repository.js'
import { recordEvent } from '../events/record-event.js'
import { addSystemNote } from '../notes/system-notes.js'
import type { CompletedPush } from '../push/after-push.js'
import { type RefUpdate } from '../push/check-push.js'
import { BRANCH_PREFIX, shortRefName } from '../../git/ref-names.js'
import { mergedActivity } from './merge-merge-request.js'
import { MERGE_REQUEST_REF_PREFIX, mergeRequestHeadRef, refreshMergeRequest } from './refresh-merge-request.js'
import { RECHECK_MERGE_STATUS } from './jobs.js'
import { resetMergeWhenPipelineSucceeds } from './merge-when-pipeline-succeeds.js'

export interface RecheckPayload {
  projectId: number
  branch: string
}

/** The re-check job: refreshes every open merge request into the branch. */
export async function recheckMergeRequests(ctx: AppContext, { projectId, branch }: RecheckPayload): Promise<void> {
  const open = await ctx.db.selectFrom('merge_requests').select('id')
    .where('target_project_id', '=', projectId).where('target_branch', '=', branch).where('state', '=', 'opened')
    .execute()
  for (const { id } of open) await refreshMergeRequest(ctx, id)
}

export function registerMergeRequestPushListener(hooks: Pick<AppContext, 'pushListeners'>): void {
  hooks.pushListeners.add((push, ctx) => onPush(ctx, push))
}

async function onPush(ctx: AppContext, push: CompletedPush): Promise<void> {
  const branchUpdates = push.updates.filter((update) => update.ref.startsWith(BRANCH_PREFIX))
  // Sources first: a push of a merge request's source and of its target merged by hand, together,
  // records the source head before the target is searched for it.
  for (const update of branchUpdates) await refreshSourcesOf(ctx, push, update)
  for (const update of branchUpdates) await checkTargetsOf(ctx, push, update)
}

function openMergeRequests(ctx: AppContext, side: 'source' | 'target', projectId: number, branch: string): Promise<MergeRequestRow[]> {
  return ctx.db.selectFrom('merge_requests').selectAll()
    .where(`${side}_project_id`, '=', projectId).where(`${side}_branch`, '=', branch).where('state', '=', 'opened')
    .orderBy('id')
    .execute()
}

async function refreshSourcesOf(ctx: AppContext, push: CompletedPush, update: RefUpdate): Promise<void> {
  // A deleted source branch leaves its merge requests open as they were, as in the original.
  if (update.newId === NULL_OID) return
  const sources = await openMergeRequests(ctx, 'source', push.project.id, shortRefName(update.ref))
  await resetMergeWhenPipelineSucceeds(ctx.db, sources.map((mr) => mr.id))
  for (const mr of sources) {
    await refreshMergeRequest(ctx, mr.id)
    await noteAddedCommits(ctx, push.actor, mr.id, update)
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** "added 2 commits" with the list of the pushed commits the merge request gained, oldest first. */
async function noteAddedCommits(ctx: AppContext, actor: Actor, mergeRequestId: number, update: RefUpdate): Promise<void> {
  const mr = await ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequestId).executeTakeFirst()
  // Only when the refresh recorded this push (a later push notes its own commits).
  if (mr === undefined || mr.state !== 'opened' || mr.sha !== update.newId) return
  const repo = ctx.repositories.open(mr.target_project_id)
  const excluded = [update.oldId, mr.target_sha].filter((id): id is string => id !== null && id !== NULL_OID)
  // The commits new to the branch and not already in the target: `new ^old ^target`.
  const ids = await commitIdsBetween(repo, excluded, update.newId)
  if (ids.length === 0) return
  const commits = (await repo.readCommits(ids)).reverse()
  const items = commits.map((commit) => `<li>${commit.id.slice(0, 8)} - ${escapeHtml(commitTitle(commit.message))}</li>`).join('')
  const body = `added ${ids.length} ${ids.length === 1 ? 'commit' : 'commits'}\n\n<ul>${items}</ul>`
  await addSystemNote(ctx.db, { projectId: mr.target_project_id, noteable: { type: 'MergeRequest', id: mr.id }, authorId: actor.user.id, body })
}

async function checkTargetsOf(ctx: AppContext, push: CompletedPush, update: RefUpdate): Promise<void> {
  const branch = shortRefName(update.ref)
  const open = await openMergeRequests(ctx, 'target', push.project.id, branch)
  if (open.length === 0) return
  const merged = new Set<number>()
  if (update.newId !== NULL_OID) {
    const repo = ctx.repositories.open(push.project.id)
    const brought = await refsBroughtIn(repo, MERGE_REQUEST_REF_PREFIX, update.newId, update.oldId === NULL_OID ? null : update.oldId)
    for (const mr of open) {
      if (mr.sha !== null && brought.get(mergeRequestHeadRef(mr.iid)) === mr.sha && await markMergedByPush(ctx, push.actor, mr)) merged.add(mr.id)
    }
  }
  const stale = open.filter((mr) => !merged.has(mr.id)).map((mr) => mr.id)
  if (stale.length === 0) return
  await ctx.db.updateTable('merge_requests').set({ merge_status: 'unchecked' })
    .where('id', 'in', stale).where('state', '=', 'opened').execute()
  await ctx.jobs.enqueue(RECHECK_MERGE_STATUS, { projectId: push.project.id, branch }, { uniqueKey: `${push.project.id}:${branch}` })
}

/**
 * A merge request whose head reached its target branch by a push (merged by hand): merged by the
 * pusher, with the `merged` event and system note the original's PostMergeService writes.
 */
async function markMergedByPush(ctx: AppContext, actor: Actor, mr: MergeRequestRow): Promise<boolean> {
  const now = Date.now()
  const merged = await ctx.db.transaction().execute(async (trx) => {
    const result = await trx.updateTable('merge_requests')
      .set({ state: 'merged', merged_by_id: actor.user.id, merged_at: now, updated_at: now })
      .where('id', '=', mr.id).where('state', '=', 'opened')
      .executeTakeFirst()
    if (result.numUpdatedRows === 0n) return false
    await recordEvent(trx, {
      action: 'merged', authorId: actor.user.id, projectId: mr.target_project_id,
      target: { type: 'MergeRequest', id: mr.id, iid: mr.iid, title: mr.title }, createdAt: now,
    })
    await addSystemNote(trx, { projectId: mr.target_project_id, noteable: { type: 'MergeRequest', id: mr.id }, authorId: actor.user.id, body: 'merged', createdAt: now })
    return true
  })
  if (merged) await ctx.activity.publish(mergedActivity(mr, actor.user.id), ctx)
  return merged
}
