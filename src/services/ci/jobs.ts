// The job kinds of CI: a pipeline per pushed ref (pipeline-push-listener.ts), each delayed CI
// job moved to pending when its `start_in` has passed (enqueued for that time by transitions.ts),
// the trace of each job that ended archived into blob storage (trace.ts; enqueued by
// transitions.ts, and by a sweep for those a lost job left in chunks), expired artifacts deleted
// (artifacts.ts), the sweep of stale jobs (stale-jobs.ts), and each minute the pipelines of due
// pipeline schedules (pipeline-schedules.ts).
import { defineJobKind } from '../../jobs/kind.js'
import { expireArtifacts } from './artifacts.js'
import { DUE_BATCH, runDueSchedules } from './pipeline-schedules.js'
import { createPushPipeline, type PushPipelinePayload } from './pipeline-push-listener.js'
import { archiveTrace, unarchivedTraceJobIds } from './trace.js'
import { dropStaleJobs } from './stale-jobs.js'
import { enqueueDelayedJob } from './transitions.js'

/** How long after its end a job's trace counts as missed by its archive job. */
const ARCHIVE_GRACE_MS = 10 * 60_000
const SWEEP_BATCH = 500
const EXPIRE_BATCH = 100
/** Batches one expiry run deletes at most; the next run (an hour later) goes on. */
const EXPIRE_BATCHES_PER_RUN = 100

export const CREATE_PIPELINE = defineJobKind<PushPipelinePayload>({
  name: 'ci.create_pipeline',
  attempts: 3,
  // Reading the CI file and its includes, and a diff for `only: changes`.
  timeLimitMs: 5 * 60_000,
  concurrency: 4,
  retryDelayMs: 2_000,
  run: (ctx, payload) => createPushPipeline(ctx, payload),
})

export const ENQUEUE_DELAYED_JOB = defineJobKind<{ jobId: number }>({
  name: 'ci.enqueue_delayed_job',
  attempts: 5,
  timeLimitMs: 60_000,
  concurrency: 2,
  async run(ctx, { jobId }) {
    await enqueueDelayedJob(ctx, jobId)
  },
})

export const ARCHIVE_TRACE = defineJobKind<{ jobId: number }>({
  name: 'ci.archive_trace',
  attempts: 5,
  // Reading a trace of many megabytes twice (coverage, then the archive) and writing it once.
  timeLimitMs: 10 * 60_000,
  concurrency: 2,
  async run(ctx, { jobId }) {
    await archiveTrace(ctx, jobId)
  },
})

export const ARCHIVE_MISSED_TRACES = defineJobKind<null>({
  name: 'ci.archive_missed_traces',
  attempts: 1,
  timeLimitMs: 60_000,
  concurrency: 1,
  cron: '*/15 * * * *',
  async run(ctx) {
    for (const jobId of await unarchivedTraceJobIds(ctx.db, Date.now() - ARCHIVE_GRACE_MS, SWEEP_BATCH)) {
      await ctx.jobs.enqueue(ARCHIVE_TRACE, { jobId }, { uniqueKey: String(jobId) })
    }
  },
})

export const EXPIRE_ARTIFACTS = defineJobKind<null>({
  name: 'ci.expire_artifacts',
  attempts: 1,
  timeLimitMs: 10 * 60_000,
  concurrency: 1,
  cron: '7 * * * *',
  async run(ctx, _payload, job) {
    for (let batch = 0; batch < EXPIRE_BATCHES_PER_RUN && !job.signal.aborted; batch++) {
      if (await expireArtifacts(ctx, EXPIRE_BATCH) < EXPIRE_BATCH) break
    }
  },
})

export const DROP_STALE_JOBS = defineJobKind<null>({
  name: 'ci.drop_stale_jobs',
  attempts: 3,
  timeLimitMs: 10 * 60_000,
  concurrency: 1,
  cron: '*/5 * * * *',
  async run(ctx) {
    const dropped = await dropStaleJobs(ctx)
    if (dropped.stuck + dropped.timedOut > 0) ctx.log.info(dropped, 'failed stale CI jobs')
  },
})

export const RUN_PIPELINE_SCHEDULES = defineJobKind<null>({
  name: 'ci.run_pipeline_schedules',
  attempts: 1,
  timeLimitMs: 5 * 60_000,
  concurrency: 1,
  cron: '* * * * *',
  async run(ctx, _payload, job) {
    // Each batch's schedules have moved on when it ends: the next batch reads those still due.
    let read = DUE_BATCH
    while (read === DUE_BATCH && !job.signal.aborted) read = await runDueSchedules(ctx, Date.now())
  },
})
