// Removal of LFS objects no project links to any more (a project deleted, a failed import, links
// removed), with their blobs: the original's RemoveUnreferencedLfsObjectsWorker (daily,
// LfsObject.destroy_unreferenced). Unlike the original, an object is removed only once it has been
// unreferenced and untouched (updated_at) for a grace period: ours runs unattended while pushes
// and imports create and link objects. A writer touches a known object's row before it looks at
// the blob (and writes a new object's row once its blob is stored), then links it, so an object on
// its way to a project is never taken from under it.
import type { ExpressionBuilder } from 'kysely'
import type { AppContext } from '../../context.js'
import { isPostgres } from '../../db/dialect.js'
import type { Database } from '../../db/schema.js'
import { lfsObjectBlobKey } from './lfs-objects.js'

/**
 * How long an object stays after it was last written while no project links it: far longer than
 * an upload or an import takes between writing the row and linking it, and a day in which a
 * deleted project's objects can still be restored from a backup of the database alone.
 */
export const UNREFERENCED_LFS_GRACE_MS = 24 * 60 * 60_000

/** Objects removed per transaction: their blobs are deleted while their rows are held. */
export const UNREFERENCED_LFS_BATCH = 100

/** Unlinked and untouched since `before`. */
function unreferencedSince(before: number) {
  return (eb: ExpressionBuilder<Database, 'lfs_objects'>) => eb.and([
    eb('lfs_objects.updated_at', '<', before),
    eb.not(eb.exists(eb.selectFrom('lfs_objects_projects').select('lfs_objects_projects.id')
      .whereRef('lfs_objects_projects.lfs_object_id', '=', 'lfs_objects.id'))),
  ])
}

/**
 * Removes up to `batchSize` unreferenced objects past the grace period, rows and blobs; how many.
 * The blobs go before the transaction ends, so that a writer waiting on a row it is about to reuse
 * finds the row gone once it may go on, and stores the blob again.
 */
export async function removeUnreferencedLfsObjects(
  ctx: Pick<AppContext, 'db' | 'blobs'>, batchSize = UNREFERENCED_LFS_BATCH, now = Date.now(),
): Promise<number> {
  const unreferenced = unreferencedSince(now - UNREFERENCED_LFS_GRACE_MS)
  return ctx.db.transaction().execute(async (trx) => {
    let ids: number[] | null = null
    if (isPostgres(ctx.db)) {
      // Locked first and read again by the delete (a statement of its own, so a later snapshot): a
      // link committed meanwhile keeps its object, and one still being made holds its row, skipped.
      const locked = await trx.selectFrom('lfs_objects').select('id').where(unreferenced)
        .orderBy('id').limit(batchSize).forUpdate().skipLocked().execute()
      if (locked.length === 0) return 0
      ids = locked.map((row) => row.id)
    }
    // On SQLite the delete is the transaction's first statement: it holds the database's write
    // lock from there on, so no link can be made before the blobs are gone.
    const removed = await trx.deleteFrom('lfs_objects')
      .where((eb) => ids === null
        ? eb('id', 'in', eb.selectFrom('lfs_objects').select('id').where(unreferenced).orderBy('id').limit(batchSize))
        : eb.and([eb('id', 'in', ids), unreferenced(eb)]))
      .returning('oid').execute()
    for (const { oid } of removed) await ctx.blobs.delete(lfsObjectBlobKey(oid))
    return removed.length
  })
}

/** Batches until none is left or `signal` ends the run; how many objects were removed. */
export async function removeAllUnreferencedLfsObjects(ctx: Pick<AppContext, 'db' | 'blobs' | 'log'>, signal: AbortSignal): Promise<number> {
  let total = 0
  while (!signal.aborted) {
    const removed = await removeUnreferencedLfsObjects(ctx)
    total += removed
    if (removed < UNREFERENCED_LFS_BATCH) break
  }
  if (total > 0) ctx.log.info({ removed: total }, 'unreferenced LFS objects removed')
  return total
}
