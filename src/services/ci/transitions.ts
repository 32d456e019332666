// Every move of a job or a pipeline, each one transaction that locks the pipeline's row first, then
// changes jobs, then processes the pipeline (status.ts): two runners finishing jobs of one stage at
// once, or a cancel racing a finish, are applied one after the other. The runner protocol calls
// startJobForRunner, touchRunningJob and finishJob; the API calls the rest; the stale jobs' sweep
// and a runner that cannot run a job fail it with dropJob. Once the transaction has committed,
// delayed jobs that became scheduled are enqueued (jobs.ts), runners waiting for a job are told
// when jobs became pending (pending-jobs-signal.ts), and the trace of each job that ended is
// archived (trace.ts). A job with an environment that succeeds deploys in its finishing
// transaction (deployments.ts).
import { sql } from 'kysely'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import { isPostgres } from '../../db/dialect.js'
import { lockRow, shareRow } from '../../db/locks.js'
import type { CiBuildRow, CiPipelineRow, CiStatus } from '../../db/schema.js'
import { readBuildOptions, retriedRowOf } from './build-options.js'
import { recordJobDeployment } from './deployments.js'
import { ARCHIVE_TRACE, ENQUEUE_DELAYED_JOB } from './jobs.js'
import { onPipelineProcessed } from '../merge-requests/merge-when-pipeline-succeeds.js'
import { afterJobStatus, afterPipelineStatus } from './status-notifications.js'
import { CANCELABLE_STATUSES, RETRYABLE_STATUSES, processPipeline, type ProcessedPipeline } from './status.js'

/**
 * Runs `change` under the pipeline's row lock, processes the pipeline, enqueues what became
 * scheduled; null when the pipeline was deleted meanwhile.
 */
async function transition<T>(ctx: AppContext, pipelineId: number, change: (trx: Db, now: number) => Promise<T>): Promise<T | null> {
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    await lockRow(trx, 'ci_pipelines', pipelineId)
    if (await trx.selectFrom('ci_pipelines').select('id').where('id', '=', pipelineId).executeTakeFirst() === undefined) return null
    const now = Date.now()
    const result = await change(trx, now)
    return { result, processed: await processPipeline(trx, pipelineId, now) }
  })
  if (outcome === null) return null
  await afterProcessing(ctx, outcome.processed)
  return outcome.result
}

/**
 * Once the transaction that processed a pipeline has committed: enqueues each job that became
 * scheduled for when it is due, wakes runners waiting for a job when jobs became pending, and
 * has merge requests waiting for a pipeline that succeeded merged.
 */
export async function afterProcessing(ctx: AppContext, processed: ProcessedPipeline): Promise<void> {
  if (processed.queued) ctx.pendingJobs.notify()
  for (const job of processed.scheduled) {
    await ctx.jobs.enqueue(ENQUEUE_DELAYED_JOB, { jobId: job.id }, { uniqueKey: String(job.id), runAt: job.scheduledAt })
  }
  await onPipelineProcessed(ctx, processed)
  await afterPipelineStatus(ctx, processed)
}

/** Enqueues the archive of the traces of jobs that ended (canceled or finished); after commit. */
async function enqueueTraceArchives(ctx: AppContext, jobIds: readonly number[]): Promise<void> {
  for (const jobId of jobIds) await ctx.jobs.enqueue(ARCHIVE_TRACE, { jobId }, { uniqueKey: String(jobId) })
}

function findJob(db: Db, jobId: number): Promise<CiBuildRow | undefined> {
  return db.selectFrom('ci_builds').selectAll().where('id', '=', jobId).executeTakeFirst()
}

/** The job as it is now, re-read under the lock. */
async function lockedJob(trx: Db, jobId: number): Promise<CiBuildRow> {
  return trx.selectFrom('ci_builds').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow()
}

/** A job's move from one of `from` to new values; the job as it is after, or null when it was not in `from`. */
async function moveJob(ctx: AppContext, jobId: number, from: readonly CiBuildRow['status'][], changes: (job: CiBuildRow, now: number) => Partial<CiBuildRow>): Promise<CiBuildRow | null> {
  const job = await findJob(ctx.db, jobId)
  if (job === undefined) return null
  return transition(ctx, job.pipeline_id, async (trx, now) => {
    const current = await lockedJob(trx, jobId)
    if (!from.includes(current.status) || current.retried === 1) return null
    await trx.updateTable('ci_builds').set({ ...changes(current, now), updated_at: now }).where('id', '=', jobId).execute()
    return lockedJob(trx, jobId)
  })
}

/**
 * A runner took the job: pending → running. Null when the job is not pending (canceled meanwhile).
 * Whatever chooses pending jobs for runners (the runner protocol's jobs/request) must choose rows of
 * kind `ci` only: a pending commit status (kind `external`, services/ci/commit-status.ts) waits for
 * the outside system that set it, never for a runner.
 */
export async function startJob(ctx: AppContext, jobId: number, runnerId: number | null = null): Promise<CiBuildRow | null> {
  const started = await moveJob(ctx, jobId, ['pending'], (_job, now) => ({ status: 'running', started_at: now, runner_id: runnerId }))
  if (started !== null) await afterJobStatus(ctx, [started])
  return started
}

export interface RunnerStart {
  /** The digest of the job token the runner is given with the job (job-token.ts). */
  tokenDigest: string
  /** Seconds the job may run: the project's build_timeout capped by the runner's maximum_timeout. */
  timeout: number
}

/** The take's compare-and-swap: the job as taken and its pipeline's status then, or null when it was not pending. */
async function takePendingJob(db: Db, job: Pick<CiBuildRow, 'id' | 'pipeline_id'>, runnerId: number, start: RunnerStart, now: number): Promise<{ job: CiBuildRow; pipelineStatus: CiStatus } | null> {
  if (isPostgres(db)) {
    // One statement, so one round trip: the pipeline's row held in share mode first, then the job's.
    const { rows } = await sql<CiBuildRow & { pipeline_status: CiStatus }>`
      with pipeline as (select id, status from ci_pipelines where id = ${job.pipeline_id} for share)
      update ci_builds set status = 'running', started_at = ${now}, runner_id = ${runnerId},
        token_digest = ${start.tokenDigest}, timeout = ${start.timeout}, updated_at = ${now}
      from pipeline
      where ci_builds.id = ${job.id} and ci_builds.pipeline_id = pipeline.id and ci_builds.status = 'pending' and ci_builds.retried = 0
      returning ci_builds.*, pipeline.status as pipeline_status`.execute(db)
    const row = rows[0]
    if (row === undefined) return null
    const { pipeline_status: pipelineStatus, ...taken } = row
    return { job: taken, pipelineStatus }
  }
  return db.transaction().execute(async (trx) => {
    await shareRow(trx, 'ci_pipelines', job.pipeline_id)
    const pipeline = await trx.selectFrom('ci_pipelines').select('status').where('id', '=', job.pipeline_id).executeTakeFirst()
    if (pipeline === undefined) return null
    const taken = await trx.updateTable('ci_builds')
      .set({ status: 'running', started_at: now, runner_id: runnerId, token_digest: start.tokenDigest, timeout: start.timeout, updated_at: now })
      .where('id', '=', job.id).where('status', '=', 'pending').where('retried', '=', 0)
      .returningAll().executeTakeFirst()
    return taken === undefined ? null : { job: taken, pipelineStatus: pipeline.status }
  })
}

/**
 * The runner protocol's take of a job: pending → running for `runnerId`, with its job token and
 * timeout. The compare-and-swap of jobs/request: null when another runner took the job first (or
 * it was canceled), and the runner tries its next candidate.
 *
 * A take moves no other job and leaves a running pipeline running, so only a pipeline's first take
 * (pending → running, its started_at) needs the pipeline processed, which it is right after. Takes
 * hold the pipeline's row in share mode: runners taking jobs of one big pipeline at once do not wait
 * for each other, only for a transition processing the pipeline (which holds the row exclusively
 * and so sees each take wholly before or after it).
 */
export async function startJobForRunner(ctx: AppContext, job: Pick<CiBuildRow, 'id' | 'pipeline_id'>, runnerId: number, start: RunnerStart): Promise<CiBuildRow | null> {
  const taken = await takePendingJob(ctx.db, job, runnerId, start, Date.now())
  if (taken === null) return null
  if (taken.pipelineStatus !== 'running') await transition(ctx, job.pipeline_id, async () => undefined)
  await afterJobStatus(ctx, [taken.job])
  return taken.job
}

/** 15 minutes, as the original's needs_touch?: a job's updated_at is renewed no more often than that by a runner's PUT state=running. */
const TOUCH_INTERVAL_MS = 15 * 60_000

/**
 * A runner says the job still runs (PUT state=running): its updated_at is renewed when older than
 * the touch interval, so that the stale jobs' sweep leaves it alone. Under the lock, so a sweep
 * deciding the job is stale and this touch are one after the other.
 */
export async function touchRunningJob(ctx: AppContext, job: CiBuildRow): Promise<void> {
  if (Date.now() - job.updated_at < TOUCH_INTERVAL_MS) return
  await moveJob(ctx, job.id, ['running'], () => ({}))
}

/**
 * The runner's outcome of a pending or running job; a failure the job's `retry` covers is retried
 * at once, as the original does. Null when the job was no longer pending or running.
 */
export function finishJob(ctx: AppContext, jobId: number, outcome: 'success' | 'failed', failureReason = 'unknown_failure'): Promise<CiBuildRow | null> {
  return endJob(ctx, jobId, outcome, failureReason, (job) => job.status === 'pending' || job.status === 'running')
}

/**
 * Fails a job with `failureReason` when, under the lock, `stillDue` still holds of it (a stale job
 * not taken or updated meanwhile, a job a runner cannot run); retried as finishJob retries. Null
 * when it no longer held.
 */
export function dropJob(ctx: AppContext, jobId: number, failureReason: string, stillDue: (job: CiBuildRow, now: number) => boolean): Promise<CiBuildRow | null> {
  return endJob(ctx, jobId, 'failed', failureReason, stillDue)
}

async function endJob(
  ctx: AppContext, jobId: number, outcome: 'success' | 'failed', failureReason: string, endable: (job: CiBuildRow, now: number) => boolean,
): Promise<CiBuildRow | null> {
  const job = await findJob(ctx.db, jobId)
  if (job === undefined) return null
  const finished = await transition(ctx, job.pipeline_id, async (trx, now) => {
    const current = await lockedJob(trx, jobId)
    if (!endable(current, now) || current.retried === 1) return null
    await trx.updateTable('ci_builds').set({
      status: outcome, finished_at: now, updated_at: now, failure_reason: outcome === 'failed' ? failureReason : null,
    }).where('id', '=', jobId).execute()
    const finished = await lockedJob(trx, jobId)
    if (outcome === 'success') await recordJobDeployment(trx, finished, now)
    if (outcome === 'failed' && await retriesLeft(trx, finished, failureReason)) await replaceJob(trx, finished, finished.user_id, now, 'pending')
    return finished
  })
  if (finished !== null) {
    await enqueueTraceArchives(ctx, [jobId])
    await afterJobStatus(ctx, [finished])
  }
  return finished
}

/** Whether the job's `retry` covers this failure and it has retries left. */
async function retriesLeft(trx: Db, job: CiBuildRow, failureReason: string): Promise<boolean> {
  const retry = readBuildOptions(job).retry
  if (retry === null || retry.max === 0) return false
  if (!retry.when.includes('always') && !retry.when.includes(failureReason)) return false
  const { count } = await trx.selectFrom('ci_builds').select((eb) => eb.fn.countAll<number>().as('count'))
    .where('pipeline_id', '=', job.pipeline_id).where('name', '=', job.name).where('retried', '=', 1)
    .executeTakeFirstOrThrow()
  return Number(count) < retry.max
}

/**
 * A new row for the job (the old one kept, marked retried), `pending` for a retry of one job or
 * `created` for a pipeline's retry, which processes it; skipped jobs of later stages may run again.
 */
async function replaceJob(trx: Db, job: CiBuildRow, userId: number | null, now: number, status: 'pending' | 'created'): Promise<CiBuildRow> {
  await trx.updateTable('ci_builds').set({ retried: 1, updated_at: now }).where('id', '=', job.id).execute()
  const row = retriedRowOf(job, userId, now)
  const created = await trx.insertInto('ci_builds')
    .values({ ...row, status, ...(status === 'pending' ? { queued_at: now } : {}) })
    .returningAll().executeTakeFirstOrThrow()
  await trx.updateTable('ci_builds').set({ status: 'created', updated_at: now })
    .where('pipeline_id', '=', job.pipeline_id).where('retried', '=', 0).where('status', '=', 'skipped').where('stage_idx', '>', job.stage_idx)
    .execute()
  return created
}

/** Cancels a created, pending, running or scheduled job; the job as it is (unchanged when it could not be canceled). */
export async function cancelJob(ctx: AppContext, jobId: number): Promise<CiBuildRow | null> {
  const canceled = await moveJob(ctx, jobId, CANCELABLE_STATUSES, (_job, now) => ({ status: 'canceled', finished_at: now }))
  if (canceled !== null) {
    await enqueueTraceArchives(ctx, [jobId])
    await afterJobStatus(ctx, [canceled])
  }
  return canceled ?? (await findJob(ctx.db, jobId)) ?? null
}

export type RetryOutcome = { retried: CiBuildRow } | { refused: 'not_retryable' }

/** Retries a finished job (success, failed, canceled) as a new pending job by `userId`. */
export async function retryJob(ctx: AppContext, jobId: number, userId: number): Promise<RetryOutcome> {
  const job = await findJob(ctx.db, jobId)
  if (job === undefined) return { refused: 'not_retryable' }
  const outcome = await transition(ctx, job.pipeline_id, async (trx, now): Promise<RetryOutcome> => {
    const current = await lockedJob(trx, jobId)
    if (!RETRYABLE_STATUSES.includes(current.status) || current.retried === 1) return { refused: 'not_retryable' }
    return { retried: await replaceJob(trx, current, userId, now, 'pending') }
  })
  return outcome ?? { refused: 'not_retryable' }
}

export type PlayOutcome = { played: CiBuildRow } | { refused: 'unplayable' }

/**
 * Plays a manual or delayed job: one waiting (manual, scheduled) becomes pending by `userId`; one
 * that has finished runs again as a retry. Other jobs are not playable.
 */
export async function playJob(ctx: AppContext, jobId: number, userId: number): Promise<PlayOutcome> {
  const job = await findJob(ctx.db, jobId)
  if (job === undefined || (job.when !== 'manual' && job.when !== 'delayed')) return { refused: 'unplayable' }
  const outcome = await transition(ctx, job.pipeline_id, async (trx, now): Promise<PlayOutcome> => {
    const current = await lockedJob(trx, jobId)
    if (current.retried === 1) return { refused: 'unplayable' }
    if (current.status === 'manual' || current.status === 'scheduled') {
      await trx.updateTable('ci_builds').set({ status: 'pending', queued_at: now, user_id: userId, updated_at: now }).where('id', '=', jobId).execute()
      return { played: await lockedJob(trx, jobId) }
    }
    if (RETRYABLE_STATUSES.includes(current.status)) return { played: await replaceJob(trx, current, userId, now, 'pending') }
    return { refused: 'unplayable' }
  })
  return outcome ?? { refused: 'unplayable' }
}

/** A delayed job whose time has come: scheduled → pending (nothing when it was played or canceled meanwhile). */
export function enqueueDelayedJob(ctx: AppContext, jobId: number): Promise<CiBuildRow | null> {
  return moveJob(ctx, jobId, ['scheduled'], (_job, now) => ({ status: 'pending', queued_at: now }))
}

/** Retries the pipeline's failed and canceled jobs, and lets its skipped jobs run again. */
export async function retryPipeline(ctx: AppContext, pipeline: CiPipelineRow, userId: number): Promise<void> {
  await transition(ctx, pipeline.id, async (trx, now) => {
    const jobs = await trx.selectFrom('ci_builds').selectAll()
      .where('pipeline_id', '=', pipeline.id).where('retried', '=', 0).where('status', 'in', ['failed', 'canceled'])
      // External commit statuses are set by their systems, not retried (the original retries builds only).
      .where('kind', '=', 'ci')
      .orderBy('id').execute()
    for (const job of jobs) await replaceJob(trx, job, userId, now, 'created')
    await trx.updateTable('ci_builds').set({ status: 'created', updated_at: now })
      .where('pipeline_id', '=', pipeline.id).where('retried', '=', 0).where('status', '=', 'skipped')
      .execute()
  })
}

/** Cancels every job of the pipeline that can still be canceled. */
export async function cancelPipeline(ctx: AppContext, pipeline: CiPipelineRow): Promise<void> {
  const canceled = await transition(ctx, pipeline.id, async (trx, now) => {
    const rows = await trx.updateTable('ci_builds').set({ status: 'canceled', finished_at: now, updated_at: now })
      .where('pipeline_id', '=', pipeline.id).where('retried', '=', 0).where('status', 'in', CANCELABLE_STATUSES)
      .returning(['id', 'project_id', 'started_at']).execute()
    return rows
  })
  // Only jobs that ran have a trace to archive.
  await enqueueTraceArchives(ctx, (canceled ?? []).filter((row) => row.started_at !== null).map((row) => row.id))
  await afterJobStatus(ctx, canceled ?? [])
}

/** Records the coverage found in an ended job's trace; the pipeline's average follows. */
export async function setJobCoverage(ctx: AppContext, jobId: number, coverage: number): Promise<void> {
  const job = await findJob(ctx.db, jobId)
  if (job === undefined) return
  await transition(ctx, job.pipeline_id, async (trx, now) => {
    await trx.updateTable('ci_builds').set({ coverage, updated_at: now }).where('id', '=', jobId).execute()
  })
}
