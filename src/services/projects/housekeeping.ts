// Repository housekeeping, as the original's Projects::HousekeepingService: every push counts (afterPush
// adds it to the project's pushes_since_gc), and when the count reaches a multiple of one of the
// instance's periods a job (its kind is in jobs.ts) runs the task that count picks (gc, full repack,
// incremental repack; git/housekeeping.ts). POST /projects/:id/housekeeping starts one at once. A lease on the project
// (held from the enqueue to the end of the job, at most a day) keeps two from running on one
// repository; the counter starts again from 0 once it has reached the gc period. A push over git
// that brings a large pack, or is the first into an empty repository, starts housekeeping at once
// rather than at its count: until a repack writes a bitmap, every clone counts its objects the slow way.
import type { AppContext } from '../../context.js'
import type { CompletedPush } from '../push/after-push.js'
import { HOUSEKEEPING_TASKS, runHousekeeping, type HousekeepingTask } from '../../git/housekeeping.js'
import { getApplicationSettings, type ApplicationSettings } from '../settings.js'
import { enqueueStatisticsRefresh } from './refresh-statistics.js'
import { HOUSEKEEP_REPOSITORY } from './jobs.js'

/** A push bringing at least this much is housekept at once, whatever the push count. */
export const LARGE_PUSH_BYTES = 10 * 1024 * 1024

/** The original's lease: a job that dies without ending its lease blocks housekeeping for a day at most. */
const LEASE_MS = 24 * 60 * 60 * 1000

/** The original's answer while a lease is held (its LeaseTaken error, with its 24-hour lease). */
export const HOUSEKEEPING_IN_PROGRESS = `Somebody already triggered housekeeping for this project in the past ${LEASE_MS / 60_000} minutes`

type Periods = Pick<ApplicationSettings, 'housekeeping_gc_period' | 'housekeeping_full_repack_period' | 'housekeeping_incremental_repack_period'>

/** The heaviest task whose period the count is a multiple of (0 pushes: gc). */
export function housekeepingTaskFor(pushesSinceGc: number, settings: Periods): HousekeepingTask {
  if (pushesSinceGc % settings.housekeeping_gc_period === 0) return 'gc'
  if (pushesSinceGc % settings.housekeeping_full_repack_period === 0) return 'full_repack'
  return 'incremental_repack'
}

/** Whether a push (afterPush counted it in the project's pushes_since_gc) is due some housekeeping. */
function housekeepingDue(push: CompletedPush, settings: ApplicationSettings): boolean {
  if (!settings.housekeeping_enabled) return false
  // A first push over git brings a whole history; the API's first commit (a README) a few objects.
  const firstOverGit = push.intoEmptyRepository && push.receivedBytes > 0
  if (firstOverGit || push.receivedBytes >= LARGE_PUSH_BYTES) return true
  const pushesSinceGc = push.project.pushes_since_gc
  const periods = [settings.housekeeping_gc_period, settings.housekeeping_full_repack_period, settings.housekeeping_incremental_repack_period]
  return pushesSinceGc > 0 && periods.some((period) => pushesSinceGc % period === 0)
}

export interface HousekeepingPayload {
  projectId: number
  task: HousekeepingTask
}

function isHousekeepingPayload(value: unknown): value is HousekeepingPayload {
  const payload = value as Partial<HousekeepingPayload> | null
  return typeof payload?.projectId === 'number' && HOUSEKEEPING_TASKS.includes(payload.task as HousekeepingTask)
}

/**
 * Takes the project's lease and enqueues the task its push count picks; the job's id, or null when
 * a housekeeping job of the project is pending or running (or the project is gone).
 */
export async function startHousekeeping(ctx: AppContext, projectId: number): Promise<string | null> {
  const settings = await getApplicationSettings(ctx.db)
  const now = Date.now()
  const task = await ctx.db.transaction().execute(async (trx) => {
    const leased = await trx.updateTable('projects').set({ housekeeping_lease_until: now + LEASE_MS })
      .where('id', '=', projectId)
      .where((eb) => eb.or([eb('housekeeping_lease_until', 'is', null), eb('housekeeping_lease_until', '<=', now)]))
      .returning('pushes_since_gc').executeTakeFirst()
    if (leased === undefined) return null
    if (leased.pushes_since_gc >= settings.housekeeping_gc_period) {
      await trx.updateTable('projects').set({ pushes_since_gc: 0 }).where('id', '=', projectId).execute()
    }
    return housekeepingTaskFor(leased.pushes_since_gc, settings)
  })
  if (task === null) return null
  try {
    return await ctx.jobs.enqueue(HOUSEKEEP_REPOSITORY, { projectId, task }, { uniqueKey: String(projectId) })
  } catch (err) {
    await endLease(ctx, projectId)
    throw err
  }
}

async function endLease(ctx: AppContext, projectId: number): Promise<void> {
  await ctx.db.updateTable('projects').set({ housekeeping_lease_until: null }).where('id', '=', projectId).execute()
}

/** Starts the housekeeping a push made due, unless one is under way already. */
async function afterCountedPush(ctx: AppContext, push: CompletedPush): Promise<void> {
  if (!housekeepingDue(push, await getApplicationSettings(ctx.db))) return
  await startHousekeeping(ctx, push.project.id)
}

/** The housekeeping job; the lease ends with it, whatever happens. */
export async function housekeep(ctx: AppContext, payload: HousekeepingPayload, signal: AbortSignal): Promise<void> {
  if (!isHousekeepingPayload(payload)) throw new Error('malformed housekeeping job')
  const { projectId, task } = payload
  try {
    const project = await ctx.db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst()
    if (project === undefined) return
    const settings = await getApplicationSettings(ctx.db)
    await runHousekeeping(ctx.repositories.open(projectId), task, { bitmaps: settings.housekeeping_bitmaps_enabled, signal })
  } finally {
    await endLease(ctx, projectId)
  }
  // The repository's size on disk has changed.
  await enqueueStatisticsRefresh(ctx, projectId)
}

/** The push listener that starts housekeeping when due; called once by openContext. */
export function registerRepositoryHousekeeping(hooks: Pick<AppContext, 'pushListeners'>): void {
  hooks.pushListeners.add((push, ctx) => afterCountedPush(ctx, push))
}
