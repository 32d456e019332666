// POST …/commits/:sha/cherry_pick and …/revert (spec: Commits): the change a commit makes, applied
// onto (or undone on) the tip of a branch as one new commit, and the branch moved to it through the
// push path (push rules, compare-and-swap, afterPush). As in the original: a cherry-pick keeps the
// original author and notes "(cherry picked from commit <sha>)"; a revert is authored by the caller
// and says `Revert "<title>"`; a conflict or a change that is already there is refused (400) with
// the original's sentence.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import { commitTitle } from '../../entities/commit.js'
import { pickTree, writePickCommit, type PickMode } from '../../git/cherry-pick.js'
import type { Commit } from '../../git/repository.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import type { BranchTip } from '../../git/branches.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { moveRef } from '../push/move-refs.js'
import { badRequest, forbidden } from '../../common/errors.js'
import { branchMovedMessage } from './commit-changes.js'
import { gitIdentityOf } from './identity.js'

function pickMessage(commit: Commit, mode: PickMode): string {
  return mode === 'cherry-pick'
    ? `${commit.message.trimEnd()}\n\n(cherry picked from commit ${commit.id})`
    : `Revert "${commitTitle(commit.message)}"\n\nThis reverts commit ${commit.id}`
}

/** The original's refusal: `cherry-pick` → "cherry-picked", `revert` → "reverted". */
function cannotPick(mode: PickMode): string {
  return `Sorry, we cannot ${mode} this commit automatically. This commit may already have been ${mode}ed, ` +
    'or a more recent commit may have updated some of its content.'
}

export async function pickCommit(
  ctx: AppContext, subject: ProjectSubject, actor: Actor, commit: Commit, branch: BranchTip, mode: PickMode,
): Promise<Commit> {
  const repo = ctx.repositories.open(subject.project.id)
  const tree = await pickTree(repo, commit, branch.commitId, mode)
  if (tree === null) throw badRequest(cannotPick(mode))
  const caller = gitIdentityOf(actor.user)
  const author = mode === 'cherry-pick'
    ? { name: commit.author.name, email: commit.author.email, date: `@${commit.author.time} ${commit.author.timezone}` }
    : caller
  const id = await writePickCommit(repo, { tree, parent: branch.commitId, message: pickMessage(commit, mode), author, committer: caller })
  const outcome = await moveRef(ctx, subject, actor, { ref: `${BRANCH_PREFIX}${branch.name}`, oldId: branch.commitId, newId: id })
  if (outcome.status === 'refused') throw forbidden('You are not allowed to push into this branch')
  if (outcome.status === 'stale') throw badRequest(branchMovedMessage(branch.name))
  const written = await repo.readCommit(id)
  if (written === null) throw new Error(`commit ${id} just written is missing`)
  return written
}
