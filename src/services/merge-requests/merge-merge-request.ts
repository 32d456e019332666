// Accepts a merge request (PUT /projects/:id/merge_requests/:merge_request_iid/merge), as the
// original's API and MergeService answer it: 401 for a caller who may neither push nor merge into
// the target branch, 405 when the merge request is not in a mergeable state (not open, work in
// progress, a branch missing, no commits, unresolved discussions the project requires resolved),
// 406 "Branch cannot be merged" (conflicts, or no fast-forward where the merge method needs one),
// 409 when `sha` is not the head it shows. With `only_allow_merge_if_pipeline_succeeds`, a head
// pipeline that has not succeeded is 405; with merge_when_pipeline_succeeds and a running head
// pipeline the same checks pass (but the pipeline's) and the merge waits for it instead. The merge is built with git plumbing in the target
// repository, as the target project's merge_method says, and the target branch moves through the
// push path as the merging user. While it runs the merge request is `locked`, so a second merge of
// it, and the push listener's "merged by push", leave it alone.
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { MergeRequestRow, ProjectRow, ProtectedBranchRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { ApiError, apiError, conflict, unauthorized } from '../../common/errors.js'
import { isWorkInProgress } from '../../entities/merge-request.js'
import { findBranchTip } from '../../git/branches.js'
import { headPipelineOf } from '../../finders/merge-request-pipelines.js'
import { protectedBranchesOf } from '../../finders/protected-refs.js'
import { commitTree, countCommitsBetween, mergeTree, type Signer } from '../../git/merge.js'
import { NULL_OID, type GitRepository } from '../../git/repository.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'
import { canMergeToBranch, canPushToBranch, matchingRules } from '../../policies/protected-refs.js'
import { branchMovedMessage } from '../commits/commit-changes.js'
import { gitIdentityOf } from '../commits/identity.js'
import type { MergeRequestActivity } from '../activity/activity.js'
import { recordEvent } from '../events/record-event.js'
import { hasUnresolvedDiscussions } from '../notes/resolve-notes.js'
import { addSystemNote } from '../notes/system-notes.js'
import { afterPush } from '../push/after-push.js'
import { type RefUpdate } from '../push/check-push.js'
import { BRANCH_PREFIX } from '../../git/ref-names.js'
import { moveRef, type RefMoveOutcome } from '../push/move-refs.js'
import { projectSubjectFor } from './create-merge-request.js'
import { refreshMergeRequest } from './refresh-merge-request.js'
import { enableMergeWhenPipelineSucceeds, isActivePipeline, mergeableCiState } from './merge-when-pipeline-succeeds.js'

export interface MergeOptions {
  /** The merge commit's message instead of the original's default. */
  mergeCommitMessage?: string
  /** true squashes the source commits into one first (and records the wish on the merge request). */
  squash?: boolean
  shouldRemoveSourceBranch?: boolean
  /** The source head the caller saw; 409 when the merge request shows another. */
  sha?: string
  /** Merge when the head pipeline succeeds instead, when it is still running (merge-when-pipeline-succeeds.ts). */
  whenPipelineSucceeds?: boolean
}

const notAllowed = () => apiError(405, '405 Method Not Allowed')
const cannotBeMerged = () => apiError(406, 'Branch cannot be merged')

type BranchRules = readonly ProtectedBranchRow[]

/** Rounds of building the merge when the target branch keeps moving under it. */
const ATTEMPTS = 3

/** Pushing or merging into the branch, as the original's can_be_merged_by? (UserAccess#can_update_branch?). */
function mayUpdateBranch(rules: BranchRules, subject: ProjectSubject, actor: Actor, branch: string): boolean {
  if (subject.project.archived) return false
  const admin = actor.user.admin === 1
  const level = subject.access.level
  return canPushToBranch(rules, branch, level, admin) || canMergeToBranch(rules, branch, level, admin)
}

/** "Merge branch 'feature' into 'master'\n\n<title>\n\nSee merge request group/project!1", as the original writes it. */
function defaultMergeMessage(mr: MergeRequestRow, subject: ProjectSubject): string {
  const reference = `${subject.namespace.full_path}/${subject.project.path}!${mr.iid}`
  return `Merge branch '${mr.source_branch}' into '${mr.target_branch}'\n\n${mr.title}\n\nSee merge request ${reference}`
}

interface MergePlan {
  method: ProjectRow['merge_method']
  sourceHead: string
  /** Squash first (only when the merge request has two commits or more, as the original). */
  squash: boolean
  squashMessage: string
  message: string
  /** The squash commit's author: the merge request's author. */
  mrAuthor: Signer
  merger: Signer
}

interface BuiltMerge {
  /** Where the target branch goes. */
  head: string
  /** null for a fast-forward. */
  mergeCommit: string | null
}

/** The commit the target branch moves to from `targetHead`; null when it cannot be merged. */
async function buildMerge(repo: GitRepository, targetHead: string, plan: MergePlan): Promise<BuiltMerge | null> {
  // The merge method merges either way: merge-tree alone answers it, without asking about a fast-forward.
  const fastForward = plan.method !== 'merge' && await repo.isAncestor(targetHead, plan.sourceHead)
  if (plan.method !== 'merge' && !fastForward) return null
  let head = plan.sourceHead
  let tree: string | null = fastForward ? (await repo.readCommit(head))?.tree ?? null : null
  if (plan.squash) {
    tree ??= await mergeTree(repo, targetHead, head)
    if (tree === null) return null
    head = await commitTree(repo, { tree, parents: [targetHead], message: plan.squashMessage, author: plan.mrAuthor, committer: plan.merger })
  }
  if (plan.method === 'ff') return { head, mergeCommit: null }
  tree ??= await mergeTree(repo, targetHead, head)
  if (tree === null) return null
  const mergeCommit = await commitTree(repo, { tree, parents: [targetHead, head], message: plan.message, author: plan.merger, committer: plan.merger })
  return { head: mergeCommit, mergeCommit }
}

/**
 * Moves the target branch as the merging user: through the push path (moveRef) when the push rules
 * let them push to it; otherwise their merge right on the protected branch stands in for the push
 * level, as the original's push checks accept a push that completes a merge request from whoever
 * may merge, and the ref moves by compare-and-swap with afterPush as moveRef does.
 */
async function moveTargetBranch(
  ctx: AppContext, subject: ProjectSubject, actor: Actor, rules: BranchRules, branch: string, update: RefUpdate,
): Promise<RefMoveOutcome> {
  if (canPushToBranch(rules, branch, subject.access.level, actor.user.admin === 1)) return moveRef(ctx, subject, actor, update)
  if (!await ctx.repositories.open(subject.project.id).compareAndSwapRef(update.ref, update.newId, update.oldId)) return { status: 'stale' }
  await afterPush(ctx, subject.project, actor, [update])
  return { status: 'moved' }
}

/**
 * Deletes the merged source branch as the merging user, when the original's
 * can_remove_source_branch? allows it (not protected, not the default branch, push access, still at
 * the merged head); otherwise it stays, silently.
 */
async function removeSourceBranch(ctx: AppContext, actor: Actor, mr: MergeRequestRow): Promise<void> {
  if (mr.source_project_id === null || mr.sha === null) return
  const subject = await projectSubjectFor(ctx.db, actor, mr.source_project_id)
  if (subject === null || !canOnProject(actor, subject, 'push_code') || subject.project.default_branch === mr.source_branch) return
  if (matchingRules(await protectedBranchesOf(ctx.db, subject.project.id), mr.source_branch).length > 0) return
  await moveRef(ctx, subject, actor, { ref: `${BRANCH_PREFIX}${mr.source_branch}`, oldId: mr.sha, newId: NULL_OID })
}

/** The original's can_be_merged_by?: whether the user may push or merge into the target branch. */
export async function canBeMergedBy(ctx: AppContext, actor: Actor, target: ProjectSubject, mr: MergeRequestRow): Promise<boolean> {
  return mayUpdateBranch(await protectedBranchesOf(ctx.db, target.project.id), target, actor, mr.target_branch)
}

/** Merges; the merged merge request's row, or an ApiError with the original's status and message. */
export async function mergeMergeRequest(
  ctx: AppContext, actor: Actor, target: ProjectSubject, mergeRequest: MergeRequestRow, options: MergeOptions,
): Promise<MergeRequestRow> {
  const { db } = ctx
  const rules = await protectedBranchesOf(db, target.project.id)
  if (!mayUpdateBranch(rules, target, actor, mergeRequest.target_branch)) throw unauthorized()

  await refreshMergeRequest(ctx, mergeRequest.id)
  const mr = await db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequest.id).executeTakeFirstOrThrow()
  const repo = ctx.repositories.open(target.project.id)
  const [sourceTip, targetTip] = await Promise.all([
    mr.source_project_id === null ? null : findBranchTip(ctx.repositories.open(mr.source_project_id), mr.source_branch),
    findBranchTip(repo, mr.target_branch),
  ])
  if (mr.state !== 'opened' || isWorkInProgress(mr.title) || sourceTip === null || targetTip === null || mr.sha === null) throw notAllowed()
  const sourceHead = mr.sha
  const commitCount = await countCommitsBetween(repo, [targetTip.commitId], sourceHead)
  if (commitCount === 0) throw notAllowed()
  const head = await headPipelineOf(db, mr)
  const waitForPipeline = options.whenPipelineSucceeds === true && isActivePipeline(head)
  if (!waitForPipeline && !mergeableCiState(target.project.only_allow_merge_if_pipeline_succeeds === 1, head)) throw notAllowed()
  if (target.project.only_allow_merge_if_all_discussions_are_resolved === 1 && await hasUnresolvedDiscussions(db, mr.id)) throw notAllowed()
  if (mr.merge_status === 'cannot_be_merged') throw cannotBeMerged()
  if (target.project.merge_method !== 'merge' && !await repo.isAncestor(targetTip.commitId, sourceHead)) throw cannotBeMerged()
  if (options.sha !== undefined && options.sha !== sourceHead) throw conflict(`SHA does not match HEAD of source branch: ${sourceHead}`)
  if (waitForPipeline) return enableMergeWhenPipelineSucceeds(ctx, actor, mr, head, options)

  const locked = await db.updateTable('merge_requests')
    .set({
      state: 'locked',
      merge_started_at: Date.now(),
      ...(options.squash === true ? { squash: 1 } : {}),
      ...(options.shouldRemoveSourceBranch === undefined ? {} : { should_remove_source_branch: flag(options.shouldRemoveSourceBranch) }),
    })
    .where('id', '=', mr.id).where('state', '=', 'opened')
    .executeTakeFirst()
  if (locked.numUpdatedRows === 0n) throw notAllowed()

  let merged: BuiltMerge
  try {
    const author = await db.selectFrom('users').select(['name', 'email']).where('id', '=', mr.author_id).executeTakeFirstOrThrow()
    const plan: MergePlan = {
      method: target.project.merge_method,
      sourceHead,
      squash: (options.squash === true || mr.squash === 1) && commitCount >= 2,
      squashMessage: mr.title,
      message: options.mergeCommitMessage ?? defaultMergeMessage(mr, target),
      mrAuthor: gitIdentityOf(author),
      merger: gitIdentityOf(actor.user),
    }
    merged = await mergeIntoTarget(ctx, actor, target, rules, mr, plan)
  } catch (err) {
    await db.updateTable('merge_requests').set({ state: 'opened', ...NOT_MERGING })
      .where('id', '=', mr.id).where('state', '=', 'locked').execute()
    throw err
  }

  const now = Date.now()
  const done = await db.transaction().execute(async (trx) => {
    const row = await trx.updateTable('merge_requests')
      .set({ state: 'merged', merged_by_id: actor.user.id, merged_at: now, merge_commit_sha: merged.mergeCommit, updated_at: now, ...NOT_MERGING })
      .where('id', '=', mr.id).where('state', '=', 'locked')
      .returningAll().executeTakeFirstOrThrow()
    await recordEvent(trx, {
      action: 'merged', authorId: actor.user.id, projectId: target.project.id,
      target: { type: 'MergeRequest', id: mr.id, iid: mr.iid, title: mr.title }, createdAt: now,
    })
    await addSystemNote(trx, { projectId: target.project.id, noteable: { type: 'MergeRequest', id: mr.id }, authorId: actor.user.id, body: 'merged', createdAt: now })
    return row
  })
  await ctx.activity.publish(mergedActivity(done, actor.user.id), ctx)
  if (options.shouldRemoveSourceBranch === true || done.force_remove_source_branch === 1) await removeSourceBranch(ctx, actor, done)
  return done
}

/** A merge request that no merge is working on: what a merge clears when it ends, either way. */
export const NOT_MERGING = { merge_started_at: null, in_progress_merge_commit_sha: null } as const

/**
 * Builds the merge on the target's current head and moves the branch, again if it moved meanwhile.
 * The commit the branch is about to move to is written down first, so that if this process dies
 * after moving the branch, the recovery job (recover-stuck-merges.ts) knows the merge landed.
 */
async function mergeIntoTarget(
  ctx: AppContext, actor: Actor, target: ProjectSubject, rules: BranchRules, mr: MergeRequestRow, plan: MergePlan,
): Promise<BuiltMerge> {
  const repo = ctx.repositories.open(target.project.id)
  const branch = mr.target_branch
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const targetTip = await findBranchTip(repo, branch)
    if (targetTip === null) throw notAllowed()
    const built = await buildMerge(repo, targetTip.commitId, plan)
    if (built === null) throw cannotBeMerged()
    await ctx.db.updateTable('merge_requests').set({ in_progress_merge_commit_sha: built.head }).where('id', '=', mr.id).execute()
    const outcome = await moveTargetBranch(ctx, target, actor, rules, branch, { ref: `${BRANCH_PREFIX}${branch}`, oldId: targetTip.commitId, newId: built.head })
    if (outcome.status === 'moved') return built
    if (outcome.status === 'refused') throw unauthorized()
  }
  throw new ApiError(409, { message: branchMovedMessage(branch) })
}

/** The `merge` activity of a merge request that just became merged (by the API or by a push). */
export function mergedActivity(merged: MergeRequestRow, userId: number): MergeRequestActivity {
  return {
    kind: 'merge_request', action: 'merge', projectId: merged.target_project_id, mergeRequestId: merged.id, userId,
    changes: { state: { previous: 'opened', current: 'merged' } },
  }
}
