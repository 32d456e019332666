// Impersonation tokens (administrators only): list with state filter, create (the token shown once,
// usable as the user), read, and revoke (kept, never usable again).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { startOfDate, today } from '../../src/db/values.js'

const TOKEN_FIELDS = ['active', 'created_at', 'expires_at', 'id', 'impersonation', 'name', 'revoked', 'scopes', 'user_id']

const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

describe('impersonation tokens API', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const create = (user: TestUser, body: Record<string, unknown> = {}) =>
    t.api('POST', `/users/${user.user.id}/impersonation_tokens`, { body: { name: 'impersonate', scopes: ['api'], ...body } })

  describe('POST /users/:user_id/impersonation_tokens', () => {
    it('creates a token, shown once, that authenticates as the user', async () => {
      const user = await makeUser(t)
      const expiresAt = dayOffset(30)
      const res = await create(user, { name: 'support', scopes: ['api', 'read_user'], expires_at: expiresAt })
      assert.equal(res.status, 201, res.text)
      const { id, created_at: createdAt, token, ...rest } = res.body
      assert.deepEqual(Object.keys(res.body).sort(), [...TOKEN_FIELDS, 'token'].sort())
      assert.equal(typeof id, 'number')
      assert.match(createdAt, /Z$/)
      assert.equal(typeof token, 'string')
      assert.deepEqual(rest, {
        name: 'support', revoked: false, scopes: ['api', 'read_user'], user_id: user.user.id, active: true,
        expires_at: expiresAt, impersonation: true,
      })
      const row = await t.ctx.db.selectFrom('access_tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
      assert.deepEqual([row.kind, row.user_id, row.expires_at], ['impersonation', user.user.id, startOfDate(expiresAt)])
      assert.notEqual(row.token_digest, token)
      const me = await t.api('GET', '/user', { token })
      assert.equal(me.status, 200)
      assert.equal(me.body.id, user.user.id)
    })

    it('takes form-encoded scopes and no expiry', async () => {
      const user = await makeUser(t)
      const res = await t.api('POST', `/users/${user.user.id}/impersonation_tokens`, {
        form: 'name=form&scopes[]=read_user&scopes[]=read_repository',
      })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body.scopes, ['read_user', 'read_repository'])
      assert.equal(res.body.expires_at, null)
      const readOnly = await t.api('GET', '/version', { token: res.body.token })
      assert.equal(readOnly.status, 403)
      assert.equal(readOnly.body.error, 'insufficient_scope')
    })

    it('answers 400 for missing or invalid parameters', async () => {
      const user = await makeUser(t)
      const path = `/users/${user.user.id}/impersonation_tokens`
      assert.deepEqual((await t.api('POST', path, { body: { scopes: ['api'] } })).body, { error: 'name is missing' })
      assert.deepEqual((await t.api('POST', path, { body: { name: 'x' } })).body, { error: 'scopes is missing' })
      assert.deepEqual((await create(user, { expires_at: '2020-13-40' })).body, { error: 'expires_at is invalid' })
      assert.deepEqual((await create(user, { scopes: ['api', 'write_everything'] })).body,
        { message: { scopes: ['can only contain available scopes'] } })
      assert.deepEqual((await create(user, { scopes: [] })).body, { message: { scopes: ["can't be blank"] } })
      assert.deepEqual((await create(user, { name: ' ' })).body, { message: { name: ["can't be blank"] } })
    })

    it('is for administrators only, and 404 for missing users', async () => {
      const user = await makeUser(t)
      const denied = await t.api('POST', `/users/${user.user.id}/impersonation_tokens`, { token: user.token, body: { name: 'x', scopes: ['api'] } })
      assert.equal(denied.status, 403)
      assert.deepEqual(denied.body, { message: '403 Forbidden' })
      assert.equal((await t.api('POST', `/users/${user.user.id}/impersonation_tokens`, { token: null, body: { name: 'x', scopes: ['api'] } })).status, 401)
      const missing = await t.api('POST', '/users/999999/impersonation_tokens', { body: { name: 'x', scopes: ['api'] } })
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { message: '404 User Not Found' })
    })
  })

  describe('GET /users/:user_id/impersonation_tokens', () => {
    it('lists the impersonation tokens, filtered by state, paginated', async () => {
      const user = await makeUser(t)
      const active = (await create(user, { name: 'active' })).body
      const revoked = (await create(user, { name: 'revoked' })).body
      const expired = (await create(user, { name: 'expired', expires_at: today() })).body
      await t.api('DELETE', `/users/${user.user.id}/impersonation_tokens/${revoked.id}`)
      const path = `/users/${user.user.id}/impersonation_tokens`
      const all = await t.api('GET', path)
      assert.equal(all.status, 200)
      assert.deepEqual(all.body.map((tk: { id: number }) => tk.id), [active.id, revoked.id, expired.id])
      assert.deepEqual(Object.keys(all.body[0]).sort(), TOKEN_FIELDS)
      assert.deepEqual(all.body.map((tk: { active: boolean }) => tk.active), [true, false, false])
      const ids = async (state: string) => (await t.api('GET', path, { query: { state } })).body.map((tk: { id: number }) => tk.id)
      assert.deepEqual(await ids('active'), [active.id])
      assert.deepEqual(await ids('inactive'), [revoked.id, expired.id])
      assert.deepEqual(await ids('all'), [active.id, revoked.id, expired.id])
      assert.deepEqual((await t.api('GET', path, { query: { state: 'expired' } })).body, { error: 'state is invalid' })
      await expectPaginates({ t, path, token: t.root.token, total: 3 })
      await expectRejectsBadPagination(t, path, t.root.token)
    })

    it('leaves out personal access tokens', async () => {
      const user = await makeUser(t)
      const res = await t.api('GET', `/users/${user.user.id}/impersonation_tokens`)
      assert.deepEqual(res.body, [])
    })

    it('is for administrators only, and 404 for missing users', async () => {
      const user = await makeUser(t)
      assert.equal((await t.api('GET', `/users/${user.user.id}/impersonation_tokens`, { token: user.token })).status, 403)
      assert.equal((await t.api('GET', `/users/${user.user.id}/impersonation_tokens`, { token: null })).status, 401)
      assert.equal((await t.api('GET', '/users/999999/impersonation_tokens')).status, 404)
    })
  })

  describe('GET /users/:user_id/impersonation_tokens/:impersonation_token_id', () => {
    it('reads one token without its value', async () => {
      const user = await makeUser(t)
      const created = (await create(user)).body
      const res = await t.api('GET', `/users/${user.user.id}/impersonation_tokens/${created.id}`)
      assert.equal(res.status, 200)
      const { token: _token, ...withoutToken } = created
      assert.deepEqual(res.body, withoutToken)
    })

    it("answers 404 for missing tokens, another user's and personal ones", async () => {
      const user = await makeUser(t)
      const other = await makeUser(t)
      const theirs = (await create(other)).body
      const personal = await t.ctx.db.selectFrom('access_tokens').select('id').where('user_id', '=', user.user.id).executeTakeFirstOrThrow()
      for (const id of [999999, theirs.id, personal.id]) {
        const res = await t.api('GET', `/users/${user.user.id}/impersonation_tokens/${id}`)
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { message: '404 Impersonation Token Not Found' })
      }
      assert.equal((await t.api('GET', `/users/${other.user.id}/impersonation_tokens/${theirs.id}`, { token: other.token })).status, 403)
    })
  })

  describe('DELETE /users/:user_id/impersonation_tokens/:impersonation_token_id', () => {
    it('revokes the token: kept, marked revoked, never usable again', async () => {
      const user = await makeUser(t)
      const created = (await create(user)).body
      assert.equal((await t.api('GET', '/user', { token: created.token })).status, 200)
      const res = await t.api('DELETE', `/users/${user.user.id}/impersonation_tokens/${created.id}`)
      assert.equal(res.status, 204)
      assert.equal(res.text, '')
      const row = await t.ctx.db.selectFrom('access_tokens').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow()
      assert.equal(row.revoked, 1)
      const refused = await t.api('GET', '/user', { token: created.token })
      assert.equal(refused.status, 401)
      assert.equal(refused.body.error, 'invalid_token')
      const read = await t.api('GET', `/users/${user.user.id}/impersonation_tokens/${created.id}`)
      assert.deepEqual([read.body.revoked, read.body.active], [true, false])
    })

    it('is for administrators only, and 404 for missing tokens', async () => {
      const user = await makeUser(t)
      const created = (await create(user)).body
      const path = `/users/${user.user.id}/impersonation_tokens/${created.id}`
      assert.equal((await t.api('DELETE', path, { token: user.token })).status, 403)
      assert.equal((await t.api('DELETE', path, { token: null })).status, 401)
      assert.equal((await t.api('DELETE', `/users/${user.user.id}/impersonation_tokens/999999`)).status, 404)
      assert.equal((await t.api('DELETE', `/users/999999/impersonation_tokens/${created.id}`)).status, 404)
    })
  })
})
