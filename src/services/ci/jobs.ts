// The job kinds of CI: a pipeline per pushed ref (pipeline-push-listener.ts), each delayed CI job
// moved to pending when its `start_in` has passed (enqueued for that time by transitions.ts), and
// the sweep of stale jobs (stale-jobs.ts).
import { defineJobKind } from '../../jobs/kind.js'
import { createPushPipeline, type PushPipelinePayload } from './pipeline-push-listener.js'
import { dropStaleJobs } from './stale-jobs.js'
import { enqueueDelayedJob } from './transitions.js'

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
