// SSH keys: the current user's keys (list, read, add, delete), any user's keys (list for anyone,
// add and delete for administrators), key parsing of every supported type, fingerprint
// uniqueness and the key restriction settings.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeToken, makeUser, type TestUser } from '../helpers/factories.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { fingerprintOf, makeKey, type KeySpec } from '../helpers/public-keys.js'
import { keyRestrictionErrors, parseSshPublicKey } from '../../src/services/ssh-keys/add-ssh-key.js'
import { DEFAULT_SETTINGS } from '../../src/services/settings.js'

const KEY_FIELDS = ['created_at', 'id', 'key', 'title']

describe('SSH keys API', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const addKey = (user: TestUser, title: string, key: string = makeKey()) =>
    t.api('POST', '/user/keys', { token: user.token, body: { title, key } })

  describe('POST /user/keys', () => {
    it('adds a key of every supported type and answers it', async () => {
      const me = await makeUser(t)
      const specs: KeySpec[] = [
        { type: 'rsa', bits: 2048 }, { type: 'dsa' }, { type: 'ec', curve: 'P-256' }, { type: 'ec', curve: 'P-384' },
        { type: 'ec', curve: 'P-521' }, { type: 'ed25519' },
      ]
      for (const spec of specs) {
        const key = makeKey(spec)
        const res = await addKey(me, `key ${JSON.stringify(spec)}`, key)
        assert.equal(res.status, 201, res.text)
        assert.deepEqual(Object.keys(res.body).sort(), KEY_FIELDS)
        assert.equal(res.body.key, key)
        assert.equal(res.body.title, `key ${JSON.stringify(spec)}`)
        assert.match(res.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        const row = await t.ctx.db.selectFrom('ssh_keys').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
        assert.equal(row.user_id, me.user.id)
        assert.equal(row.fingerprint, fingerprintOf(key))
      }
    })

    it('joins a key pasted across lines and keeps its comment', async () => {
      const me = await makeUser(t)
      const key = makeKey({ type: 'rsa', bits: 2048 }, 'laptop key')
      const [algorithm, blob] = key.split(' ') as [string, string]
      const pasted = `  ${algorithm} ${blob.slice(0, 100)}\n${blob.slice(100)}\n laptop key \n`
      const res = await addKey(me, 'pasted', pasted)
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.key, `${algorithm} ${blob} laptop key`)
    })

    it('answers 400 for an invalid key, a taken fingerprint and missing or blank fields', async () => {
      const me = await makeUser(t)
      for (const key of ['ssh-rsa AAAAB3NzaC1yc2E', 'not a key at all', `ssh-dss ${makeKey({ type: 'rsa', bits: 1024 }).split(' ')[1]}`]) {
        const res = await addKey(me, 'bad', key)
        assert.equal(res.status, 400, key)
        assert.deepEqual(res.body, { message: { key: ['is invalid'] } })
      }
      const key = makeKey()
      assert.equal((await addKey(me, 'first', key)).status, 201)
      const other = await makeUser(t)
      const taken = await addKey(other, 'again', key.replace('someone@example.com', 'other comment'))
      assert.equal(taken.status, 400)
      assert.deepEqual(taken.body, { message: { fingerprint: ['has already been taken'] } })
      assert.deepEqual((await t.api('POST', '/user/keys', { token: me.token, body: { key: makeKey() } })).body, { error: 'title is missing' })
      assert.deepEqual((await t.api('POST', '/user/keys', { token: me.token, body: { title: 'x' } })).body, { error: 'key is missing' })
      const blank = await addKey(me, ' ', '')
      assert.deepEqual(blank.body, { message: { title: ["can't be blank"], key: ["can't be blank"] } })
      const longTitle = await addKey(me, 'x'.repeat(256))
      assert.deepEqual(longTitle.body, { message: { title: ['is too long (maximum is 255 characters)'] } })
    })

    it('answers 401 without credentials', async () => {
      const res = await t.api('POST', '/user/keys', { token: null, body: { title: 'x', key: makeKey() } })
      assert.equal(res.status, 401)
    })
  })

  describe('GET /user/keys', () => {
    it("lists the caller's keys, oldest first, paginated", async () => {
      const me = await makeUser(t)
      const ids: number[] = []
      for (const title of ['one', 'two', 'three']) ids.push((await addKey(me, title)).body.id)
      await addKey(await makeUser(t), 'not mine')
      const res = await t.api('GET', '/user/keys', { token: me.token })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body.map((k: { id: number }) => k.id), ids)
      assert.deepEqual(Object.keys(res.body[0]).sort(), KEY_FIELDS)
      await expectPaginates({ t, path: '/user/keys', token: me.token, total: 3 })
      await expectRejectsBadPagination(t, '/user/keys', me.token)
    })

    it('answers 401 without credentials, and takes a read_user token', async () => {
      assert.equal((await t.api('GET', '/user/keys', { token: null })).status, 401)
      const me = await makeUser(t)
      const readUser = await makeToken(t, me.user.id, ['read_user'])
      assert.equal((await t.api('GET', '/user/keys', { token: readUser.token })).status, 200)
      const write = await t.api('POST', '/user/keys', { token: readUser.token, body: { title: 'x', key: makeKey() } })
      assert.equal(write.status, 403)
      assert.equal(write.body.error, 'insufficient_scope')
    })
  })

  describe('GET and DELETE /user/keys/:key_id', () => {
    it('reads and deletes an own key; another user\'s key is 404', async () => {
      const me = await makeUser(t)
      const other = await makeUser(t)
      const mine = (await addKey(me, 'mine')).body
      const theirs = (await addKey(other, 'theirs')).body
      const read = await t.api('GET', `/user/keys/${mine.id}`, { token: me.token })
      assert.equal(read.status, 200)
      assert.deepEqual(read.body, mine)
      for (const method of ['GET', 'DELETE']) {
        const res = await t.api(method, `/user/keys/${theirs.id}`, { token: me.token })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { message: '404 Key Not Found' })
      }
      const deleted = await t.api('DELETE', `/user/keys/${mine.id}`, { token: me.token })
      assert.equal(deleted.status, 204)
      assert.equal(await t.ctx.db.selectFrom('ssh_keys').select('id').where('id', '=', mine.id).executeTakeFirst(), undefined)
      assert.equal((await t.api('GET', `/user/keys/${mine.id}`, { token: me.token })).status, 404)
      assert.deepEqual((await t.api('GET', '/user/keys/abc', { token: me.token })).body, { error: 'key_id is invalid' })
      assert.equal((await t.api('DELETE', `/user/keys/${theirs.id}`, { token: null })).status, 401)
    })
  })

  describe('GET /users/:id/keys', () => {
    it("lists any user's keys to anyone, paginated", async () => {
      const owner = await makeUser(t)
      for (const title of ['a', 'b', 'c']) await addKey(owner, title)
      const res = await t.api('GET', `/users/${owner.user.id}/keys`, { token: null })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body.map((k: { title: string }) => k.title), ['a', 'b', 'c'])
      await expectPaginates({ t, path: `/users/${owner.user.id}/keys`, token: null, total: 3 })
      const missing = await t.api('GET', '/users/999999/keys')
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { message: '404 User Not Found' })
    })
  })

  describe('POST /users/:id/keys', () => {
    it('lets administrators add a key to a user', async () => {
      const owner = await makeUser(t)
      const key = makeKey()
      const res = await t.api('POST', `/users/${owner.user.id}/keys`, { body: { title: 'by admin', key } })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.key, key)
      const row = await t.ctx.db.selectFrom('ssh_keys').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
      assert.equal(row.user_id, owner.user.id)
      const invalid = await t.api('POST', `/users/${owner.user.id}/keys`, { body: { title: 'bad', key: 'ssh-rsa nope' } })
      assert.deepEqual(invalid.body, { message: { key: ['is invalid'] } })
    })

    it('is for administrators only, and 404 for missing users', async () => {
      const owner = await makeUser(t)
      const denied = await t.api('POST', `/users/${owner.user.id}/keys`, { token: owner.token, body: { title: 'x', key: makeKey() } })
      assert.equal(denied.status, 403)
      assert.deepEqual(denied.body, { message: '403 Forbidden' })
      assert.equal((await t.api('POST', `/users/${owner.user.id}/keys`, { token: null, body: { title: 'x', key: makeKey() } })).status, 401)
      const missing = await t.api('POST', '/users/999999/keys', { body: { title: 'x', key: makeKey() } })
      assert.equal(missing.status, 404)
    })
  })

  describe('DELETE /users/:id/keys/:key_id', () => {
    it("lets administrators delete a user's key", async () => {
      const owner = await makeUser(t)
      const key = (await addKey(owner, 'doomed')).body
      const other = await makeUser(t)
      const wrongUser = await t.api('DELETE', `/users/${other.user.id}/keys/${key.id}`)
      assert.equal(wrongUser.status, 404)
      assert.deepEqual(wrongUser.body, { message: '404 Key Not Found' })
      assert.equal((await t.api('DELETE', `/users/${owner.user.id}/keys/${key.id}`, { token: owner.token })).status, 403)
      assert.equal((await t.api('DELETE', `/users/${owner.user.id}/keys/${key.id}`, { token: null })).status, 401)
      assert.equal((await t.api('DELETE', `/users/999999/keys/${key.id}`)).status, 404)
      const res = await t.api('DELETE', `/users/${owner.user.id}/keys/${key.id}`)
      assert.equal(res.status, 204)
      assert.equal(await t.ctx.db.selectFrom('ssh_keys').select('id').where('id', '=', key.id).executeTakeFirst(), undefined)
    })
  })
})

describe('SSH key parsing and restrictions', () => {
  it('reads type, size and fingerprint of every supported type', async () => {
    const cases: [KeySpec, string, number][] = [
      [{ type: 'rsa', bits: 1024 }, 'rsa', 1024], [{ type: 'dsa' }, 'dsa', 1024], [{ type: 'ec', curve: 'P-256' }, 'ecdsa', 256],
      [{ type: 'ec', curve: 'P-384' }, 'ecdsa', 384], [{ type: 'ec', curve: 'P-521' }, 'ecdsa', 521], [{ type: 'ed25519' }, 'ed25519', 256],
    ]
    for (const [spec, type, bits] of cases) {
      const line = makeKey(spec)
      const parsed = await parseSshPublicKey(line)
      assert.deepEqual(parsed, { key: line, type, bits, fingerprint: fingerprintOf(line) })
    }
    assert.equal(await parseSshPublicKey(''), null)
    assert.equal(await parseSshPublicKey('ssh-ed25519'), null)
  })

  it('applies the key restriction settings: 0 any size, -1 forbidden, N minimum bits', () => {
    const settings = { ...DEFAULT_SETTINGS, restricted_visibility_levels: [] }
    assert.deepEqual(keyRestrictionErrors({ type: 'rsa', bits: 1024 }, settings), [])
    assert.deepEqual(keyRestrictionErrors({ type: 'rsa', bits: 1024 }, { ...settings, rsa_key_restriction: 2048 }), ['must be at least 2048 bits'])
    assert.deepEqual(keyRestrictionErrors({ type: 'rsa', bits: 4096 }, { ...settings, rsa_key_restriction: 2048 }), [])
    assert.deepEqual(keyRestrictionErrors({ type: 'dsa', bits: 1024 }, { ...settings, dsa_key_restriction: -1 }),
      ['type is forbidden. Must be RSA, ECDSA, or ED25519'])
    assert.deepEqual(keyRestrictionErrors({ type: 'dsa', bits: 1024 }, { ...settings, dsa_key_restriction: -1, ecdsa_key_restriction: -1 }),
      ['type is forbidden. Must be RSA or ED25519'])
    assert.deepEqual(keyRestrictionErrors({ type: 'ed25519', bits: 256 }, { ...settings, ed25519_key_restriction: 384 }),
      ['must be at least 384 bits'])
  })
})
