// What follows every push, whatever moved the refs (git over any transport, or the API's writes):
// a `pushed` contribution event per ref with its push_data, the default branch of a project's
// first push (and its protection from the default_branch_protection setting), the project's
// last activity and whether its repository is empty, a statistics refresh job, and then the push
// listeners — the hook point where later capabilities (merge requests, pipelines, webhooks) react
// to pushes.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { ProjectRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { NULL_OID, type GitRepository } from '../../git/repository.js'
import { countPushedCommits } from '../../git/pushed-commits.js'
import { commitTitle } from '../../entities/commit.js'
import { defaultBranchProtection } from '../../policies/protected-refs.js'
import { recordEvent, type PushData } from '../events/record-event.js'
import { getApplicationSettings } from '../settings.js'
import { enqueueStatisticsRefresh } from '../projects/refresh-statistics.js'
import { type RefUpdate } from './check-push.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from '../../git/ref-names.js'
import { mapBounded } from '../../common/bounded.js'

export interface CompletedPush {
  project: ProjectRow
  actor: Actor
  /** The updates that took effect. */
  updates: readonly RefUpdate[]
  /** Whether the repository had no branch before the push. */
  intoEmptyRepository: boolean
  /** What the pusher sent (the pack, over git); 0 for the API's writes, which bring a few objects. */
  receivedBytes: number
}

/** What only the transport knows of a push. */
export interface PushTransfer {
  receivedBytes: number
}

/** A listener hears a push with the context of whoever made it (a request's or a job's). */
export type PushListener = (push: CompletedPush, ctx: AppContext) => Promise<void>

/** The hook point: listeners run after a push's own records are written, one after another. */
export class PushListeners {
  private readonly listeners: PushListener[] = []

  add(listener: PushListener): void {
    this.listeners.push(listener)
  }

  async notify(push: CompletedPush, ctx: AppContext): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(push, ctx)
      } catch (err) {
        ctx.log.error({ err, project: push.project.id }, 'a push listener failed')
      }
    }
  }
}

/**
 * How many pushed refs are looked at at once (each reads commits, some count them with a git
 * process): enough to overlap their waits, few enough that a push of thousands of tags queues.
 */
export const PUSHED_REFS_AT_ONCE = 8

/** Title of a pushed event's commit, as the original trims it. */
const TITLE_LENGTH = 70

async function pushDataOf(repo: GitRepository, update: RefUpdate, branchesAfterPush: () => Promise<readonly string[]>): Promise<PushData> {
  const isTag = update.ref.startsWith(TAG_PREFIX)
  const action = update.oldId === NULL_OID ? 'created' : update.newId === NULL_OID ? 'removed' : 'pushed'
  let commitCount = 0
  if (!isTag && action === 'pushed') {
    commitCount = await countPushedCommits(repo, update.newId, [update.oldId])
  } else if (!isTag && action === 'created') {
    const otherBranches = (await branchesAfterPush()).filter((ref) => ref !== update.ref)
    commitCount = await countPushedCommits(repo, update.newId, otherBranches)
  }
  const head = action === 'removed' ? null : await repo.resolveCommit(update.newId)
  const title = head === null ? null : commitTitle((await repo.readCommit(head))?.message ?? '')
  // A pushed tag counts the one commit it names, as the original's payload carries it.
  if (isTag && head !== null) commitCount = 1
  return {
    commit_count: commitCount,
    action,
    ref_type: isTag ? 'tag' : 'branch',
    commit_from: update.oldId === NULL_OID ? null : update.oldId,
    commit_to: update.newId === NULL_OID ? null : update.newId,
    ref: shortRefName(update.ref),
    commit_title: title === null ? null : title.length > TITLE_LENGTH ? `${title.slice(0, TITLE_LENGTH - 3)}...` : title,
  }
}

/**
 * The default branch of a project that has none yet: the one HEAD names once it exists (pushed
 * now, or written before without a push), else the first branch the push created.
 */
function firstDefaultBranch(updates: readonly RefUpdate[], headBranch: string | null, branches: readonly string[]): string | null {
  if (headBranch !== null && branches.includes(`${BRANCH_PREFIX}${headBranch}`)) return headBranch
  const created = updates.filter((u) => u.ref.startsWith(BRANCH_PREFIX) && u.newId !== NULL_OID).map((u) => shortRefName(u.ref))
  return created[0] ?? null
}

/**
 * Records what a push did to branches and tags; `refUpdates` are the ones that took effect (other
 * refs, such as git notes, leave no record, as in the original).
 */
export async function afterPush(
  ctx: AppContext, project: ProjectRow, actor: Actor, refUpdates: readonly RefUpdate[], transfer: PushTransfer = { receivedBytes: 0 },
): Promise<void> {
  const updates = refUpdates.filter((u) => u.ref.startsWith(BRANCH_PREFIX) || u.ref.startsWith(TAG_PREFIX))
  if (updates.length === 0) return
  const repo = ctx.repositories.open(project.id)
  // Listing the branches costs a git process: a push that creates or deletes none needs no list.
  const branchesChanged = updates.some((u) => u.ref.startsWith(BRANCH_PREFIX) && (u.oldId === NULL_OID || u.newId === NULL_OID))
  let branchList: Promise<string[]> | null = null
  const listBranches = () => (branchList ??= repo.refNames(BRANCH_PREFIX))
  const defaultBranchExists = async (name: string) => branchesChanged
    ? (await listBranches()).includes(`${BRANCH_PREFIX}${name}`)
    : (await repo.resolveCommit(`${BRANCH_PREFIX}${name}`)) !== null
  const [keepsDefault, pushData] = await Promise.all([
    project.default_branch === null ? false : defaultBranchExists(project.default_branch),
    mapBounded(updates, PUSHED_REFS_AT_ONCE, (update) => pushDataOf(repo, update, listBranches)),
  ])
  const newDefault = keepsDefault ? null : firstDefaultBranch(updates, await repo.headBranch(), await listBranches())
  // Only a push that creates or deletes a branch can make the repository empty or not.
  const emptyRepo = branchesChanged ? (await listBranches()).length === 0 : null
  const defaultBranch = newDefault ?? (keepsDefault ? project.default_branch : null)
  // The first push into an empty repository protects the default branch it creates, as the
  // instance's default_branch_protection says; later pushes and branches written before leave it be.
  const created = new Set(updates.filter((u) => u.oldId === NULL_OID && u.ref.startsWith(BRANCH_PREFIX)).map((u) => u.ref))
  const firstPush = created.size > 0 && (await listBranches()).every((branch) => created.has(branch))
  const protection = firstPush && defaultBranch !== null && created.has(`${BRANCH_PREFIX}${defaultBranch}`)
    ? defaultBranchProtection((await getApplicationSettings(ctx.db)).default_branch_protection) : null
  const now = Date.now()
  await ctx.db.transaction().execute(async (trx) => {
    for (const data of pushData) {
      await recordEvent(trx, { action: 'pushed', authorId: actor.user.id, projectId: project.id, pushData: data, createdAt: now })
    }
    // pushes_since_gc counts the pushes repository housekeeping is due by (services/projects/housekeeping.ts).
    await trx.updateTable('projects')
      .set((eb) => ({
        last_activity_at: now, pushes_since_gc: eb('pushes_since_gc', '+', 1),
        ...(newDefault === null ? {} : { default_branch: newDefault, updated_at: now }),
        ...(emptyRepo === null ? {} : { empty_repo: flag(emptyRepo) }),
      }))
      .where('id', '=', project.id).execute()
    if (defaultBranch !== null && protection !== null) {
      await trx.insertInto('protected_branches').values({ project_id: project.id, name: defaultBranch, ...protection, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing()).execute()
    }
  })
  if (newDefault !== null) await ctx.repositories.setHead(project.id, newDefault)
  await enqueueStatisticsRefresh(ctx, project.id)
  const updated = await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirst()
  if (updated !== undefined) {
    await ctx.pushListeners.notify({ project: updated, actor, updates, intoEmptyRepository: firstPush, receivedBytes: transfer.receivedBytes }, ctx)
  }
}
