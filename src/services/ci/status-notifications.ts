// What follows a pipeline's or a job's status change once it has committed, as the original's
// PipelineHooksWorker and BuildHooksWorker: every move of a pipeline's status, and a job's start
// (pending → running) and end (success, failed, canceled), are told to the project's hooks that
// listen to pipeline_events or job_events; a pipeline that failed or succeeded is emailed about
// (notifications/pipeline-email.ts) and announced by the chat webhook (integrations/chat-webhook.ts). Only jobs are enqueued here: the payloads are built and
// sent by the web hooks' jobs (services/hooks/deliveries.ts).
import type { AppContext } from '../../context.js'
import type { CiBuildRow } from '../../db/schema.js'
import { enqueueCiHooks } from '../hooks/deliveries.js'
import { chatOnPipeline } from '../integrations/chat-webhook.js'
import { PIPELINE_EMAIL } from '../notifications/jobs.js'
import { isEmailedPipelineStatus } from '../notifications/pipeline-email.js'
import type { ProcessedPipeline } from './status.js'

/** After the transaction that processed the pipeline (or wrote it failed, for a CI file that does not read) has committed. */
export async function afterPipelineStatus(ctx: AppContext, processed: Pick<ProcessedPipeline, 'pipelineId' | 'projectId' | 'status' | 'statusChanged'>): Promise<void> {
  if (!processed.statusChanged) return
  await enqueueCiHooks(ctx, { kind: 'pipeline', projectId: processed.projectId, id: processed.pipelineId })
  await chatOnPipeline(ctx, processed.projectId, processed.pipelineId, processed.status)
  if (ctx.mailer !== null && isEmailedPipelineStatus(processed.status)) await ctx.jobs.enqueue(PIPELINE_EMAIL, { pipelineId: processed.pipelineId })
}

/** After the transaction that started or ended the jobs has committed. */
export async function afterJobStatus(ctx: AppContext, jobs: readonly Pick<CiBuildRow, 'id' | 'project_id'>[]): Promise<void> {
  for (const job of jobs) await enqueueCiHooks(ctx, { kind: 'job', projectId: job.project_id, id: job.id })
}
