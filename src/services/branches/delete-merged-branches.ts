// DELETE /projects/:id/repository/merged_branches (spec: Branches): every branch merged into the
// default branch goes, except the default branch itself, protected ones and (as the original)
// those still at the default branch's tip; a branch the push rules refuse to delete, or that moved
// meanwhile, stays. Runs within the request: the refs move one compare-and-swap each.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import { NULL_OID } from '../../git/repository.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { matchingRules } from '../../policies/protected-refs.js'
import { branchTips, branchesMergedInto, defaultBranchTip } from '../../git/branches.js'
import { protectedBranchesOf } from '../../finders/protected-refs.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { moveRefs } from '../push/move-refs.js'

/** Deletes the merged branches; returns the names of those deleted. */
export async function deleteMergedBranches(ctx: AppContext, subject: ProjectSubject, actor: Actor): Promise<string[]> {
  const { project } = subject
  const repo = ctx.repositories.open(project.id)
  const defaultTip = await defaultBranchTip(repo, project.default_branch)
  if (defaultTip === null) return []
  const [tips, rules] = await Promise.all([branchTips(repo), protectedBranchesOf(ctx.db, project.id)])
  const candidates = tips.filter((tip) => tip.name !== project.default_branch && matchingRules(rules, tip.name).length === 0)
  const merged = await branchesMergedInto(repo, defaultTip, candidates)
  const doomed = candidates.filter((tip) => merged.has(tip.name))
  const outcomes = await moveRefs(ctx, subject, actor,
    doomed.map((tip) => ({ ref: `${BRANCH_PREFIX}${tip.name}`, oldId: tip.commitId, newId: NULL_OID })))
  return doomed.filter((_tip, i) => outcomes[i]?.status === 'moved').map((tip) => tip.name)
}
