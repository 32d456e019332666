// LFS objects in export archives, as the original's LfsSaver and LfsRestorer: the export carries
// each object linked to the project as the member `lfs-objects/<oid>` (its bytes, nothing else:
// 11.5 writes no lfs-objects.json, and the import ignores one); the import stores each such member
// whose content hashes to its oid (checked as it streams into storage), reuses the object when it
// is stored already (its blob kept, the member's content still checked), and links them all
// to the imported project. A member whose content does not match is skipped and logged, never
// stored: knowing an oid must not be enough to get an object linked to one's project.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { Transform, addAbortSignal } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { BlobStorage } from '../../storage/blob-storage.js'
import { LFS_OID, lfsObjectBlobKey, linkLfsObjects, recountLfsSize } from './lfs-objects.js'

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

async function sha256OfFile(file: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(fs.createReadStream(file), hash, signal === undefined ? {} : { signal })
  return hash.digest('hex')
}

/** Content that does not hash to the oid it was given as. */
class ContentMismatchError extends Error {}

/**
 * Stores the file as the blob `key` if its content hashes to `oid`, checked as it streams: the
 * stream fails at its end otherwise, and storage keeps nothing of a failed put. False on a mismatch.
 */
async function putChecked(blobs: BlobStorage, key: string, file: string, oid: string, signal?: AbortSignal): Promise<boolean> {
  const hash = createHash('sha256')
  const checked = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk)
      done(null, chunk)
    },
    flush(done) {
      done(hash.digest('hex') === oid ? null : new ContentMismatchError(oid))
    },
  })
  const source = fs.createReadStream(file)
  if (signal !== undefined) addAbortSignal(signal, source)
  source.on('error', (err) => checked.destroy(err))
  source.pipe(checked)
  try {
    await blobs.put(key, checked)
    return true
  } catch (err) {
    if (err instanceof ContentMismatchError) return false
    throw err
  } finally {
    source.destroy()
  }
}

/**
 * Stores the member `file` as the object `oid`; its row's id, or null when its content is not
 * that oid's. A known object's row is touched first, so that the unreferenced objects' clean-up
 * leaves it from then on (or, had it just taken it, is done with its blob); a new one's row is
 * written once its blob is.
 */
async function storeLfsObject(ctx: Pick<AppContext, 'db' | 'blobs'>, oid: string, file: string, signal?: AbortSignal): Promise<number | null> {
  const key = lfsObjectBlobKey(oid)
  const { size } = await fs.promises.stat(file)
  const known = await ctx.db.updateTable('lfs_objects').set({ updated_at: Date.now() }).where('oid', '=', oid).returning('id').executeTakeFirst()
  const stored = known === undefined ? null : await ctx.blobs.stat(key)
  if (stored !== null && stored.size === size) {
    // Stored already: the member must still prove it is that object before it is linked.
    if (await sha256OfFile(file, signal) !== oid) return null
  } else if (!await putChecked(ctx.blobs, key, file, oid, signal)) {
    return null
  }
  if (known !== undefined) return known.id
  const now = Date.now()
  const row = await ctx.db.insertInto('lfs_objects')
    .values({ oid, size, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('oid').doUpdateSet({ updated_at: now }))
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
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
    const id = await storeLfsObject(ctx, oid, path.join(dir, ...member.split('/')), signal)
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
