// Stopping an environment from the API, as the original 11.5's Environment#stop_with_action!: an
// available environment is stopped at once, and the on_stop job of its last deployment is played
// (a manual job waiting, or one that finished and runs again), which stops it again when it succeeds.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { CiBuildRow, EnvironmentRow } from '../../db/schema.js'
import { playJob } from './transitions.js'

/**
 * The manual job that stops the environment: the job its last deployment named on_stop, in that
 * deployment's pipeline, waiting to be played or already finished (played again then); null when
 * there is none.
 */
export async function stopActionOf(db: Db, environment: EnvironmentRow): Promise<CiBuildRow | null> {
  const last = await db.selectFrom('deployments').select(['deployable_id', 'on_stop'])
    .where('environment_id', '=', environment.id).orderBy('id', 'desc').limit(1).executeTakeFirst()
  if (last === undefined || last.on_stop === null || last.deployable_id === null) return null
  const deployable = await db.selectFrom('ci_builds').select(['pipeline_id', 'name']).where('id', '=', last.deployable_id).executeTakeFirst()
  if (deployable === undefined || deployable.name === last.on_stop) return null
  return await db.selectFrom('ci_builds').selectAll()
    .where('pipeline_id', '=', deployable.pipeline_id).where('name', '=', last.on_stop).where('retried', '=', 0)
    .where('when', '=', 'manual').where('status', 'in', ['manual', 'success', 'failed', 'canceled', 'skipped'])
    .orderBy('id', 'desc').limit(1).executeTakeFirst() ?? null
}

/** Stops an available environment and plays `stopAction` (stopActionOf) for `userId`; a stopped one is left as it is. */
export async function stopEnvironment(ctx: AppContext, environment: EnvironmentRow, stopAction: CiBuildRow | null, userId: number): Promise<EnvironmentRow> {
  if (environment.state !== 'available') return environment
  const stopped = await ctx.db.updateTable('environments').set({ state: 'stopped', updated_at: Date.now() })
    .where('id', '=', environment.id).returningAll().executeTakeFirstOrThrow()
  if (stopAction !== null) await playJob(ctx, stopAction.id, userId)
  return stopped
}
