// LFS objects in export archives, as the original's LfsSaver and LfsRestorer: the export carries
// each object linked to the project as the member `lfs-objects/<oid>` (its bytes, nothing else:
// 11.5 writes no lfs-objects.json, and the import ignores one); the import stores each such member
// whose content hashes to its oid (checked as it streams into storage), reuses the object when it
// is stored already (its blob kept, the member's content still checked), and links them all
// to the imported project. A member whose content does not match is skipped and logged, never
// stored: knowing an oid must not be enough to get an object linked to one's project.
import fs from 'node:fs'
import path from 'node:path'
import { addAbortSignal } from 'node:stream'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import { LFS_OID, lfsObjectBlobKey, linkLfsObjects, recountLfsSize } from './lfs-objects.js'
import { LfsContentMismatchError, storeLfsObject } from './lfs-transfer.js'

/** The archive's directory of LFS objects, one member per object named by its oid. */
export const LFS_ARCHIVE_DIR = 'lfs-objects'

/** A member of the export archive whose bytes are a blob. */
export interface BlobMember {
  name: string
  blob: string
}

/** The export's members for the project's LFS objects, in oid order. */
export async function lfsExportMembers(db: Db, projectId: number): Promise<BlobMember[]> {
  const rows = await db.selectFrom('lfs_objects_projects')
    .innerJoin('lfs_objects', 'lfs_objects.id', 'lfs_objects_projects.lfs_object_id')
    .select('lfs_objects.oid')
    .where('lfs_objects_projects.project_id', '=', projectId)
    .orderBy('lfs_objects.oid')
    .execute()
  return rows.filter((row) => LFS_OID.test(row.oid))
    .map((row) => ({ name: `${LFS_ARCHIVE_DIR}/${row.oid}`, blob: lfsObjectBlobKey(row.oid) }))
}

/** The oid an extracted member names, or null when it is no LFS object (`lfs-objects.json`, other names). */
function memberOid(member: string): string | null {
  const match = /^lfs-objects\/([^/]+)$/.exec(member)
  return match !== null && LFS_OID.test(match[1]!) ? match[1]! : null
}

/** Stores the member `file` as the object `oid` (storeLfsObject); its row's id, or null when its content is not that oid's. */
async function storeMember(ctx: Pick<AppContext, 'db' | 'blobs'>, oid: string, file: string, signal?: AbortSignal): Promise<number | null> {
  const { size } = await fs.promises.stat(file)
  const content = fs.createReadStream(file)
  if (signal !== undefined) addAbortSignal(signal, content)
  try {
    return await storeLfsObject(ctx, { oid, size }, content)
  } catch (err) {
    if (err instanceof LfsContentMismatchError) return null
    throw err
  } finally {
    content.destroy()
  }
}

/**
 * Stores the extracted `lfs-objects/<oid>` members of `dir` and links them to the project; how
 * many were restored and how many skipped for content that is not their oid's.
 */
export async function restoreLfsObjects(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'log'>, projectId: number, dir: string, members: readonly string[], signal?: AbortSignal,
): Promise<{ restored: number; skipped: number }> {
  const ids: number[] = []
  let skipped = 0
  for (const member of members) {
    const oid = memberOid(member)
    if (oid === null) continue
    signal?.throwIfAborted()
    const id = await storeMember(ctx, oid, path.join(dir, ...member.split('/')), signal)
    if (id === null) {
      skipped += 1
      ctx.log.warn({ project: projectId, oid }, 'an imported LFS object does not match its oid; skipped')
    } else {
      ids.push(id)
    }
  }
  await linkLfsObjects(ctx.db, projectId, ids)
  return { restored: ids.length, skipped }
}

/** Removes the project's links (a failed import's), its LFS size back to 0; the objects stay for the clean-up. */
export async function unlinkAllLfsObjects(db: Db, projectId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('lfs_objects_projects').where('project_id', '=', projectId).execute()
    await recountLfsSize(trx, projectId)
  })
}
