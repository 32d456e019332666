// Who may run CI for a ref, as the original asks before creating a pipeline or acting on its jobs:
// whoever may update the branch (push to it or merge into it) or create the tag under the
// project's protection rules.
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import { protectedBranchesOf, protectedTagsOf } from '../../finders/protected-refs.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { canCreateTag, canMergeToBranch, canPushToBranch } from '../../policies/protected-refs.js'

export async function canRunCiFor(db: Db, actor: Actor, subject: ProjectSubject, ref: string, tag: boolean): Promise<boolean> {
  const admin = actor.user.admin === 1
  const level = subject.access.level
  if (tag) return canCreateTag(await protectedTagsOf(db, subject.project.id), ref, level, admin)
  const rules = await protectedBranchesOf(db, subject.project.id)
  return canPushToBranch(rules, ref, level, admin) || canMergeToBranch(rules, ref, level, admin)
}
