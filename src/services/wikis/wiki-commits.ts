// How every API write reaches a wiki: one commit by the acting user, written without a work tree
// (git/write.ts) on a branch of the wiki repository (made on the first write) and moved there by
// compare-and-swap. When another write moved the branch meanwhile, the change is checked and built
// again on the new tip, so concurrent edits are never lost and never silently overwritten.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import { NULL_OID } from '../../git/repository.js'
import { writeCommit, type TreeChange } from '../../git/write.js'
import { findBranchTip } from '../../git/branches.js'
import { WIKI_BRANCH } from '../../finders/wiki-pages-finder.js'
import { badRequest } from '../../common/errors.js'
import { gitIdentityOf } from '../commits/identity.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { branchMovedMessage } from '../commits/commit-changes.js'

export interface WikiCommitDraft {
  changes: TreeChange[]
  message: string
}

/** How often a write is rebuilt on a branch that keeps moving before giving up. */
const ATTEMPTS = 3

/**
 * Commits what `build` makes of the branch's tip (null on a wiki without it) and moves `branch`
 * there; returns the new commit and the draft it was made of. A branch that does not exist yet
 * starts from the wiki's `master`. `build` throws (an ApiError) when the change cannot be made.
 */
export async function commitToWiki<Draft extends WikiCommitDraft>(
  ctx: AppContext, projectId: number, actor: Actor, branch: string,
  build: (parent: string | null) => Promise<Draft>,
): Promise<{ commitId: string; draft: Draft }> {
  await ctx.repositories.createWiki(projectId)
  const repo = ctx.repositories.openWiki(projectId)
  const identity = gitIdentityOf(actor.user)
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const tip = (await findBranchTip(repo, branch))?.commitId ?? null
    const parent = tip ?? (branch === WIKI_BRANCH ? null : (await findBranchTip(repo, WIKI_BRANCH))?.commitId ?? null)
    const draft = await build(parent)
    const commitId = await writeCommit(repo, { parent, changes: draft.changes, message: draft.message, author: identity, committer: identity })
    if (await repo.compareAndSwapRef(`${BRANCH_PREFIX}${branch}`, commitId, tip ?? NULL_OID)) {
      await markWikiActivity(ctx.db, projectId)
      return { commitId, draft }
    }
  }
  throw badRequest(branchMovedMessage(branch))
}

/** A change of the wiki (API or push) is activity of its project, as the original records it. */
export async function markWikiActivity(db: Db, projectId: number): Promise<void> {
  await db.updateTable('projects').set({ last_activity_at: Date.now() }).where('id', '=', projectId).execute()
}
