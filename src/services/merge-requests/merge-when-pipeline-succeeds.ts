// CI in the merge flow, as the original 11.5's MergeWhenPipelineSucceedsService and MergeRequest
// model: `only_allow_merge_if_pipeline_succeeds` (mergeable_ci_state?) and merge when pipeline
// succeeds, against the head pipeline (finders/merge-request-pipelines.ts). Enabling it keeps who
// set it and their merge options; when a head pipeline succeeds (transitions.ts calls
// onPipelineProcessed after commit) a job merges as that user with those options through
// mergeMergeRequest; a failed or canceled pipeline leaves the flag set and merges nothing; a push
// to the source branch turns it off silently (the original's
// RefreshService#reset_merge_when_pipeline_succeeds writes no note).
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { CiPipelineRow, CiStatus, MergeRequestRow } from '../../db/schema.js'
import { ApiError, apiError } from '../../common/errors.js'
import type { ProcessedPipeline } from '../ci/status.js'
import { headPipelineOf } from '../../finders/merge-request-pipelines.js'
import { addSystemNote } from '../notes/system-notes.js'
import { projectSubjectFor } from './create-merge-request.js'
import { AUTO_MERGE } from './jobs.js'
import { mergeMergeRequest, type MergeOptions } from './merge-merge-request.js'

/** The original's HasStatus ACTIVE_STATUSES in 11.5: a pipeline still deciding. */
const ACTIVE_STATUSES: readonly CiStatus[] = ['pending', 'running']

/** What merge_params keeps (the original's keys). */
interface MergeParams {
  commit_message?: string
  should_remove_source_branch?: boolean
  sha?: string
}

/** The original's mergeable_ci_state?: with the setting on, a head pipeline that exists must have succeeded (or been skipped). */
export function mergeableCiState(onlyAllowIfPipelineSucceeds: boolean, head: CiPipelineRow | null): boolean {
  return !onlyAllowIfPipelineSucceeds || head === null || head.status === 'success' || head.status === 'skipped'
}

export function isActivePipeline(pipeline: CiPipelineRow | null): pipeline is CiPipelineRow {
  return pipeline !== null && ACTIVE_STATUSES.includes(pipeline.status)
}

/**
 * Sets merge when pipeline succeeds, as the original's execute: the options given are merged into
 * those kept; who set it and the system note only when it was off.
 */
export async function enableMergeWhenPipelineSucceeds(
  ctx: AppContext, actor: Actor, mr: MergeRequestRow, head: CiPipelineRow, options: MergeOptions,
): Promise<MergeRequestRow> {
  const params: MergeParams = {
    ...readMergeParams(mr),
    ...(options.mergeCommitMessage === undefined ? {} : { commit_message: options.mergeCommitMessage }),
    ...(options.shouldRemoveSourceBranch === undefined ? {} : { should_remove_source_branch: options.shouldRemoveSourceBranch }),
    ...(options.sha === undefined ? {} : { sha: options.sha }),
  }
  const now = Date.now()
  return ctx.db.transaction().execute(async (trx) => {
    const enabling = mr.merge_when_pipeline_succeeds === 0
    const row = await trx.updateTable('merge_requests')
      .set({
        merge_params: JSON.stringify(params),
        ...(options.squash === true ? { squash: 1 } : {}),
        ...(enabling ? { merge_when_pipeline_succeeds: 1, merge_user_id: actor.user.id, updated_at: now } : {}),
      })
      .where('id', '=', mr.id).where('state', '=', 'opened').returningAll().executeTakeFirst()
    // Merged or closed meanwhile.
    if (row === undefined) throw apiError(405, '405 Method Not Allowed')
    if (enabling) {
      await addSystemNote(trx, {
        projectId: mr.target_project_id, noteable: { type: 'MergeRequest', id: mr.id }, authorId: actor.user.id, createdAt: now,
        body: `enabled an automatic merge when the pipeline for ${head.sha} succeeds`,
      })
    }
    return row
  })
}

/** What the original's cancel answers: success, or its error hash (the API shows either with 201). */
export type CancelOutcome = { status: 'success' } | { status: 'error'; message: string; http_status: 406 }

/** Cancels merge when pipeline succeeds, with the original's "canceled the automatic merge" note. */
export async function cancelMergeWhenPipelineSucceeds(ctx: AppContext, actor: Actor, mr: MergeRequestRow): Promise<CancelOutcome> {
  const now = Date.now()
  const canceled = await ctx.db.transaction().execute(async (trx) => {
    const reset = await resetIn(trx, [mr.id], now)
    if (reset === 0) return false
    await addSystemNote(trx, {
      projectId: mr.target_project_id, noteable: { type: 'MergeRequest', id: mr.id }, authorId: actor.user.id, createdAt: now,
      body: 'canceled the automatic merge',
    })
    return true
  })
  return canceled ? { status: 'success' } : { status: 'error', message: "Can't cancel the automatic merge", http_status: 406 }
}

/** A push moved their source branch: the open merge requests waiting to merge stop waiting (no note, as the original). */
export async function resetMergeWhenPipelineSucceeds(db: Db, mergeRequestIds: readonly number[]): Promise<void> {
  if (mergeRequestIds.length > 0) await resetIn(db, mergeRequestIds, Date.now())
}

/** Turns the flag off on those of the open merge requests that have it; the number turned off. */
async function resetIn(db: Db, mergeRequestIds: readonly number[], now: number): Promise<number> {
  // merge_params holds only the options of the automatic merge, which the original drops with it.
  const result = await db.updateTable('merge_requests')
    .set({ merge_when_pipeline_succeeds: 0, merge_user_id: null, merge_params: null, updated_at: now })
    .where('id', 'in', mergeRequestIds).where('state', '=', 'opened').where('merge_when_pipeline_succeeds', '=', 1)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

function readMergeParams(mr: MergeRequestRow): MergeParams {
  if (mr.merge_params === null) return {}
  return JSON.parse(mr.merge_params) as MergeParams
}

/**
 * After a pipeline's processing committed: when it just succeeded, each open merge request of its
 * branch waiting for it (it is their head pipeline) gets a merge job; the merge runs git, so it
 * runs there and not in the transition.
 */
export async function onPipelineProcessed(ctx: AppContext, processed: ProcessedPipeline): Promise<void> {
  if (processed.status !== 'success' || !processed.statusChanged) return
  const pipeline = await ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', processed.pipelineId).executeTakeFirst()
  if (pipeline === undefined || pipeline.tag === 1) return
  const waiting = await ctx.db.selectFrom('merge_requests').select('id')
    .where('source_project_id', '=', pipeline.project_id).where('source_branch', '=', pipeline.ref)
    .where('state', '=', 'opened').where('merge_when_pipeline_succeeds', '=', 1).where('sha', '=', pipeline.sha)
    .execute()
  for (const { id } of waiting) {
    await ctx.jobs.enqueue(AUTO_MERGE, { mergeRequestId: id, pipelineId: pipeline.id }, { uniqueKey: `${id}:${pipeline.id}` })
  }
}

export interface AutoMergePayload {
  mergeRequestId: number
  pipelineId: number
}

/**
 * The merge job: merges as the user who set the automatic merge, with their options, when the
 * pipeline is still the merge request's successful head pipeline and the flag still set. A merge
 * that is refused (conflicts, rights lost) leaves the merge request open with the flag set, as the
 * original's MergeWorker does; nothing is retried.
 */
export async function runAutoMerge(ctx: AppContext, { mergeRequestId, pipelineId }: AutoMergePayload): Promise<void> {
  const mr = await ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequestId).executeTakeFirst()
  if (mr === undefined || mr.state !== 'opened' || mr.merge_when_pipeline_succeeds !== 1 || mr.merge_user_id === null) return
  const head = await headPipelineOf(ctx.db, mr)
  if (head === null || head.id !== pipelineId || head.status !== 'success') return
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', mr.merge_user_id).executeTakeFirst()
  if (user === undefined || user.state !== 'active') return
  const actor: Actor = { user, token: null, sudoFrom: null }
  const target = await projectSubjectFor(ctx.db, actor, mr.target_project_id)
  if (target === null) return
  const params = readMergeParams(mr)
  try {
    await mergeMergeRequest(ctx, actor, target, mr, {
      ...(params.commit_message === undefined ? {} : { mergeCommitMessage: params.commit_message }),
      ...(params.should_remove_source_branch === undefined ? {} : { shouldRemoveSourceBranch: params.should_remove_source_branch }),
      ...(params.sha === undefined ? {} : { sha: params.sha }),
    })
  } catch (err) {
    // The API's refusals (405, 406, 409, 401) are final for this pipeline; anything else is retried.
    if (!(err instanceof ApiError)) throw err
    ctx.log.info({ mergeRequestId, status: err.statusCode }, 'automatic merge refused')
  }
}
