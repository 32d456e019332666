// Forks share LFS objects: a fork gets links of its own to its source's objects (its statistics
// count them), keeps them when the source is deleted (the source's links go with it, the objects
// stay), and objects the source gains later are not the fork's. Run on SQLite, and on PostgreSQL
// with INGOT_TEST_DATABASE_URL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../../helpers/factories.js'
import { commitFiles } from '../../helpers/git.js'
import { removeUnreferencedLfsObjects, UNREFERENCED_LFS_GRACE_MS } from '../../../src/services/lfs/lfs-cleanup.js'
import { lfsStatistics, linkedOids, makeLfsObject, storedBlob } from './lfs-fixtures.js'

describe('LFS objects of forks', () => {
  let t: TestApp
  let owner: TestUser
  let forker: TestUser

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    forker = await makeUser(t)
  })
  after(async () => { await t.close() })

  it('links the source\'s objects to the fork, counted in its statistics, and keeps them when the source goes', async () => {
    const source = await makeProject(t, owner, { visibility: 'public' })
    await commitFiles(t, source.id, { 'README.md': '# LFS\n' })
    const objects = [await makeLfsObject(t, [source.id]), await makeLfsObject(t, [source.id])]
    const other = await makeProject(t, owner)
    const unrelated = await makeLfsObject(t, [other.id])
    const totalSize = objects[0]!.size + objects[1]!.size
    assert.equal((await lfsStatistics(t, source.id)).lfs_objects_size, totalSize)

    const forked = await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token })
    assert.equal(forked.status, 201, forked.text)
    const forkId = forked.body.id as number
    assert.deepEqual(await linkedOids(t, forkId), objects.map((object) => object.oid).sort())
    assert.ok(!(await linkedOids(t, forkId)).includes(unrelated.oid))
    const statistics = await lfsStatistics(t, forkId)
    assert.equal(statistics.lfs_objects_size, totalSize)
    assert.ok(statistics.storage_size >= totalSize)
    // Each object is stored once, whichever projects link it.
    assert.equal(Number((await t.ctx.db.selectFrom('lfs_objects').select((eb) => eb.fn.countAll().as('n'))
      .where('oid', 'in', objects.map((object) => object.oid)).executeTakeFirstOrThrow()).n), 2)

    // An object the source gains after the fork is its own.
    const later = await makeLfsObject(t, [source.id])
    assert.ok(!(await linkedOids(t, forkId)).includes(later.oid))

    // The source deleted: its links go with it, the fork's stay, and the clean-up, even long after,
    // takes only what nobody links (the source's later object), never the fork's.
    assert.equal((await t.api('DELETE', `/projects/${source.id}`, { token: owner.token })).status, 202)
    assert.deepEqual(await linkedOids(t, source.id), [])
    assert.deepEqual(await linkedOids(t, forkId), objects.map((object) => object.oid).sort())
    assert.ok(await t.ctx.db.selectFrom('lfs_objects').select('id').where('oid', '=', later.oid).executeTakeFirst(), 'the objects stay until the clean-up')
    await removeUnreferencedLfsObjects(t.ctx, 1000, Date.now() + UNREFERENCED_LFS_GRACE_MS + 60_000)
    for (const object of objects) assert.deepEqual(await storedBlob(t, object.oid), object.content)
    assert.equal(await storedBlob(t, later.oid), null)
    assert.deepEqual(await storedBlob(t, unrelated.oid), unrelated.content)
    assert.equal((await lfsStatistics(t, forkId)).lfs_objects_size, totalSize)
  })

  it('forks a project without LFS objects with none', async () => {
    const source = await makeProject(t, owner, { visibility: 'public' })
    await commitFiles(t, source.id, { 'README.md': '# no LFS\n' })
    const forked = await t.api('POST', `/projects/${source.id}/fork`, { token: forker.token, body: { namespace: forker.user.username } })
    assert.equal(forked.status, 201, forked.text)
    assert.deepEqual(await linkedOids(t, forked.body.id), [])
    assert.equal((await lfsStatistics(t, forked.body.id)).lfs_objects_size, 0)
  })
})
