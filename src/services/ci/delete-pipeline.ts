// Deleting a pipeline (its Owner's DELETE): its jobs and variables go with it (foreign keys cascade),
// and then the traces and artifacts of its jobs in blob storage.
import type { AppContext } from '../../context.js'
import type { CiPipelineRow } from '../../db/schema.js'
import { removeJobsBlobs } from './artifacts.js'

export async function deletePipeline(ctx: AppContext, pipeline: CiPipelineRow): Promise<void> {
  const jobs = await ctx.db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('ci_builds').select(['id', 'project_id']).where('pipeline_id', '=', pipeline.id).execute()
    await trx.deleteFrom('ci_pipelines').where('id', '=', pipeline.id).execute()
    return rows
  })
  await removeJobsBlobs(ctx, jobs)
}
