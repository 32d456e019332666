// How the branch and tag endpoints move refs: the push rules decide first (refusalOf, the one check
// every transport goes through), each ref moves only if nobody moved it meanwhile
// (compare-and-swap), and what follows every push runs once for the refs that moved (afterPush).
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { ProjectSubject } from '../../policies/project-policy.js'
import { BRANCH_PREFIX, isValidRefName } from '../../git/ref-names.js'
import { afterPush } from './after-push.js'
import { refusalOf, type RefUpdate } from './check-push.js'

/**
 * A name the API may create a branch or tag under: a valid ref name that does not look like a full
 * ref or HEAD, which later lookups would read differently (as the original's GitRefValidator).
 */
export function isCreatableRefName(name: string): boolean {
  return isValidRefName(name) && name !== 'HEAD' && !name.startsWith(BRANCH_PREFIX) && !name.startsWith('refs/remotes/')
}

export type RefMoveOutcome =
  | { status: 'moved' }
  /** The push rules refused it; `message` is the original's sentence. */
  | { status: 'refused'; message: string }
  /** The ref no longer pointed where the caller saw it. */
  | { status: 'stale' }

/** Moves each ref the rules allow; the outcomes follow the order of `updates`. */
export async function moveRefs(
  ctx: AppContext, subject: ProjectSubject, actor: Actor, updates: readonly RefUpdate[],
): Promise<RefMoveOutcome[]> {
  const repo = ctx.repositories.open(subject.project.id)
  const outcomes: RefMoveOutcome[] = []
  const moved: RefUpdate[] = []
  for (const update of updates) {
    const refusal = await refusalOf({ ctx, subject, actor, updates: [update] })
    if (refusal !== null) {
      outcomes.push({ status: 'refused', message: refusal })
    } else if (await repo.compareAndSwapRef(update.ref, update.newId, update.oldId)) {
      outcomes.push({ status: 'moved' })
      moved.push(update)
    } else {
      outcomes.push({ status: 'stale' })
    }
  }
  await afterPush(ctx, subject.project, actor, moved)
  return outcomes
}

export async function moveRef(ctx: AppContext, subject: ProjectSubject, actor: Actor, update: RefUpdate): Promise<RefMoveOutcome> {
  const [outcome] = await moveRefs(ctx, subject, actor, [update])
  return outcome ?? { status: 'stale' }
}
