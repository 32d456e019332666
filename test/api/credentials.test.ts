// Cross-cutting: credentials stay where they belong. A token is accepted only on the carriers of
// its kind, is never written back into a response (pagination links keep every other parameter
// but drop the token), and no answer or log line shows a token or a password.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { buildTestApp, ROOT_TOKEN, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { createAccessToken } from '../../src/services/access-tokens/create-access-token.js'

describe('credentials', () => {
  let t: TestApp
  let alice: TestUser

  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t)
    for (let i = 0; i < 3; i += 1) await makeProject(t, alice, { visibility: 'public' })
  })
  after(async () => { await t.close() })

  it('refuses an OAuth token on the private token carriers, and takes it as a bearer token', async () => {
    const { token } = await createAccessToken(t.ctx.db, { userId: alice.user.id, kind: 'oauth', name: 'app', scopes: ['api'] })
    for (const options of [{ token }, { token: null, query: { private_token: token } }]) {
      const res = await t.api('GET', '/user', options)
      assert.equal(res.status, 401)
      assert.deepEqual(res.body, { message: '401 Unauthorized' })
    }
    for (const options of [{ token: null, headers: { authorization: `Bearer ${token}` } }, { token: null, query: { access_token: token } }]) {
      const res = await t.api('GET', '/user', options)
      assert.equal(res.status, 200)
      assert.equal(res.body.id, alice.user.id)
    }
  })

  it('keeps the token sent in the query string out of the pagination links', async () => {
    for (const carrier of ['private_token', 'access_token']) {
      const res = await t.api('GET', `/users/${alice.user.id}/projects`, {
        token: null, query: { [carrier]: alice.token, per_page: 1, simple: true },
      })
      assert.equal(res.status, 200)
      const link = String(res.headers.link)
      assert.ok(!link.includes(alice.token), link)
      for (const url of link.matchAll(/<([^>]+)>/g)) {
        const params = new URL(url[1] ?? '').searchParams
        assert.equal(params.get(carrier), null)
        assert.equal(params.get('simple'), 'true')
      }
    }
  })

  it('does not echo a URL the router cannot read, with the token in its query', async () => {
    for (const url of [`/api/v4/groups/%FF?private_token=${alice.token}`, `/api/v4/groups/${'x'.repeat(5000)}?private_token=${alice.token}`]) {
      const res = await t.app.inject({ method: 'GET', url })
      assert.ok(res.statusCode === 400 || res.statusCode === 414)
      assert.ok(!res.body.includes(alice.token), res.body.slice(0, 80))
    }
  })

  it('shows no token or password in answers or log lines, failed requests included', async () => {
    const lines: string[] = []
    const logged = await buildTestApp({ env: {} })
    const log = pino({ level: 'trace' }, new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done() } }))
    try {
      // The application logger of the test app is silent: listen on a second app with a capturing one.
      const { buildApp } = await import('../../src/app.js')
      const app = await buildApp({ ...logged.ctx, log })
      await app.ready()
      const password = 'a-secret-password-123'
      const requests = [
        { method: 'POST', url: `/api/v4/users?private_token=${ROOT_TOKEN}`, payload: { email: 'p@example.com', username: 'pw-user', name: 'P', password } },
        { method: 'GET', url: `/api/v4/projects?private_token=${ROOT_TOKEN}&page=0` },
        { method: 'GET', url: `/api/v4/user?access_token=${ROOT_TOKEN}` },
        { method: 'GET', url: '/api/v4/user', headers: { 'private-token': `${ROOT_TOKEN}-wrong` } },
        { method: 'GET', url: `/api/v4/groups/%FF?private_token=${ROOT_TOKEN}` },
      ] as const
      for (const request of requests) {
        const res = await app.inject(request)
        assert.ok(!res.body.includes(ROOT_TOKEN) && !res.body.includes(password), res.body)
        assert.ok(!JSON.stringify(res.headers).includes(ROOT_TOKEN))
      }
      await app.close()
    } finally {
      await logged.close()
    }
    const text = lines.join('')
    assert.ok(text.includes('"status":201'), 'the requests were logged')
    assert.ok(!text.includes(ROOT_TOKEN), 'no token in the log')
    assert.ok(!text.includes('a-secret-password-123'), 'no password in the log')
  })
})
