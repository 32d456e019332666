// POST /oauth/token as Doorkeeper 4.3.2 answers it: each grant (authorization_code, password,
// refresh_token, client_credentials), the client in the body or HTTP Basic, form and JSON bodies,
// every error (401, Doorkeeper's texts and WWW-Authenticate), refresh rotation, the token lifetime
// setting, password_authentication_enabled_for_git, and password failures counting towards bans.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { OAUTH_ERROR_DESCRIPTIONS, type OauthErrorCode } from '../../src/common/errors.js'
import { buildTestApp, type ApiResponse, type TestApp } from '../helpers/app.js'
import { blockUser, makeUser, type TestUser } from '../helpers/factories.js'
import { Browser } from '../web/browser.js'
import {
  REDIRECT_URI, authorizeCode, clientFields, makeApplication, tokenRequest, type TestApplication,
} from '../helpers/oauth.js'

function assertOauthError(res: ApiResponse, error: OauthErrorCode): void {
  assert.equal(res.status, 401, res.text)
  assert.deepEqual(res.body, { error, error_description: OAUTH_ERROR_DESCRIPTIONS[error] })
  assert.equal(res.headers['www-authenticate'], `Bearer realm="Doorkeeper", error="${error}", error_description="${OAUTH_ERROR_DESCRIPTIONS[error]}"`)
  assert.equal(res.headers['cache-control'], 'no-store')
}

function assertTokenAnswer(res: ApiResponse, scope: string, options: { refresh?: boolean } = {}): void {
  assert.equal(res.status, 200, res.text)
  assert.equal(res.headers['cache-control'], 'no-store')
  assert.equal(res.headers.pragma, 'no-cache')
  assert.match(res.body.access_token, /^[0-9a-f]{64}$/)
  assert.equal(res.body.token_type, 'bearer')
  assert.equal(res.body.scope, scope)
  assert.equal(typeof res.body.created_at, 'number')
  assert.ok(Math.abs(res.body.created_at - Date.now() / 1000) < 60)
  assert.equal('expires_in' in res.body, false)
  if (options.refresh !== false) assert.match(res.body.refresh_token, /^[0-9a-f]{64}$/)
  else assert.equal('refresh_token' in res.body, false)
}

describe('POST /oauth/token', () => {
  let t: TestApp
  let alice: TestUser
  let client: TestApplication
  let browser: Browser
  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t, { username: 'alice' })
    client = await makeApplication(t)
    browser = new Browser(t)
    await browser.signIn('alice')
  })
  after(async () => { await t.close() })

  const whoAmI = (token: string) => t.api('GET', '/user', { token: null, headers: { authorization: `Bearer ${token}` } })

  describe('errors', () => {
    it('without grant_type: invalid_request; an unknown one: unsupported_grant_type', async () => {
      assertOauthError(await tokenRequest(t, {}), 'invalid_request')
      assertOauthError(await tokenRequest(t, { grant_type: 'implicit' }), 'unsupported_grant_type')
      assertOauthError(await tokenRequest(t, { grant_type: 'nonsense' }), 'unsupported_grant_type')
    })

    it('never a 500 for parameters of the wrong shape', async () => {
      for (const form of ['grant_type[]=password', 'grant_type[a]=b&code[]=1', 'grant_type=password&username[x]=1&password[]=2', '%%%']) {
        const res = await t.api('POST', '/oauth/token', { token: null, form })
        assert.ok(res.status >= 400 && res.status < 500, `${form}: ${res.status} ${res.text}`)
      }
      const json = await t.api('POST', '/oauth/token', { token: null, body: { grant_type: 42, code: { a: 1 } } })
      assertOauthError(json, 'invalid_request')
    })

    it('carries no state: token requests have none (Doorkeeper adds it to authorization errors only)', async () => {
      const res = await tokenRequest(t, { grant_type: 'nonsense', state: 'abc' })
      assert.equal(res.body.state, undefined)
    })
  })

  describe('authorization_code', () => {
    it('exchanges a code once, for the client and redirect URI it was issued to', async () => {
      const code = await authorizeCode(browser, client)
      const res = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...clientFields(client) })
      assertTokenAnswer(res, 'api')
      assert.equal((await whoAmI(res.body.access_token)).body.username, 'alice')
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...clientFields(client) }), 'invalid_grant')
    })

    it('takes the client from HTTP Basic and a JSON body', async () => {
      const code = await authorizeCode(browser, client, { scope: 'read_user' })
      const res = await t.api('POST', '/oauth/token', {
        token: null,
        body: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
        headers: { authorization: `Basic ${Buffer.from(`${client.uid}:${client.secret}`).toString('base64')}` },
      })
      assertTokenAnswer(res, 'read_user')
    })

    it('refuses a missing code or redirect URI, a wrong client or secret, a code of another client or redirect URI, an expired code', async () => {
      const other = await makeApplication(t, { redirectUri: `${REDIRECT_URI}\nhttps://client.example/other` })
      const code = await authorizeCode(browser, client)
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, ...clientFields(client) }), 'invalid_request')
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', code, ...clientFields(client) }), 'invalid_request')
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }), 'invalid_client')
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: client.uid, client_secret: 'x' }), 'invalid_client')
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }, { basic: [client.uid, other.secret] }), 'invalid_client')
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...clientFields(other) }), 'invalid_grant')
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: 'https://client.example/other', ...clientFields(client) }), 'invalid_grant')
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', code: 'f'.repeat(64), redirect_uri: REDIRECT_URI, ...clientFields(client) }), 'invalid_grant')
      // Still unused after all that: the code works once.
      assertTokenAnswer(await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...clientFields(client) }), 'api')

      const expired = await authorizeCode(browser, client)
      await t.ctx.db.updateTable('oauth_access_grants').set({ expires_at: Date.now() - 1 }).where('used_at', 'is', null).execute()
      assertOauthError(await tokenRequest(t, { grant_type: 'authorization_code', code: expired, redirect_uri: REDIRECT_URI, ...clientFields(client) }), 'invalid_grant')
      await authorizeCode(browser, client)
      const leftover = await t.ctx.db.selectFrom('oauth_access_grants').select('id').where('expires_at', '<=', Date.now()).execute()
      assert.deepEqual(leftover, [], 'making a code removes the expired ones')
    })

    it('stores codes and tokens as digests only', async () => {
      const code = await authorizeCode(browser, client)
      const res = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...clientFields(client) })
      const grants = await t.ctx.db.selectFrom('oauth_access_grants').select('code_digest').execute()
      assert.ok(grants.every((g) => g.code_digest !== code))
      const rows = await t.ctx.db.selectFrom('access_tokens').select(['token_digest', 'refresh_token_digest']).where('kind', '=', 'oauth').execute()
      assert.ok(rows.every((r) => r.token_digest !== res.body.access_token && r.refresh_token_digest !== res.body.refresh_token))
    })

    it('issues a new token for each grant (tokens are digests, so none is reused)', async () => {
      const first = await tokenRequest(t, { grant_type: 'authorization_code', code: await authorizeCode(browser, client), redirect_uri: REDIRECT_URI, ...clientFields(client) })
      const second = await tokenRequest(t, { grant_type: 'authorization_code', code: await authorizeCode(browser, client), redirect_uri: REDIRECT_URI, ...clientFields(client) })
      assert.notEqual(first.body.access_token, second.body.access_token)
      assert.equal((await whoAmI(first.body.access_token)).status, 200)
    })
  })

  describe('password', () => {
    it('issues a token for a user and password, with or without a client', async () => {
      const res = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234' })
      assertTokenAnswer(res, 'api')
      assert.equal((await whoAmI(res.body.access_token)).body.username, 'alice')
      const info = await t.api('GET', '/oauth/token/info', { token: null, headers: { authorization: `Bearer ${res.body.access_token}` } })
      assert.deepEqual(info.body.application, { uid: null })

      const withClient = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234', scope: 'read_user openid', ...clientFields(client) })
      assertTokenAnswer(withClient, 'read_user openid')
    })

    it('refuses a wrong password, an unknown user, a blocked user, a user with two-factor authentication: invalid_grant', async () => {
      assertOauthError(await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'wrong' }), 'invalid_grant')
      assertOauthError(await tokenRequest(t, { grant_type: 'password', username: 'nobody', password: 'password1234' }), 'invalid_grant')
      assertOauthError(await tokenRequest(t, { grant_type: 'password' }), 'invalid_grant')
      const blocked = await makeUser(t)
      await blockUser(t, blocked.user.id)
      assertOauthError(await tokenRequest(t, { grant_type: 'password', username: blocked.user.username, password: 'password1234' }), 'invalid_grant')
      const secured = await makeUser(t)
      await t.ctx.db.updateTable('users').set({ two_factor_enabled: 1 }).where('id', '=', secured.user.id).execute()
      assertOauthError(await tokenRequest(t, { grant_type: 'password', username: secured.user.username, password: 'password1234' }), 'invalid_grant')
    })

    it('refuses a client that does not authenticate, and scopes beyond the server\'s or the client\'s', async () => {
      assertOauthError(await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234', client_id: client.uid }), 'invalid_client')
      assertOauthError(await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234', scope: 'write_repository' }), 'invalid_scope')
      assertOauthError(await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234', scope: 'sudo', ...clientFields(client) }), 'invalid_scope')
    })

    it('is refused while password_authentication_enabled_for_git is off', async () => {
      await t.api('PUT', '/application/settings', { body: { password_authentication_enabled_for_git: false } })
      try {
        assertOauthError(await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234' }), 'invalid_grant')
      } finally {
        await t.api('PUT', '/application/settings', { body: { password_authentication_enabled_for_git: true } })
      }
      assertTokenAnswer(await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234' }), 'api')
    })
  })

  describe('refresh_token', () => {
    it('rotates: the old access and refresh tokens stop working at once; a subset of the scopes may be asked', async () => {
      const first = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234', scope: 'api read_user', ...clientFields(client) })
      const second = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, ...clientFields(client) })
      assertTokenAnswer(second, 'api read_user')
      assert.notEqual(second.body.refresh_token, first.body.refresh_token)
      assert.equal((await whoAmI(first.body.access_token)).status, 401)
      assert.equal((await whoAmI(second.body.access_token)).status, 200)
      assertOauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, ...clientFields(client) }), 'invalid_grant')

      const narrowed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: second.body.refresh_token, scope: 'read_user' })
      assertTokenAnswer(narrowed, 'read_user')
      assertOauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: narrowed.body.refresh_token, scope: 'api' }), 'invalid_scope')
    })

    it('refuses a missing or unknown refresh token, and another client', async () => {
      assertOauthError(await tokenRequest(t, { grant_type: 'refresh_token' }), 'invalid_request')
      assertOauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'nope' }), 'invalid_grant')
      const other = await makeApplication(t)
      const issued = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234', ...clientFields(client) })
      assertOauthError(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token, ...clientFields(other) }), 'invalid_client')
    })

    it('gives one new pair when the same refresh token is sent twice at once', async () => {
      const issued = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234' })
      const answers = await Promise.all([1, 2].map(() => tokenRequest(t, { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token })))
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401])
    })
  })

  describe('client_credentials', () => {
    it('issues a token of the application alone (no refresh token), which the API refuses', async () => {
      const res = await tokenRequest(t, { grant_type: 'client_credentials', scope: 'api' }, { basic: [client.uid, client.secret] })
      assertTokenAnswer(res, 'api', { refresh: false })
      assert.equal((await whoAmI(res.body.access_token)).status, 401)
      const info = await t.api('GET', '/oauth/token/info', { token: null, query: { access_token: res.body.access_token } })
      assert.equal(info.status, 200, info.text)
      assert.equal(info.body.resource_owner_id, null)
      assert.deepEqual(info.body.application, { uid: client.uid })
    })

    it('needs the client, and the client\'s scopes', async () => {
      assertOauthError(await tokenRequest(t, { grant_type: 'client_credentials' }), 'invalid_client')
      assertOauthError(await tokenRequest(t, { grant_type: 'client_credentials', client_id: client.uid, client_secret: 'wrong' }), 'invalid_client')
      assertOauthError(await tokenRequest(t, { grant_type: 'client_credentials', scope: 'sudo', ...clientFields(client) }), 'invalid_scope')
    })
  })

  describe('oauth_access_token_expires_in', () => {
    it('gives new tokens a lifetime (expires_in), after which they stop working', async () => {
      const set = await t.api('PUT', '/application/settings', { body: { oauth_access_token_expires_in: 7200 } })
      assert.equal(set.status, 200, set.text)
      assert.equal(set.body.oauth_access_token_expires_in, 7200)
      try {
        const res = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234' })
        assert.equal(res.body.expires_in, 7200)
        const info = await t.api('GET', '/oauth/token/info', { token: null, query: { access_token: res.body.access_token } })
        assert.ok(info.body.expires_in_seconds > 7100 && info.body.expires_in_seconds <= 7200)
        await t.ctx.db.updateTable('access_tokens').set({ expires_at: Date.now() - 1 }).where('expires_at', 'is not', null).where('kind', '=', 'oauth').execute()
        assert.equal((await whoAmI(res.body.access_token)).status, 401)
        // An expired access token may still be refreshed; the new one has the lifetime too.
        const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: res.body.refresh_token })
        assert.equal(refreshed.status, 200, refreshed.text)
        assert.equal(refreshed.body.expires_in, 7200)
        assert.equal((await whoAmI(refreshed.body.access_token)).status, 200)
      } finally {
        await t.api('PUT', '/application/settings', { body: { oauth_access_token_expires_in: 0 } })
      }
    })
  })

  it('counts password failures towards a ban of the address, as git does', async () => {
    const banned = await buildTestApp({ env: { INGOT_SIGN_IN_BAN_MAXRETRY: '3', INGOT_SIGN_IN_BAN_IP_WHITELIST: 'none' } })
    try {
      await makeUser(banned, { username: 'bob' })
      const request = (password: string) => banned.app.inject({
        method: 'POST', url: '/oauth/token', remoteAddress: '10.3.0.1',
        payload: { grant_type: 'password', username: 'bob', password },
      })
      for (let i = 0; i < 3; i++) assert.equal((await request('wrong')).statusCode, 401)
      const after = await request('password1234')
      assert.equal(after.statusCode, 403, 'the address is banned')
    } finally {
      await banned.close()
    }
  })

  it('leaves alice a working personal token', async () => {
    assert.equal((await t.api('GET', '/user', { token: alice.token })).status, 200)
  })
})
