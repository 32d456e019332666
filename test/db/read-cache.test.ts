// The read caches stay exact: any write through Kysely to a table an entry was read from makes the
// next read go to the database, including raw SQL writes and writes that land while a read is in
// flight; transactions read uncached.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser } from '../helpers/factories.js'
import { readCacheOf } from '../../src/db/read-cache.js'

describe('read caches', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const nameCache = () => readCacheOf<string>(t.ctx.db, 'test-user-names', { tables: ['users'], maxWeight: 100 })
  const loadName = (id: number) => async () => {
    const row = await t.ctx.db.selectFrom('users').select('name').where('id', '=', id).executeTakeFirstOrThrow()
    return row.name
  }

  it('serves an entry until its table is written, by builder or raw SQL', async () => {
    const { user } = await makeUser(t, { name: 'Before' })
    const cache = nameCache()
    assert.ok(cache !== null)
    let loads = 0
    const counted = async () => { loads += 1; return loadName(user.id)() }
    assert.equal(await cache.get(String(user.id), counted), 'Before')
    assert.equal(await cache.get(String(user.id), counted), 'Before')
    assert.equal(loads, 1)
    await t.ctx.db.updateTable('users').set({ name: 'After' }).where('id', '=', user.id).execute()
    assert.equal(await cache.get(String(user.id), counted), 'After')
    await sql`update users set name = ${'Raw'} where id = ${user.id}`.execute(t.ctx.db)
    assert.equal(await cache.get(String(user.id), counted), 'Raw')
    assert.equal(loads, 3)
  })

  it('does not keep a value read while a write to its table was under way', async () => {
    const { user } = await makeUser(t, { name: 'Old' })
    const cache = nameCache()!
    const stale = cache.get(String(user.id), async () => {
      const name = await loadName(user.id)()
      await t.ctx.db.updateTable('users').set({ name: 'New' }).where('id', '=', user.id).execute()
      return name
    })
    assert.equal(await stale, 'Old')
    assert.equal(await cache.get(String(user.id), loadName(user.id)), 'New')
  })

  it('ends at commit the entries read from the tables a transaction wrote, and only those', async () => {
    const { user } = await makeUser(t, { name: 'Before commit' })
    const cache = nameCache()!
    const other = readCacheOf<number>(t.ctx.db, 'test-unrelated', { tables: ['projects'], maxWeight: 10 })!
    let otherLoads = 0
    const loadOther = async () => { otherLoads += 1; return 1 }
    await other.get('key', loadOther)
    let readMeanwhile: Promise<string> | undefined
    await t.ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ name: 'After commit' }).where('id', '=', user.id).execute()
      // Another connection reads (and would cache) the old row while the transaction is open; on
      // SQLite's one connection the read waits for the commit instead.
      readMeanwhile = cache.get(String(user.id), loadName(user.id))
      if (t.ctx.dialect === 'postgres') assert.equal(await readMeanwhile, 'Before commit')
    })
    await readMeanwhile
    assert.equal(await cache.get(String(user.id), loadName(user.id)), 'After commit')
    await other.get('key', loadOther)
    assert.equal(otherLoads, 1, 'an entry of a table the transaction did not write outlives its commit')
  })

  it('gives transactions no cache, so they read their own writes', async () => {
    await t.ctx.db.transaction().execute(async (trx) => {
      assert.equal(readCacheOf(trx, 'test-user-names', { tables: ['users'], maxWeight: 1 }), null)
    })
  })

  it('answers with a changed membership at once', async () => {
    const owner = await makeUser(t)
    const outsider = await makeUser(t)
    const created = await t.api('POST', '/projects', { token: owner.token, body: { name: 'cached-access' } })
    const path = `/projects/${created.body.id}`
    assert.equal((await t.api('GET', path, { token: outsider.token })).status, 404)
    await t.api('POST', `${path}/members`, { token: owner.token, body: { user_id: outsider.user.id, access_level: 20 } })
    const seen = await t.api('GET', path, { token: outsider.token })
    assert.equal(seen.status, 200)
    assert.equal(seen.body.permissions.project_access.access_level, 20)
    await t.api('DELETE', `${path}/members/${outsider.user.id}`, { token: owner.token })
    assert.equal((await t.api('GET', path, { token: outsider.token })).status, 404)
  })
})
