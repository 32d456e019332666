// The repository side of an open merge request, brought up to date with its branches: `sha` (the
// source branch head), refs/merge-requests/:iid/head naming it in the target repository (a fork's
// commits fetched there first, as the original's fetch_ref!), `target_sha` (the target branch head)
// and `merge_status` from a three-way merge of the two (`git merge-tree`, no work tree). Creating a
// merge request, retargeting or reopening it, and pushes to either branch call it.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { MergeRequestRow, MergeStatus } from '../../db/schema.js'
import { findBranchTip } from '../../git/branches.js'
import { fetchCommit, mergeTree } from '../../git/merge.js'
import { NULL_OID } from '../../git/repository.js'

/** Ingot's own namespace of merge request refs in target repositories (hidden from pushes). */
export const MERGE_REQUEST_REF_PREFIX = 'refs/merge-requests/'

export function mergeRequestHeadRef(iid: number): string {
  return `${MERGE_REQUEST_REF_PREFIX}${iid}/head`
}

/** Rounds of reading and writing before a refresh yields to the concurrent ones that kept winning. */
const ATTEMPTS = 3

/**
 * Brings the merge request's sha, head ref, target_sha and merge_status up to date; only open merge
 * requests change. Costs lookups alone when neither branch moved since the last refresh. Safe to
 * run concurrently: the head ref moves by compare-and-swap and the row only from what was read.
 */
export async function refreshMergeRequest(ctx: AppContext, mergeRequestId: number): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await refreshOnce(ctx, mergeRequestId)) return
  }
}

/** One round; false when another writer changed the ref or the row meanwhile. */
async function refreshOnce(ctx: AppContext, mergeRequestId: number): Promise<boolean> {
  const mr = await ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequestId).executeTakeFirst()
  if (mr === undefined || mr.state !== 'opened' || mr.source_project_id === null) return true
  const target = ctx.repositories.open(mr.target_project_id)
  const headRef = mergeRequestHeadRef(mr.iid)
  const [sourceTip, targetTip, headRefInfo] = await Promise.all([
    findBranchTip(ctx.repositories.open(mr.source_project_id), mr.source_branch),
    findBranchTip(target, mr.target_branch),
    target.info(headRef),
  ])
  // A deleted source branch leaves the merge request showing what it had, as the original keeps it.
  const sha = sourceTip?.commitId ?? mr.sha
  if (sha === null) return true
  if (sourceTip !== null && headRefInfo?.oid !== sourceTip.commitId) {
    if (mr.source_project_id !== mr.target_project_id) {
      await fetchCommit(target, ctx.repositories.repositoryPath(mr.source_project_id), sourceTip.commitId)
    }
    if (!await target.compareAndSwapRef(headRef, sourceTip.commitId, headRefInfo?.oid ?? NULL_OID)) return false
  }
  const targetSha = targetTip?.commitId ?? mr.target_sha
  const unchanged = sha === mr.sha && targetSha === mr.target_sha && targetTip !== null && mr.merge_status !== 'unchecked'
  const mergeStatus: MergeStatus = unchanged ? mr.merge_status
    : targetTip === null ? 'cannot_be_merged'
    : (await mergeTree(target, targetTip.commitId, sha)) === null ? 'cannot_be_merged' : 'can_be_merged'
  if (sha === mr.sha && targetSha === mr.target_sha && mergeStatus === mr.merge_status) return true
  return updateFrom(ctx.db, mr, { sha, target_sha: targetSha, merge_status: mergeStatus })
}

/** Writes the values only if the row still holds what the round read (compare-and-swap on the row). */
async function updateFrom(db: Db, read: MergeRequestRow, values: Pick<MergeRequestRow, 'sha' | 'target_sha' | 'merge_status'>): Promise<boolean> {
  const result = await db.updateTable('merge_requests').set(values)
    .where('id', '=', read.id).where('state', '=', 'opened').where('merge_status', '=', read.merge_status)
    .where((eb) => eb.and([
      read.sha === null ? eb('sha', 'is', null) : eb('sha', '=', read.sha),
      read.target_sha === null ? eb('target_sha', 'is', null) : eb('target_sha', '=', read.target_sha),
    ]))
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
