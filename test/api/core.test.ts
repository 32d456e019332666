// Health, version, unknown routes, token carriers, scopes, sudo and the error shapes they answer.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, ROOT_TOKEN, type TestApp } from '../helpers/app.js'
import { blockUser, makeToken, makeUser } from '../helpers/factories.js'

describe('platform core', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  it('answers liveness and readiness without credentials', async () => {
    assert.equal((await t.api('GET', '/-/liveness', { token: null })).status, 200)
    const ready = await t.api('GET', '/-/readiness', { token: null })
    assert.equal(ready.status, 200)
    assert.equal(ready.body.status, 'ok')
  })

  it('names the compatible API release on /version', async () => {
    const res = await t.api('GET', '/version')
    assert.equal(res.status, 200)
    assert.equal(res.body.version, '11.5.0')
    assert.equal(typeof res.body.revision, 'string')
  })

  it('answers /metadata in the newer clients\' shape', async () => {
    const res = await t.api('GET', '/metadata')
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body).sort(), ['enterprise', 'kas', 'revision', 'version'])
    assert.equal(res.body.version, '11.5.0')
    assert.equal(res.body.kas.enabled, false)
  })

  it('sends JSON as application/json exactly, errors included (python-gitlab 3 compares the whole header)', async () => {
    for (const [path, token] of [['/version', undefined], ['/projects/999999', undefined], ['/version', null], ['/no-such-route', undefined]] as const) {
      const res = await t.api('GET', path, { token })
      assert.equal(res.headers['content-type'], 'application/json', `${path}: ${res.status}`)
    }
  })

  it('answers 401 on /version without credentials', async () => {
    const res = await t.api('GET', '/version', { token: null })
    assert.equal(res.status, 401)
    assert.deepEqual(res.body, { message: '401 Unauthorized' })
  })

  it('answers unknown routes with {"error":"404 Not Found"}', async () => {
    const res = await t.api('GET', '/no/such/route')
    assert.equal(res.status, 404)
    assert.deepEqual(res.body, { error: '404 Not Found' })
  })

  it('accepts every token carrier', async () => {
    const viaQuery = await t.api('GET', '/version', { token: null, query: { private_token: ROOT_TOKEN } })
    const viaBearer = await t.api('GET', '/version', { token: null, headers: { authorization: `Bearer ${ROOT_TOKEN}` } })
    const viaAccessToken = await t.api('GET', '/version', { token: null, query: { access_token: ROOT_TOKEN } })
    assert.deepEqual([viaQuery.status, viaBearer.status, viaAccessToken.status], [200, 200, 200])
  })

  it('answers 401 for an unknown token', async () => {
    const res = await t.api('GET', '/version', { token: 'not-a-real-token-000000' })
    assert.equal(res.status, 401)
    assert.deepEqual(res.body, { message: '401 Unauthorized' })
  })

  it('answers invalid_token for expired and revoked tokens', async () => {
    const { user } = await makeUser(t)
    const expired = await makeToken(t, user.id, ['api'], Date.now() - 1000)
    const res = await t.api('GET', '/version', { token: expired.token })
    assert.equal(res.status, 401)
    assert.deepEqual(res.body, { error: 'invalid_token', error_description: 'Token has expired.' })
    const revoked = await makeToken(t, user.id, ['api'])
    await t.ctx.db.updateTable('access_tokens').set({ revoked: 1 }).where('id', '=', revoked.row.id).execute()
    const res2 = await t.api('GET', '/version', { token: revoked.token })
    assert.equal(res2.status, 401)
    assert.equal(res2.body.error, 'invalid_token')
  })

  it('answers insufficient_scope when the token lacks the route scope', async () => {
    const { user } = await makeUser(t)
    const readUser = await makeToken(t, user.id, ['read_user'])
    const res = await t.api('GET', '/version', { token: readUser.token })
    assert.equal(res.status, 403)
    assert.deepEqual(res.body, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api',
    })
  })

  it('refuses blocked users', async () => {
    const blocked = await makeUser(t)
    await blockUser(t, blocked.user.id)
    const res = await t.api('GET', '/version', { token: blocked.token })
    assert.equal(res.status, 403)
    assert.deepEqual(res.body, { message: '403 Forbidden - User is blocked' })
  })

  // Token owners and list answers are cached per process: a write through the API ends them at once.
  it('refuses a token at once once it is revoked, or its user blocked, after answers were cached', async () => {
    const { user } = await makeUser(t)
    const created = await t.api('POST', `/users/${user.id}/impersonation_tokens`, { body: { name: 'cached', scopes: ['api'] } })
    assert.equal(created.status, 201)
    const token = created.body.token as string
    for (let i = 0; i < 2; i++) assert.equal((await t.api('GET', '/projects?per_page=20', { token })).status, 200)
    assert.equal((await t.api('DELETE', `/users/${user.id}/impersonation_tokens/${created.body.id}`)).status, 204)
    const revoked = await t.api('GET', '/projects?per_page=20', { token })
    assert.equal(revoked.status, 401)
    assert.equal(revoked.body.error, 'invalid_token')

    const other = await makeUser(t)
    for (let i = 0; i < 2; i++) assert.equal((await t.api('GET', '/projects?per_page=20', { token: other.token })).status, 200)
    assert.equal((await t.api('POST', `/users/${other.user.id}/block`)).status, 201)
    const blocked = await t.api('GET', '/projects?per_page=20', { token: other.token })
    assert.equal(blocked.status, 403)
    assert.deepEqual(blocked.body, { message: '403 Forbidden - User is blocked' })
  })

  describe('request bodies', () => {
    /** A multipart/form-data payload as fetch encodes FormData (what @gitbeaker/rest sends for user updates). */
    async function multipart(fields: Record<string, string>) {
      const form = new FormData()
      for (const [name, value] of Object.entries(fields)) form.append(name, value)
      form.append('avatar', new Blob(['not read']), 'avatar.png')
      const request = new Request('http://ingot.test', { method: 'PUT', body: form })
      return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type') ?? '' }
    }

    it('reads multipart/form-data fields like form-encoded ones', async () => {
      const { payload, contentType } = await multipart({ emoji: 'coffee', message: 'multipart' })
      const res = await t.app.inject({
        method: 'PUT', url: '/api/v4/user/status', payload, headers: { 'private-token': ROOT_TOKEN, 'content-type': contentType },
      })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().emoji, 'coffee')
      assert.equal(res.json().message, 'multipart')
    })

    it('answers 400 for a malformed multipart body', async () => {
      const res = await t.app.inject({
        method: 'PUT', url: '/api/v4/user/status', payload: 'not multipart',
        headers: { 'private-token': ROOT_TOKEN, 'content-type': 'multipart/form-data; boundary=nothing-here' },
      })
      assert.equal(res.statusCode, 400)
      assert.deepEqual(res.json(), { message: 'The request body is not valid multipart/form-data' })
    })

    it('reads the parameters of a write from the query string too, the body winning a clash', async () => {
      const res = await t.api('PUT', '/user/status', { query: { emoji: 'coffee', message: 'from the query' }, body: { message: 'from the body' } })
      assert.equal(res.status, 200)
      assert.equal(res.body.emoji, 'coffee')
      assert.equal(res.body.message, 'from the body')
    })
  })

  describe('sudo', () => {
    it('acts as the target user, found by id or case-insensitive username', async () => {
      const target = await makeUser(t, { username: 'SudoTarget' })
      for (const sudo of [String(target.user.id), 'sudotarget']) {
        const res = await t.api('GET', '/version', { headers: { sudo } })
        assert.equal(res.status, 200)
      }
    })

    it('is 403 with a message for a non-admin token owner', async () => {
      const plain = await makeUser(t)
      const res = await t.api('GET', '/version', { token: plain.token, query: { sudo: '1' } })
      assert.equal(res.status, 403)
      assert.deepEqual(res.body, { message: '403 Forbidden - Must be admin to use sudo' })
    })

    it('is 403 insufficient_scope for an admin token without the sudo scope', async () => {
      const apiOnly = await makeToken(t, t.root.user.id, ['api'])
      const res = await t.api('GET', '/version', { token: apiOnly.token, query: { sudo: '1' } })
      assert.equal(res.status, 403)
      assert.equal(res.body.error, 'insufficient_scope')
      assert.equal(res.body.scope, 'sudo')
    })

    it('is 404 for an unknown target', async () => {
      const res = await t.api('GET', '/version', { headers: { sudo: 'nobody-like-this' } })
      assert.equal(res.status, 404)
      assert.deepEqual(res.body, { message: "404 User with ID or username 'nobody-like-this' Not Found" })
    })
  })
})
