// LFS objects moving in and out of a project: what the batch API answers for a list of objects,
// uploads streamed into blob storage and checked against their oid (sha256) and size as they
// stream, downloads streamed back, and the verify step. An upload is stored only once every byte
// matched (the blob storage's put is all-or-nothing), so a corrupted or short upload leaves no
// object behind; an object already stored is linked without being stored again, once the upload
// proves its content.
import { createHash } from 'node:crypto'
import { Transform, Writable, type Readable } from 'node:stream'
import { pipeline as pipelineAsync } from 'node:stream/promises'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import { LFS_OID, lfsObjectBlobKey, linkLfsObjects } from './lfs-objects.js'

/** Sizes up to 2^53: what a bigint column and a JavaScript number both hold. */
export const LFS_SIZE = /^\d{1,15}$/

export interface LfsObjectSpec {
  oid: string
  size: number
}

/** An object of a batch request, when its oid and size can be used at all. */
export function lfsObjectSpecOf(value: unknown): LfsObjectSpec | null {
  if (typeof value !== 'object' || value === null) return null
  const { oid, size } = value as { oid?: unknown; size?: unknown }
  if (typeof oid !== 'string' || !LFS_OID.test(oid)) return null
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return null
  return { oid, size }
}

/** Of the oids, those linked to the project. */
export async function linkedLfsOids(db: Db, projectId: number, oids: readonly string[]): Promise<Set<string>> {
  const linked = new Set<string>()
  for (let at = 0; at < oids.length; at += 500) {
    const rows = await db.selectFrom('lfs_objects')
      .innerJoin('lfs_objects_projects', 'lfs_objects_projects.lfs_object_id', 'lfs_objects.id')
      .select('lfs_objects.oid')
      .where('lfs_objects_projects.project_id', '=', projectId)
      .where('lfs_objects.oid', 'in', oids.slice(at, at + 500))
      .execute()
    for (const row of rows) linked.add(row.oid)
  }
  return linked
}

/** The object if the project links it; null otherwise. */
export async function linkedLfsObject(db: Db, projectId: number, oid: string): Promise<{ id: number; size: number } | null> {
  const row = await db.selectFrom('lfs_objects')
    .innerJoin('lfs_objects_projects', 'lfs_objects_projects.lfs_object_id', 'lfs_objects.id')
    .select(['lfs_objects.id', 'lfs_objects.size'])
    .where('lfs_objects_projects.project_id', '=', projectId)
    .where('lfs_objects.oid', '=', oid)
    .executeTakeFirst()
  return row === undefined ? null : { id: row.id, size: Number(row.size) }
}

/** The content of an object the project links, and its size; null when it has none such (or its blob is gone). */
export async function openLfsDownload(ctx: AppContext, projectId: number, oid: string): Promise<{ body: Readable; size: number } | null> {
  if (await linkedLfsObject(ctx.db, projectId, oid) === null) return null
  const stat = await ctx.blobs.stat(lfsObjectBlobKey(oid))
  const body = stat === null ? null : await ctx.blobs.get(stat.key)
  return stat === null || body === null ? null : { body, size: stat.size }
}

/** An upload whose bytes are not what its URL names: more or fewer than its size, or another sha256 than its oid. */
export class LfsContentMismatchError extends Error {
  constructor(readonly mismatch: 'size' | 'oid') {
    super(mismatch === 'size' ? 'The uploaded content does not have the size the URL names.' : 'The uploaded content does not match its oid (sha256).')
  }
}

/** Passes the bytes through while hashing and counting them; fails as soon as they cannot be the object. */
function contentCheck(expected: LfsObjectSpec): Transform {
  const hash = createHash('sha256')
  let received = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length
      if (received > expected.size) return done(new LfsContentMismatchError('size'))
      hash.update(chunk)
      done(null, chunk)
    },
    flush(done) {
      if (received !== expected.size) return done(new LfsContentMismatchError('size'))
      done(hash.digest('hex') === expected.oid ? null : new LfsContentMismatchError('oid'))
    },
  })
}

/**
 * Stores the object `expected` from `body` unless it is stored already, in which case `body` only
 * has to prove it has the content; the object's row id. Throws LfsContentMismatchError, with
 * nothing stored, when the content is not the object. A known object's row is touched before its
 * blob is looked at, so that the clean-up of unreferenced objects (lfs-cleanup.ts, which leaves
 * objects touched within its grace period) cannot take it meanwhile; a new object's row is
 * written once its blob is.
 */
export async function storeLfsObject(ctx: Pick<AppContext, 'db' | 'blobs'>, expected: LfsObjectSpec, body: Readable): Promise<number> {
  const { db, blobs } = ctx
  const key = lfsObjectBlobKey(expected.oid)
  const known = await db.updateTable('lfs_objects').set({ updated_at: Date.now() }).where('oid', '=', expected.oid).returning('id').executeTakeFirst()
  // Piped, not pipelined: a refused upload must not destroy the request, whose answer is still to be sent.
  const checked = contentCheck(expected)
  // The check may fail before storage starts reading (a short body ends at once): kept, and thrown
  // whatever the storage's own error says.
  let mismatch: Error | null = null
  checked.once('error', (err) => { mismatch = err })
  body.once('error', (err) => checked.destroy(err))
  body.pipe(checked)
  try {
    if (known !== undefined && await blobs.stat(key) !== null) {
      await pipelineAsync(checked, new Writable({ write: (_chunk, _encoding, done) => done() }))
    } else {
      await blobs.put(key, checked)
    }
  } catch (err) {
    throw mismatch ?? err
  }
  if (known !== undefined) return known.id
  const now = Date.now()
  const row = await db.insertInto('lfs_objects').values({ oid: expected.oid, size: expected.size, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('oid').doUpdateSet({ updated_at: now }))
    .returning('id').executeTakeFirstOrThrow()
  return row.id
}

/** Stores an upload of `expected` (streamed from `body`) and links it to the project (see storeLfsObject). */
export async function storeLfsUpload(ctx: AppContext, projectId: number, expected: LfsObjectSpec, body: Readable): Promise<void> {
  await linkLfsObjects(ctx.db, projectId, [await storeLfsObject(ctx, expected, body)])
}

/** The verify step after an upload: whether the project links the object with that size. */
export async function lfsObjectVerified(db: Db, projectId: number, spec: LfsObjectSpec): Promise<boolean> {
  const linked = await linkedLfsObject(db, projectId, spec.oid)
  return linked !== null && linked.size === spec.size
}
