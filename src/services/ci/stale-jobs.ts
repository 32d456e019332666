// The sweep of jobs no runner will finish (the original's StuckCiJobsWorker), run every few minutes
// (jobs.ts): a job pending for a day that no runner took, a running job nothing has updated for an
// hour (its runner died or lost it), and a running job past its timeout (with a grace for the
// runner's own timeout to act first) are failed. Each is dropped through transitions.ts, which
// checks under the pipeline's lock that it is still stale, so a job taken or updated meanwhile
// stays as it is.
import type { AppContext } from '../../context.js'
import type { CiBuildRow } from '../../db/schema.js'
import { dropJob } from './transitions.js'

export const PENDING_OUTDATED_MS = 24 * 60 * 60_000
export const RUNNING_OUTDATED_MS = 60 * 60_000
/** How long past its timeout a running job is left to its runner, which stops it itself and reports the failure. */
export const TIMEOUT_GRACE_MS = 5 * 60_000

export interface DroppedJobs {
  stuck: number
  timedOut: number
}

const olderThan = (status: CiBuildRow['status'], ms: number) => (job: CiBuildRow, now: number) =>
  job.status === status && job.updated_at < now - ms

const pastTimeout = (job: CiBuildRow, now: number) =>
  job.status === 'running' && job.started_at !== null && job.timeout !== null && job.started_at + job.timeout * 1000 + TIMEOUT_GRACE_MS < now

export async function dropStaleJobs(ctx: AppContext): Promise<DroppedJobs> {
  const { db } = ctx
  const now = Date.now()
  const dropped: DroppedJobs = { stuck: 0, timedOut: 0 }
  const staleIds = (status: 'pending' | 'running', ms: number) => db.selectFrom('ci_builds').select('id')
    .where('status', '=', status).where('updated_at', '<', now - ms).where('kind', '=', 'ci').orderBy('id').execute()
  for (const [status, ms] of [['pending', PENDING_OUTDATED_MS], ['running', RUNNING_OUTDATED_MS]] as const) {
    for (const { id } of await staleIds(status, ms)) {
      if (await dropJob(ctx, id, 'stuck_or_timeout_failure', olderThan(status, ms)) !== null) dropped.stuck += 1
    }
  }
  // Running jobs are few: each is looked at.
  const running = await db.selectFrom('ci_builds').select(['id', 'started_at', 'timeout'])
    .where('status', '=', 'running').where('kind', '=', 'ci').where('timeout', 'is not', null).execute()
  for (const job of running) {
    if (job.started_at === null || job.started_at + job.timeout! * 1000 + TIMEOUT_GRACE_MS >= now) continue
    if (await dropJob(ctx, job.id, 'job_execution_timeout', pastTimeout) !== null) dropped.timedOut += 1
  }
  return dropped
}
