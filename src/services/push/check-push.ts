// Whether a caller may make the ref updates of a push, decided before any ref moves (spec:
// protected branches and tags; the original's git access rules). The one check every way of
// moving refs goes through: git pushes over any transport, and the API's branch, tag, file and
// commit writes. Refusals are the sentences the original shows on the client's terminal.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { DEVELOPER, MAINTAINER } from '../../policies/access-levels.js'
import {
  canCreateTag, canDeleteTag, canMoveTag, canPushToBranch, canRewriteBranch, matchingRules,
} from '../../policies/protected-refs.js'
import { protectedBranchesOf, protectedTagsOf } from '../../finders/protected-refs.js'
import { getApplicationSettings } from '../settings.js'
import { NULL_OID, type GitRepository } from '../../git/repository.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from '../../git/ref-names.js'

export interface RefUpdate {
  /** Full ref name: `refs/heads/main`, `refs/tags/v1`. */
  ref: string
  /** NULL_OID when the ref is created. */
  oldId: string
  /** NULL_OID when the ref is deleted. */
  newId: string
}

export interface PushCheck {
  ctx: Pick<AppContext, 'db' | 'repositories'>
  subject: ProjectSubject
  actor: Actor | null
  updates: readonly RefUpdate[]
  /** The environment git gives a pre-receive hook, so objects of the push in quarantine are found. */
  gitEnv?: Record<string, string>
}

/** The refusal to show for the first update the caller may not make; null when all are allowed. */
export async function refusalOf(check: PushCheck): Promise<string | null> {
  const { ctx, subject, actor, updates } = check
  const admin = actor?.user.admin === 1
  const level = subject.access.level
  if (actor === null || (!admin && level < DEVELOPER)) return 'You are not allowed to push code to this project.'
  if (subject.project.archived) return 'You are not allowed to push code to an archived project.'
  const repo = ctx.repositories.open(subject.project.id)
  const [branches, tags, settings] = await Promise.all([
    protectedBranchesOf(ctx.db, subject.project.id), protectedTagsOf(ctx.db, subject.project.id), getApplicationSettings(ctx.db),
  ])
  // Asking git whether the repository is empty costs a process: only when the setting makes it
  // matter and no update moves or deletes a branch or tag that exists (as most pushes do).
  const movesExistingRef = updates.some((update) => update.oldId !== NULL_OID && (update.ref.startsWith(BRANCH_PREFIX) || update.ref.startsWith(TAG_PREFIX)))
  const firstPushProtected = settings.default_branch_protection === 2
    && updates.some((update) => update.ref.startsWith(BRANCH_PREFIX)) && !movesExistingRef && await repo.isEmpty()
  for (const update of updates) {
    const refusal = update.ref.startsWith(BRANCH_PREFIX)
      ? await branchRefusal(update, { repo, branches, admin, level, env: check.gitEnv, defaultBranch: subject.project.default_branch, firstPushProtected })
      : update.ref.startsWith(TAG_PREFIX)
        ? tagRefusal(update, tags, admin, level)
        // Other refs (git notes, review refs) need push access alone, as in the original. Ingot's own
        // namespaces never get here: receive-pack hides them from pushes (git/smart-http.ts).
        : null
    if (refusal !== null) return refusal
  }
  return null
}

interface BranchContext {
  repo: GitRepository
  branches: Parameters<typeof canPushToBranch>[0]
  admin: boolean
  level: number
  env: Record<string, string> | undefined
  defaultBranch: string | null
  /** The project is empty and the setting keeps its first (default) branch to Maintainers. */
  firstPushProtected: boolean
}

async function branchRefusal(update: RefUpdate, c: BranchContext): Promise<string | null> {
  const branch = shortRefName(update.ref)
  const isProtected = matchingRules(c.branches, branch).length > 0
  if (update.newId === NULL_OID) {
    if (branch === c.defaultBranch) return 'The default branch of a project cannot be deleted.'
    if (isProtected && !(c.admin || c.level >= MAINTAINER)) {
      return 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.'
    }
    return null
  }
  if (c.firstPushProtected && !(c.admin || c.level >= MAINTAINER)) {
    return 'You are not allowed to push code to protected branches on this project.'
  }
  if (update.oldId === NULL_OID) {
    if (isProtected && !canPushToBranch(c.branches, branch, c.level, c.admin)) return 'You are not allowed to create protected branches on this project.'
    return null
  }
  if (!canPushToBranch(c.branches, branch, c.level, c.admin)) return 'You are not allowed to push code to protected branches on this project.'
  // Whether the push rewrites history matters (and costs a git process) only where rewriting is not allowed.
  if (!canRewriteBranch(c.branches, branch, c.level, c.admin) && !(await c.repo.isAncestor(update.oldId, update.newId, c.env))) {
    return 'You are not allowed to force push code to a protected branch on this project.'
  }
  return null
}

function tagRefusal(update: RefUpdate, tags: Parameters<typeof canCreateTag>[0], admin: boolean, level: number): string | null {
  const tag = shortRefName(update.ref)
  if (update.newId === NULL_OID) {
    return canDeleteTag(tags, tag, level, admin) ? null
      : 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.'
  }
  if (update.oldId === NULL_OID) return canCreateTag(tags, tag, level, admin) ? null : 'You are not allowed to create this tag as it is protected.'
  return canMoveTag(tags, tag, level, admin) ? null : 'Protected tags cannot be updated.'
}
