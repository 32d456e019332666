// LFS objects made the way uploads make them, for tests that need some before the batch API does:
// the blob at its key, the row, the link to a project (which counts its size).
import { createHash, randomBytes } from 'node:crypto'
import { buffer } from 'node:stream/consumers'
import type { TestApp } from '../../helpers/app.js'
import { lfsObjectBlobKey, linkLfsObjects } from '../../../src/services/lfs/lfs-objects.js'

export interface TestLfsObject {
  id: number
  oid: string
  size: number
  content: Buffer
}

/** A new object of `content` (random bytes by default), linked to each of `projectIds`. */
export async function makeLfsObject(t: TestApp, projectIds: readonly number[], content = randomBytes(1000 + Math.floor(Math.random() * 5000))): Promise<TestLfsObject> {
  const oid = createHash('sha256').update(content).digest('hex')
  await t.ctx.blobs.put(lfsObjectBlobKey(oid), content)
  const now = Date.now()
  const row = await t.ctx.db.insertInto('lfs_objects').values({ oid, size: content.length, created_at: now, updated_at: now })
    .returning('id').executeTakeFirstOrThrow()
  for (const projectId of projectIds) await linkLfsObjects(t.ctx.db, projectId, [row.id])
  return { id: row.id, oid, size: content.length, content }
}

/** The oids linked to the project, sorted. */
export async function linkedOids(t: TestApp, projectId: number): Promise<string[]> {
  const rows = await t.ctx.db.selectFrom('lfs_objects_projects').innerJoin('lfs_objects', 'lfs_objects.id', 'lfs_objects_projects.lfs_object_id')
    .select('lfs_objects.oid').where('lfs_objects_projects.project_id', '=', projectId).orderBy('lfs_objects.oid').execute()
  return rows.map((row) => row.oid)
}

/** The stored blob's bytes, or null when there is none. */
export async function storedBlob(t: TestApp, oid: string): Promise<Buffer | null> {
  const stream = await t.ctx.blobs.get(lfsObjectBlobKey(oid))
  return stream === null ? null : buffer(stream)
}

/** The project's statistics.lfs_objects_size and storage_size as the API shows them. */
export async function lfsStatistics(t: TestApp, projectId: number): Promise<{ lfs_objects_size: number; storage_size: number }> {
  const res = await t.api('GET', `/projects/${projectId}`, { query: { statistics: true } })
  if (res.status !== 200) throw new Error(`GET /projects/${projectId}: ${res.status} ${res.text}`)
  return { lfs_objects_size: res.body.statistics.lfs_objects_size, storage_size: res.body.statistics.storage_size }
}
