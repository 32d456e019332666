// DELETE /projects/:id/repository/branches/:branch (spec: Branches; error rule 7): the push rules
// explain a refusal (the default branch, a protected branch for non-Maintainers), as the original
// answers them (400 with the sentence).
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import { NULL_OID } from '../../git/repository.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import type { BranchTip } from '../../git/branches.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { badRequest } from '../../common/errors.js'
import { moveRef } from '../push/move-refs.js'

export async function deleteBranch(ctx: AppContext, subject: ProjectSubject, actor: Actor, tip: BranchTip): Promise<void> {
  const outcome = await moveRef(ctx, subject, actor, { ref: `${BRANCH_PREFIX}${tip.name}`, oldId: tip.commitId, newId: NULL_OID })
  if (outcome.status === 'refused') throw badRequest(outcome.message)
  if (outcome.status === 'stale') throw badRequest('Failed to remove branch')
}
