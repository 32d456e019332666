// POST /projects/:id/repository/branches (spec: Branches): a new branch at a branch, tag or commit,
// refused with the original's sentences (400): an invalid name, an existing branch, a ref that
// names no commit, or the push rules' refusal.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import { NULL_OID } from '../../git/repository.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { findBranchTip, type BranchTip } from '../../git/branches.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { badRequest } from '../../common/errors.js'
import { isCreatableRefName, moveRef } from '../push/move-refs.js'

const ALREADY_EXISTS = 'Branch already exists'

export async function createBranch(ctx: AppContext, subject: ProjectSubject, actor: Actor, name: string, ref: string): Promise<BranchTip> {
  if (!isCreatableRefName(name)) throw badRequest('Branch name is invalid')
  const repo = ctx.repositories.open(subject.project.id)
  if (await findBranchTip(repo, name) !== null) throw badRequest(ALREADY_EXISTS)
  const commitId = await repo.resolveCommit(ref)
  if (commitId === null) throw badRequest('Invalid reference name')
  const outcome = await moveRef(ctx, subject, actor, { ref: `${BRANCH_PREFIX}${name}`, oldId: NULL_OID, newId: commitId })
  if (outcome.status === 'refused') throw badRequest(outcome.message)
  if (outcome.status === 'stale') throw badRequest(ALREADY_EXISTS)
  return { name, commitId }
}
