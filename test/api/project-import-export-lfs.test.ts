// LFS objects through export and import: the export carries `lfs-objects/<oid>` with each linked
// object's exact bytes (and no lfs-objects.json, as 11.5); the import stores and links them (its
// statistics count them), shares objects already stored, skips members whose content is not their
// oid's (neither stored nor linked, not even when that oid is stored for another project), and
// ignores an lfs-objects.json; a failed import's links are removed. Run on SQLite, and on
// PostgreSQL with INGOT_TEST_DATABASE_URL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import zlib from 'node:zlib'
import tar from 'tar-stream'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { multipart } from '../helpers/multipart.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { importArchiveKey, runProjectImport } from '../../src/services/import-export/import-project.js'
import { lfsObjectBlobKey } from '../../src/services/lfs/lfs-objects.js'
import { lfsStatistics, linkedOids, makeLfsObject, storedBlob, type TestLfsObject } from '../services/lfs/lfs-fixtures.js'

/** The archive's file members by name, `./` dropped. */
async function readArchive(archive: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>()
  const extract = tar.extract()
  extract.on('entry', (header, stream, next) => {
    buffer(stream).then((data) => {
      if (header.type === 'file') files.set(header.name.replace(/^\.\//, ''), data)
      next()
    }, next)
  })
  const done = new Promise<void>((resolve, reject) => { extract.on('finish', resolve); extract.on('error', reject) })
  Readable.from([archive]).pipe(zlib.createGunzip()).pipe(extract)
  await done
  return files
}

/** A gzip'd tar of the files. */
async function packArchive(files: Map<string, Buffer>): Promise<Buffer> {
  const pack = tar.pack()
  for (const [name, data] of files) pack.entry({ name: `./${name}` }, data)
  pack.finalize()
  return buffer(pack.pipe(zlib.createGzip()))
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

describe('LFS objects in project export and import', () => {
  let t: TestApp
  let maintainer: TestUser
  let source: ProjectRow
  let objects: TestLfsObject[]
  let archive: Buffer
  let exported: Map<string, Buffer>

  const runJobs = async () => { while (await t.ctx.jobs.runDue(Date.now() + 5_000) > 0) { /* until none is due */ } }

  /** Imports the archive as root into a new group; the new project's id once the import finished. */
  async function importArchive(archive: Buffer, path: string): Promise<number> {
    const group = await makeGroup(t)
    const { payload, contentType } = await multipart({ path, namespace: group.full_path, file: { name: 'export.tar.gz', data: archive } })
    const posted = await t.app.inject({ method: 'POST', url: '/api/v4/projects/import', payload, headers: { 'content-type': contentType, 'private-token': t.root.token } })
    assert.equal(posted.statusCode, 201, posted.body)
    await runJobs()
    const state = await t.api('GET', `/projects/${posted.json().id}/import`)
    assert.equal(state.body.import_status, 'finished', state.body.import_error)
    return posted.json().id
  }

  before(async () => {
    t = await buildTestApp()
    maintainer = await makeUser(t)
    source = await makeProject(t, maintainer)
    await commitFiles(t, source.id, { 'README.md': '# LFS\n', '.gitattributes': '*.bin filter=lfs diff=lfs merge=lfs -text\n' })
    // A large one (read in many chunks) and a small one.
    objects = [await makeLfsObject(t, [source.id], randomBytes(3 * 1024 * 1024 + 17)), await makeLfsObject(t, [source.id], Buffer.from('small object\n'))]
    // Another project's object is not the source's to export.
    await makeLfsObject(t, [(await makeProject(t, maintainer)).id])

    assert.equal((await t.api('POST', `/projects/${source.id}/export`, { token: maintainer.token })).status, 202)
    await runJobs()
    const download = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${source.id}/export/download`, headers: { 'private-token': maintainer.token } })
    assert.equal(download.statusCode, 200)
    archive = download.rawPayload
    exported = await readArchive(archive)
  })
  after(async () => { await t.close() })

  it('exports each linked object as lfs-objects/<oid> with its exact bytes, and nothing else under lfs-objects', () => {
    const lfsMembers = [...exported.keys()].filter((name) => name.startsWith('lfs-objects')).sort()
    assert.deepEqual(lfsMembers, objects.map((object) => `lfs-objects/${object.oid}`).sort())
    for (const object of objects) assert.ok(exported.get(`lfs-objects/${object.oid}`)!.equals(object.content))
    assert.ok(exported.has('project.json') && exported.has('VERSION'))
  })

  it('imports what it exported: the objects linked to the new project, stored once, counted in its statistics', async () => {
    const copy = await importArchive(archive, 'lfs-round-trip')
    assert.deepEqual(await linkedOids(t, copy), objects.map((object) => object.oid).sort())
    assert.deepEqual(await linkedOids(t, source.id), objects.map((object) => object.oid).sort())
    const rows = await t.ctx.db.selectFrom('lfs_objects').select(['oid', 'size']).where('oid', 'in', objects.map((object) => object.oid)).orderBy('oid').execute()
    assert.deepEqual(rows.map((row) => [row.oid, Number(row.size)]), objects.map((object) => [object.oid, object.size]).sort())
    for (const object of objects) assert.deepEqual(await storedBlob(t, object.oid), object.content)
    const total = objects[0]!.size + objects[1]!.size
    assert.equal((await lfsStatistics(t, copy)).lfs_objects_size, total)
    assert.equal((await lfsStatistics(t, source.id)).lfs_objects_size, total)
  })

  it('stores objects new to the instance, skips members whose content is not their oid, ignores lfs-objects.json', async () => {
    const fresh = Buffer.from('an object this instance has not seen\n')
    const forged = Buffer.from('not the content of that oid\n')
    const forgedOid = sha256(Buffer.from('the content this oid names, which the archive lacks\n'))
    const stranger = await makeLfsObject(t, [(await makeProject(t, maintainer)).id])
    // Known objects whose blobs were lost: the right content stores them again, a forged one does not.
    const lost = await makeLfsObject(t, [])
    const lostForged = await makeLfsObject(t, [])
    for (const object of [lost, lostForged]) await t.ctx.blobs.delete(lfsObjectBlobKey(object.oid))
    const files = new Map(exported)
    files.set(`lfs-objects/${sha256(fresh)}`, fresh)
    // A member claiming an oid it does not hash to: one unknown here, one stored for another project.
    files.set(`lfs-objects/${forgedOid}`, forged)
    files.set(`lfs-objects/${stranger.oid}`, forged)
    files.set(`lfs-objects/${lost.oid}`, lost.content)
    files.set(`lfs-objects/${lostForged.oid}`, forged)
    // A damaged copy of one of the source's objects.
    const damaged = Buffer.from(objects[1]!.content)
    damaged[0] = damaged[0]! ^ 0xff
    files.set(`lfs-objects/${objects[1]!.oid}`, damaged)
    // Later releases' index of the objects, and names that are no oids: ignored.
    files.set('lfs-objects.json', Buffer.from(JSON.stringify({ [sha256(fresh)]: [null] })))
    files.set('lfs-objects/NOT-AN-OID', Buffer.from('x'))

    const copy = await importArchive(await packArchive(files), 'lfs-checked')
    assert.deepEqual(await linkedOids(t, copy), [objects[0]!.oid, sha256(fresh), lost.oid].sort())
    assert.deepEqual(await storedBlob(t, sha256(fresh)), fresh)
    assert.deepEqual(await storedBlob(t, lost.oid), lost.content)
    assert.equal(await storedBlob(t, lostForged.oid), null)
    assert.equal(await t.ctx.db.selectFrom('lfs_objects').select('id').where('oid', '=', forgedOid).executeTakeFirst(), undefined)
    assert.equal(await storedBlob(t, forgedOid), null)
    // What was stored already is left as it was.
    assert.deepEqual(await storedBlob(t, stranger.oid), stranger.content)
    assert.deepEqual(await storedBlob(t, objects[1]!.oid), objects[1]!.content)
    assert.equal((await lfsStatistics(t, copy)).lfs_objects_size, objects[0]!.size + fresh.length + lost.size)
  })

  it('unlinks the objects of an import whose process died midway, when its retry fails it', async () => {
    const copy = await importArchive(archive, 'lfs-interrupted')
    assert.equal((await linkedOids(t, copy)).length, 2)
    await t.ctx.db.updateTable('projects').set({ import_status: 'started' }).where('id', '=', copy).execute()
    await runProjectImport(t.ctx, { projectId: copy, importerId: t.root.user.id, archiveKey: importArchiveKey(), overrideParams: {} }, 2, new AbortController().signal)
    assert.equal((await t.api('GET', `/projects/${copy}/import`)).body.import_status, 'failed')
    assert.deepEqual(await linkedOids(t, copy), [])
    assert.equal((await lfsStatistics(t, copy)).lfs_objects_size, 0)
    // The objects stay for the projects that still link them.
    for (const object of objects) assert.deepEqual(await storedBlob(t, object.oid), object.content)
  })

  it('imports an archive without LFS objects with none', async () => {
    const files = new Map([...exported].filter(([name]) => !name.startsWith('lfs-objects/')))
    const copy = await importArchive(await packArchive(files), 'lfs-none')
    assert.deepEqual(await linkedOids(t, copy), [])
    assert.equal((await lfsStatistics(t, copy)).lfs_objects_size, 0)
  })
})
