// Deleting a pipeline (its Owner's DELETE): its jobs and variables go with it (foreign keys cascade).
import type { AppContext } from '../../context.js'
import type { CiPipelineRow } from '../../db/schema.js'

export async function deletePipeline(ctx: AppContext, pipeline: CiPipelineRow): Promise<void> {
  await ctx.db.deleteFrom('ci_pipelines').where('id', '=', pipeline.id).execute()
}
