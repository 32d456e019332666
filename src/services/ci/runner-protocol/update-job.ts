// PUT /jobs/:id as a service: what a runner says of a job it runs. A `trace` replaces the whole
// trace first (runners send it when their appends kept failing). `running` renews the job so the
// stale jobs' sweep leaves it alone (newer runners say it right after taking the job); `success`
// and `failed` end it through transitions.ts, a failure with its reason (one 11.5 does not know is
// `unknown_failure`, rather than the original's 400, so a newer runner's report still ends the job).
import type { AppContext } from '../../../context.js'
import type { CiBuildRow } from '../../../db/schema.js'
import { replaceTrace } from '../trace.js'
import { finishJob, touchRunningJob } from '../transitions.js'

/** The failure reasons of 11.5, which runners may send and which newer runners are told the server knows. */
export const FAILURE_REASONS = [
  'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure',
  'missing_dependency_failure', 'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure',
] as const

export function failureReasonOf(reason: string | undefined): string {
  return reason !== undefined && (FAILURE_REASONS as readonly string[]).includes(reason) ? reason : 'unknown_failure'
}

/** Applies the runner's `state` to a running job; any other state is ignored, as the original ignores it. */
export async function updateJobFromRunner(
  ctx: AppContext, job: CiBuildRow, update: { state: string | undefined; failureReason: string | undefined; trace: string | undefined },
): Promise<void> {
  if (update.trace !== undefined) await replaceTrace(ctx, job.id, update.trace)
  switch (update.state) {
    case 'running':
      await touchRunningJob(ctx, job)
      return
    case 'success':
      await finishJob(ctx, job.id, 'success')
      return
    case 'failed':
      await finishJob(ctx, job.id, 'failed', failureReasonOf(update.failureReason))
  }
}
