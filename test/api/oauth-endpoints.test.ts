// GET /oauth/token/info, POST /oauth/revoke and POST /oauth/introspect as Doorkeeper 4.3.2
// answers them: the token's owner, scopes, lifetime and application; 401 invalid_request for an
// unknown, revoked or expired token; revocation always 200 {}, done only for the token's own
// client (or anyone, for a token without application); introspection for clients and token holders.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { OAUTH_ERROR_DESCRIPTIONS } from '../../src/common/errors.js'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { clientFields, makeApplication, tokenRequest, type TestApplication } from '../helpers/oauth.js'

describe('OAuth token info, revocation and introspection', () => {
  let t: TestApp
  let alice: TestUser
  let client: TestApplication
  let other: TestApplication
  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t, { username: 'alice' })
    client = await makeApplication(t)
    other = await makeApplication(t)
  })
  after(async () => { await t.close() })

  const issue = async (fields: Record<string, string> = clientFields(client)) => {
    const res = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234', scope: 'api read_user', ...fields })
    assert.equal(res.status, 200, res.text)
    return res.body as { access_token: string; refresh_token: string; created_at: number }
  }
  const info = (token: string) => t.api('GET', '/oauth/token/info', { token: null, headers: { authorization: `Bearer ${token}` } })
  const revoke = (fields: Record<string, string>) => t.api('POST', '/oauth/revoke', { token: null, form: new URLSearchParams(fields).toString() })
  const works = async (token: string) => (await t.api('GET', '/user', { token: null, headers: { authorization: `Bearer ${token}` } })).status === 200

  describe('GET /oauth/token/info', () => {
    it('describes a live token', async () => {
      const issued = await issue()
      const res = await info(issued.access_token)
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, {
        resource_owner_id: alice.user.id, scopes: ['api', 'read_user'], expires_in_seconds: null,
        application: { uid: client.uid }, created_at: issued.created_at,
      })
      const byParam = await t.api('GET', '/oauth/token/info', { token: null, query: { access_token: issued.access_token } })
      assert.deepEqual(byParam.body, res.body)
    })

    it('refuses an unknown, revoked or expired token, or none (401 invalid_request)', async () => {
      const revoked = await issue()
      await revoke({ token: revoked.access_token, ...clientFields(client) })
      const expired = await issue()
      await t.ctx.db.updateTable('access_tokens').set({ expires_at: Date.now() - 1000 }).where('application_id', '=', client.application.id)
        .where('revoked', '=', 0).execute()
      for (const token of ['nope', revoked.access_token, expired.access_token, alice.token]) {
        const res = await info(token)
        assert.equal(res.status, 401, token)
        assert.deepEqual(res.body, { error: 'invalid_request', error_description: OAUTH_ERROR_DESCRIPTIONS.invalid_request })
      }
      assert.equal((await t.api('GET', '/oauth/token/info', { token: null })).status, 401)
    })
  })

  describe('POST /oauth/revoke', () => {
    it('revokes an access token (and its refresh token) for its own client', async () => {
      const issued = await issue()
      const res = await revoke({ token: issued.access_token, ...clientFields(client) })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, {})
      assert.equal(await works(issued.access_token), false)
      assert.equal((await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: issued.refresh_token })).status, 401)
    })

    it('revokes by the refresh token too, with the client in HTTP Basic', async () => {
      const issued = await issue()
      const res = await t.api('POST', '/oauth/revoke', {
        token: null, form: `token=${issued.refresh_token}`,
        headers: { authorization: `Basic ${Buffer.from(`${client.uid}:${client.secret}`).toString('base64')}` },
      })
      assert.equal(res.status, 200)
      assert.equal(await works(issued.access_token), false)
    })

    it('answers 200 {} but revokes nothing for another client, a wrong secret or no client', async () => {
      const issued = await issue()
      for (const fields of [clientFields(other), { client_id: client.uid, client_secret: 'wrong' }, {}]) {
        const res = await revoke({ token: issued.access_token, ...fields })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, {})
      }
      assert.equal(await works(issued.access_token), true)
    })

    it('revokes a token without application for anyone who holds it; unknown tokens are 200 {} too', async () => {
      const issued = await issue({})
      assert.equal((await revoke({ token: issued.access_token })).status, 200)
      assert.equal(await works(issued.access_token), false)
      for (const fields of [{ token: 'unknown' }, {}, { 'token[]': 'x' }] as Record<string, string>[]) {
        const res = await revoke(fields)
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, {})
      }
    })

    it('never revokes a personal access token', async () => {
      await revoke({ token: alice.token })
      assert.equal((await t.api('GET', '/user', { token: alice.token })).status, 200)
    })
  })

  describe('POST /oauth/introspect', () => {
    it('tells an authenticated client whether a token is active', async () => {
      const issued = await issue()
      const res = await t.api('POST', '/oauth/introspect', { token: null, form: new URLSearchParams({ token: issued.access_token, ...clientFields(other) }).toString() })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, { active: true, scope: 'api read_user', client_id: client.uid, token_type: 'bearer', iat: issued.created_at })
      const inactive = await t.api('POST', '/oauth/introspect', { token: null, form: new URLSearchParams({ token: 'nope', ...clientFields(client) }).toString() })
      assert.deepEqual(inactive.body, { active: false })
    })

    it('takes a live bearer token instead of a client, and refuses anyone else (401 invalid_client)', async () => {
      const issued = await issue()
      const byBearer = await t.api('POST', '/oauth/introspect', { token: null, form: `token=${issued.access_token}`, headers: { authorization: `Bearer ${issued.access_token}` } })
      assert.equal(byBearer.body.active, true)
      const refused = await t.api('POST', '/oauth/introspect', { token: null, form: `token=${issued.access_token}` })
      assert.equal(refused.status, 401)
      assert.equal(refused.body.error, 'invalid_client')
    })
  })
})
