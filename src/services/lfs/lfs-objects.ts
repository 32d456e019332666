// LFS objects: stored once as a blob named by their oid, linked to each project that references
// them (a push's upload, a fork, an import). Linking and unlinking keep the project's
// statistics.lfs_objects_size (and storage_size) the sum of its linked objects' sizes.
import type { Db } from '../../db/index.js'

/** The blob key of an object: fanned out by the oid's first two pairs of hex digits, as the original stores them. */
export function lfsObjectBlobKey(oid: string): string {
  return `lfs-objects/${oid.slice(0, 2)}/${oid.slice(2, 4)}/${oid.slice(4)}`
}

/** A valid oid: sha256 as 64 lower-case hex digits (anything else is never used in a key). */
export const LFS_OID = /^[0-9a-f]{64}$/

/** Links the objects to the project (those already linked are left alone) and recounts its LFS size. */
export async function linkLfsObjects(db: Db, projectId: number, lfsObjectIds: readonly number[]): Promise<void> {
  if (lfsObjectIds.length === 0) return
  const now = Date.now()
  await db.transaction().execute(async (trx) => {
    for (let at = 0; at < lfsObjectIds.length; at += 500) {
      await trx.insertInto('lfs_objects_projects')
        .values(lfsObjectIds.slice(at, at + 500).map((id) => ({ lfs_object_id: id, project_id: projectId, created_at: now })))
        .onConflict((oc) => oc.columns(['project_id', 'lfs_object_id']).doNothing())
        .execute()
    }
    await recountLfsSize(trx, projectId)
  })
}

/** Sets the project's lfs_objects_size to the sum of its linked objects, and storage_size with it. */
export async function recountLfsSize(db: Db, projectId: number): Promise<void> {
  const row = await db.selectFrom('lfs_objects_projects')
    .innerJoin('lfs_objects', 'lfs_objects.id', 'lfs_objects_projects.lfs_object_id')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('lfs_objects.size'), eb.lit(0)).as('size'))
    .where('lfs_objects_projects.project_id', '=', projectId)
    .executeTakeFirst()
  const size = Number(row?.size ?? 0)
  await db.updateTable('project_statistics')
    .set((eb) => ({ lfs_objects_size: size, storage_size: eb(eb('repository_size', '+', eb.ref('job_artifacts_size')), '+', size) }))
    .where('project_id', '=', projectId).execute()
}
