// The status machine of pipelines and their jobs, as the original 11.5 runs it: a job waits as
// `created` until the stages before it have finished, then the status of those stages together
// (the composite status) and its `when` decide whether it becomes pending, manual, scheduled or
// skipped; a pipeline's status is the composite status of all its jobs. `processPipeline` does
// both in the caller's transaction, which holds the pipeline's row lock (transitions.ts), so jobs
// finishing together are processed one after the other and never leave a half-moved pipeline.
import type { Db } from '../../db/index.js'
import type { CiBuildRow, CiStatus, CiWhenColumn } from '../../db/schema.js'
import { readBuildOptions } from './build-options.js'

export const COMPLETED_STATUSES: readonly CiStatus[] = ['success', 'failed', 'canceled', 'skipped']
/** Jobs that can still be canceled (the original's cancelable statuses). */
export const CANCELABLE_STATUSES: readonly CiStatus[] = ['created', 'pending', 'running', 'scheduled']
/** Jobs a retry may replace. */
export const RETRYABLE_STATUSES: readonly CiStatus[] = ['success', 'failed', 'canceled']

type StatusOf = Pick<CiBuildRow, 'status' | 'allow_failure'>

/**
 * The original's composite status (HasStatus.status_sql) of some jobs: failed, canceled and manual
 * jobs that may fail are left out (a failure allowed still makes `success` of jobs all skipped);
 * null for no jobs.
 */
export function compositeStatus(jobs: readonly StatusOf[]): CiStatus | null {
  if (jobs.length === 0) return null
  const ignored = (job: StatusOf) => job.allow_failure === 1 && (job.status === 'failed' || job.status === 'canceled' || job.status === 'manual')
  const relevant = jobs.filter((job) => !ignored(job))
  const warnings = jobs.some((job) => job.allow_failure === 1 && (job.status === 'failed' || job.status === 'canceled'))
  const count = (status: CiStatus) => relevant.filter((job) => job.status === status).length
  const all = relevant.length
  const [created, success, skipped, canceled, pending, running] =
    (['created', 'success', 'skipped', 'canceled', 'pending', 'running'] as const).map(count) as [number, number, number, number, number, number]
  if (all === skipped) return warnings ? 'success' : 'skipped'
  if (all === success) return 'success'
  if (all === created) return 'created'
  if (all === success + skipped) return 'success'
  if (all === success + skipped + canceled) return 'canceled'
  if (all === created + skipped + pending) return 'pending'
  if (running + pending > 0) return 'running'
  if (count('manual') > 0) return 'manual'
  if (count('scheduled') > 0) return 'scheduled'
  if (created > 0) return 'running'
  return 'failed'
}

/** The statuses of earlier stages under which a job with `when` runs (the original's valid_statuses_for_when). */
function runsAfter(when: CiWhenColumn, prior: CiStatus): boolean {
  switch (when) {
    case 'on_success':
    case 'manual':
    case 'delayed': return prior === 'success' || prior === 'skipped'
    case 'on_failure': return prior === 'failed'
    case 'always': return prior === 'success' || prior === 'failed' || prior === 'skipped'
  }
}

/** What a created job becomes once the stages before it have ended with `prior`. */
function nextStatusOf(job: CiBuildRow, prior: CiStatus): CiStatus {
  if (!runsAfter(job.when, prior)) return 'skipped'
  if (job.when === 'delayed') return 'scheduled'
  if (job.when === 'manual') return 'manual'
  return 'pending'
}

/** Seconds some of the jobs ran, overlaps counted once (the original's Pipeline::Duration). */
function runningSeconds(jobs: readonly CiBuildRow[], now: number): number {
  const periods = jobs
    .filter((job) => job.started_at !== null && ['success', 'failed', 'running', 'canceled'].includes(job.status))
    .map((job) => [job.started_at!, job.finished_at ?? now] as const)
    .sort((a, b) => a[0] - b[0])
  let total = 0
  let end = -Infinity
  for (const [start, finish] of periods) {
    if (finish <= end) continue
    total += finish - Math.max(start, end)
    end = finish
  }
  return Math.round(total / 1000)
}

/** The average of the jobs' coverage as the original shows a pipeline's (`"12.50"`), or null. */
function averageCoverage(jobs: readonly CiBuildRow[]): string | null {
  const values = jobs.map((job) => job.coverage).filter((value): value is number => value !== null)
  return values.length === 0 ? null : (values.reduce((a, b) => a + b, 0) / values.length).toFixed(2)
}

export interface ProcessedPipeline {
  pipelineId: number
  projectId: number
  status: CiStatus
  /** Whether this processing moved the pipeline to `status` (hooks and emails follow such moves). */
  statusChanged: boolean
  /** Jobs that became scheduled, to be enqueued when due once the transaction commits. */
  scheduled: { id: number; scheduledAt: number }[]
  /**
   * Whether CI jobs became pending in this transaction (queued at `now`, by this processing or by
   * the move before it), so that runners waiting for a job are told once it commits.
   */
  queued: boolean
}

/**
 * Moves the pipeline's created jobs on, stage after stage, then records the pipeline's status and
 * times. Call it inside the transaction that locked the pipeline's row, after its own changes.
 */
export async function processPipeline(trx: Db, pipelineId: number, now: number): Promise<ProcessedPipeline> {
  const jobs = await trx.selectFrom('ci_builds').selectAll()
    .where('pipeline_id', '=', pipelineId).where('retried', '=', 0)
    .orderBy('stage_idx').orderBy('id').execute()
  const scheduled: ProcessedPipeline['scheduled'] = []
  const stageIndexes = [...new Set(jobs.filter((job) => job.status === 'created').map((job) => job.stage_idx))]
  for (const stageIndex of stageIndexes) {
    const prior = compositeStatus(jobs.filter((job) => job.stage_idx < stageIndex)) ?? 'success'
    if (!COMPLETED_STATUSES.includes(prior)) continue
    for (const job of jobs.filter((j) => j.stage_idx === stageIndex && j.status === 'created')) {
      const status = nextStatusOf(job, prior)
      const startIn = status === 'scheduled' ? readBuildOptions(job).start_in?.seconds ?? 0 : null
      const changes = {
        status,
        updated_at: now,
        ...(status === 'pending' ? { queued_at: now } : {}),
        ...(startIn === null ? {} : { scheduled_at: now + startIn * 1000 }),
      }
      await trx.updateTable('ci_builds').set(changes).where('id', '=', job.id).execute()
      Object.assign(job, changes)
      if (startIn !== null) scheduled.push({ id: job.id, scheduledAt: job.scheduled_at! })
    }
  }
  const status = compositeStatus(jobs) ?? 'skipped'
  const queued = jobs.some((job) => job.status === 'pending' && job.kind === 'ci' && job.queued_at === now)
  const pipeline = await trx.selectFrom('ci_pipelines').select(['project_id', 'status', 'started_at', 'finished_at']).where('id', '=', pipelineId).executeTakeFirstOrThrow()
  const completed = COMPLETED_STATUSES.includes(status)
  await trx.updateTable('ci_pipelines').set({
    status,
    started_at: pipeline.started_at ?? (status === 'running' ? now : null),
    finished_at: !completed ? null : pipeline.status === status ? pipeline.finished_at ?? now : now,
    duration: runningSeconds(jobs, now),
    coverage: averageCoverage(jobs),
    ...(pipeline.status === status ? {} : { updated_at: now }),
  }).where('id', '=', pipelineId).execute()
  return { pipelineId, projectId: pipeline.project_id, status, statusChanged: pipeline.status !== status, scheduled, queued }
}
