// The removal of unreferenced LFS objects (lfs.remove_unreferenced_objects): objects no project
// links to and untouched for the grace period go with their blobs, in batches; linked objects,
// and unlinked ones written or touched within the grace period, stay; on PostgreSQL an object
// whose link is being made while the clean-up runs stays. Run on SQLite, and on PostgreSQL with
// INGOT_TEST_DATABASE_URL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, testDatabaseServer, type TestApp } from '../../helpers/app.js'
import { makeProject } from '../../helpers/factories.js'
import { ALL_JOB_KINDS } from '../../../src/jobs/kinds.js'
import { REMOVE_UNREFERENCED_LFS_OBJECTS } from '../../../src/services/lfs/jobs.js'
import {
  UNREFERENCED_LFS_BATCH, UNREFERENCED_LFS_GRACE_MS, removeAllUnreferencedLfsObjects, removeUnreferencedLfsObjects,
} from '../../../src/services/lfs/lfs-cleanup.js'
import { lfsStatistics, makeLfsObject, storedBlob, type TestLfsObject } from './lfs-fixtures.js'

describe('removal of unreferenced LFS objects', () => {
  let t: TestApp

  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const touch = (object: TestLfsObject, at: number) => t.ctx.db.updateTable('lfs_objects').set({ updated_at: at }).where('id', '=', object.id).execute()
  const exists = async (object: TestLfsObject) =>
    (await t.ctx.db.selectFrom('lfs_objects').select('id').where('id', '=', object.id).executeTakeFirst()) !== undefined
  const pastGrace = () => Date.now() - UNREFERENCED_LFS_GRACE_MS - 60_000

  it('is a daily recurring job kind', () => {
    assert.ok(ALL_JOB_KINDS.includes(REMOVE_UNREFERENCED_LFS_OBJECTS))
    assert.equal(REMOVE_UNREFERENCED_LFS_OBJECTS.cron, '20 0 * * *')
  })

  it('removes only unlinked objects past the grace period, rows and blobs', async () => {
    const project = await makeProject(t, null)
    const linkedOld = await makeLfsObject(t, [project.id])
    const unlinkedOld = await makeLfsObject(t, [])
    const unlinkedFresh = await makeLfsObject(t, [])
    const unlinkedTouched = await makeLfsObject(t, [])
    await touch(linkedOld, pastGrace())
    await touch(unlinkedOld, pastGrace())
    // Created long ago, touched (reused by an upload or an import) within the grace period.
    await t.ctx.db.updateTable('lfs_objects').set({ created_at: pastGrace(), updated_at: Date.now() - 60_000 }).where('id', '=', unlinkedTouched.id).execute()
    const sizeBefore = (await lfsStatistics(t, project.id)).lfs_objects_size

    const controller = new AbortController()
    assert.equal(await removeAllUnreferencedLfsObjects(t.ctx, controller.signal), 1)
    assert.equal(await exists(unlinkedOld), false)
    assert.equal(await storedBlob(t, unlinkedOld.oid), null)
    for (const kept of [linkedOld, unlinkedFresh, unlinkedTouched]) {
      assert.ok(await exists(kept))
      assert.deepEqual(await storedBlob(t, kept.oid), kept.content)
    }
    assert.equal((await lfsStatistics(t, project.id)).lfs_objects_size, sizeBefore)

    // Once past the grace period, the fresh ones go too; the linked one never.
    assert.equal(await removeUnreferencedLfsObjects(t.ctx, UNREFERENCED_LFS_BATCH, Date.now() + UNREFERENCED_LFS_GRACE_MS), 2)
    assert.ok(await exists(linkedOld))
    assert.deepEqual(await storedBlob(t, linkedOld.oid), linkedOld.content)
    assert.equal(await storedBlob(t, unlinkedFresh.oid), null)
    assert.equal(await storedBlob(t, unlinkedTouched.oid), null)
  })

  it('works in batches until none is left', async () => {
    const objects: TestLfsObject[] = []
    for (let i = 0; i < 5; i++) objects.push(await makeLfsObject(t, []))
    for (const object of objects) await touch(object, pastGrace())
    assert.equal(await removeUnreferencedLfsObjects(t.ctx, 2), 2)
    assert.equal(await removeUnreferencedLfsObjects(t.ctx, 2), 2)
    assert.equal(await removeUnreferencedLfsObjects(t.ctx, 2), 1)
    assert.equal(await removeUnreferencedLfsObjects(t.ctx, 2), 0)
    for (const object of objects) {
      assert.equal(await exists(object), false)
      assert.equal(await storedBlob(t, object.oid), null)
    }
  })

  it('stops between batches when its run is aborted', async () => {
    const object = await makeLfsObject(t, [])
    await touch(object, pastGrace())
    const controller = new AbortController()
    controller.abort()
    assert.equal(await removeAllUnreferencedLfsObjects(t.ctx, controller.signal), 0)
    assert.ok(await exists(object))
    assert.equal(await removeAllUnreferencedLfsObjects(t.ctx, new AbortController().signal), 1)
  })

  it('leaves an object whose link is being made while it runs (PostgreSQL: concurrent transactions)', { skip: testDatabaseServer() === null }, async () => {
    const project = await makeProject(t, null)
    const object = await makeLfsObject(t, [])
    await touch(object, pastGrace())
    await t.ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('lfs_objects_projects').values({ lfs_object_id: object.id, project_id: project.id, created_at: Date.now() }).execute()
      // The link is not committed yet: the clean-up, on another connection, must not take its object.
      assert.equal(await removeUnreferencedLfsObjects(t.ctx), 0)
    })
    assert.ok(await exists(object))
    assert.deepEqual(await storedBlob(t, object.oid), object.content)
    assert.equal(await removeUnreferencedLfsObjects(t.ctx), 0)
  })
})
