// Merges their process did not finish, as the original's StuckMergeJobsWorker recovers them: a
// merge request left `locked` longer than any merge can take becomes `merged` when its target
// branch moved to the commit the merge built (merge_commit_sha kept when that is a merge commit),
// and `opened` again otherwise, so that it can be merged anew.
import type { AppContext } from '../../context.js'
import type { MergeRequestRow } from '../../db/schema.js'
import { findBranchTip } from '../../git/branches.js'
import { NOT_MERGING } from './merge-merge-request.js'

/** Longer than a merge may take: the request that runs it is ended long before (app.ts timeouts). */
export const STUCK_AFTER_MS = 15 * 60_000

export interface RecoveredMerges {
  merged: number
  reopened: number
}

export async function recoverStuckMerges(ctx: AppContext, now = Date.now()): Promise<RecoveredMerges> {
  const stuck = await ctx.db.selectFrom('merge_requests').selectAll()
    .where('merge_started_at', '<', now - STUCK_AFTER_MS).where('state', '=', 'locked')
    .orderBy('id').execute()
  const recovered: RecoveredMerges = { merged: 0, reopened: 0 }
  for (const mr of stuck) {
    const landed = await mergeLanded(ctx, mr)
    const outcome = landed === null
      ? { state: 'opened' as const }
      : { state: 'merged' as const, merged_at: now, merge_commit_sha: landed.isMergeCommit ? landed.head : null }
    // Only if still the same stuck merge: a merge that ended meanwhile keeps what it wrote.
    const { numUpdatedRows } = await ctx.db.updateTable('merge_requests').set({ ...outcome, ...NOT_MERGING, updated_at: now })
      .where('id', '=', mr.id).where('state', '=', 'locked').where('merge_started_at', '=', mr.merge_started_at)
      .executeTakeFirst()
    if (numUpdatedRows === 0n) continue
    recovered[landed === null ? 'reopened' : 'merged'] += 1
    ctx.log.warn({ mergeRequest: mr.id, outcome: outcome.state }, 'recovered a merge its process did not finish')
  }
  return recovered
}

/** The commit the merge moved the target branch to, if the branch is there or past it. */
async function mergeLanded(ctx: AppContext, mr: MergeRequestRow): Promise<{ head: string; isMergeCommit: boolean } | null> {
  const head = mr.in_progress_merge_commit_sha
  if (head === null) return null
  const repo = ctx.repositories.open(mr.target_project_id)
  const tip = await findBranchTip(repo, mr.target_branch)
  if (tip === null || (tip.commitId !== head && !await repo.isAncestor(head, tip.commitId))) return null
  const commit = await repo.readCommit(head)
  return { head, isMergeCommit: (commit?.parents.length ?? 0) > 1 }
}
