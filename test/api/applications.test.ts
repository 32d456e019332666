// OAuth applications (/applications, release 11.5): administrators register (the secret shown once,
// only its digest stored), list (no secret) and delete them; everyone else gets 403, anonymous 401.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { tokenDigest } from '../../src/auth/secrets.js'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { createApplication } from '../../src/services/oauth/applications.js'
import { issueUserToken } from '../../src/services/oauth/tokens.js'

describe('Applications API', () => {
  let t: TestApp
  let user: TestUser
  before(async () => {
    t = await buildTestApp()
    user = await makeUser(t)
  })
  after(async () => { await t.close() })

  const body = { name: 'CI dashboard', redirect_uri: 'https://dash.example/callback', scopes: 'api read_user' }

  it('registers an application (201) and shows its secret once, storing only its digest', async () => {
    const res = await t.api('POST', '/applications', { body })
    assert.equal(res.status, 201, res.text)
    const { id, application_id: uid, secret, ...rest } = res.body
    assert.equal(typeof id, 'number')
    assert.match(uid, /^[0-9a-f]{64}$/)
    assert.match(secret, /^[0-9a-f]{64}$/)
    assert.deepEqual(rest, { application_name: 'CI dashboard', callback_url: 'https://dash.example/callback' })
    const row = await t.ctx.db.selectFrom('oauth_applications').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    assert.equal(row.secret_digest, tokenDigest(secret))
    assert.equal(row.scopes, 'api read_user')
    assert.equal(row.owner_id, null)
  })

  it('takes a form body, several redirect URIs (one per line) and empty scopes', async () => {
    const form = new URLSearchParams({ name: 'Two', redirect_uri: 'https://a.example/cb\nhttp://localhost:8080/cb', scopes: '' }).toString()
    const res = await t.api('POST', '/applications', { form })
    assert.equal(res.status, 201, res.text)
    assert.equal(res.body.callback_url, 'https://a.example/cb\nhttp://localhost:8080/cb')
  })

  it('names each missing parameter, and refuses bad values', async () => {
    for (const missing of ['name', 'redirect_uri', 'scopes'] as const) {
      const { [missing]: _, ...rest } = body
      const res = await t.api('POST', '/applications', { body: rest })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { error: `${missing} is missing` })
    }
    const bad = await t.api('POST', '/applications', { body: { ...body, redirect_uri: 'not a uri', scopes: 'api write_everything' } })
    assert.equal(bad.status, 400)
    assert.deepEqual(bad.body.message.redirect_uri, ['must be an absolute URI.'])
    assert.ok(bad.body.message.scopes)
    const fragment = await t.api('POST', '/applications', { body: { ...body, redirect_uri: 'https://x.example/cb#here' } })
    assert.deepEqual(fragment.body.message, { redirect_uri: ['cannot contain a fragment.'] })
  })

  it("lists the administrators' applications without secrets; users' own are not listed", async () => {
    await createApplication(t.ctx.db, { name: 'Own', redirectUri: 'https://own.example/cb', scopes: 'api', ownerId: user.user.id })
    const res = await t.api('GET', '/applications')
    assert.equal(res.status, 200)
    assert.ok(res.body.length >= 2)
    for (const application of res.body) {
      assert.deepEqual(Object.keys(application).sort(), ['application_id', 'application_name', 'callback_url', 'id'])
      assert.notEqual(application.application_name, 'Own')
    }
  })

  it('deletes an application (204) with its tokens; an unknown id is 404', async () => {
    const made = await t.api('POST', '/applications', { body })
    const application = await t.ctx.db.selectFrom('oauth_applications').selectAll().where('id', '=', made.body.id).executeTakeFirstOrThrow()
    const { answer } = await issueUserToken(t.ctx.db, { userId: user.user.id, application, scopes: ['api'] })
    // Twice, so that the token's owner is cached (the first use writes last_used_at).
    for (const _ of [1, 2]) assert.equal((await t.api('GET', '/user', { token: null, headers: { authorization: `Bearer ${answer.access_token}` } })).status, 200)
    const removed = await t.api('DELETE', `/applications/${made.body.id}`)
    assert.equal(removed.status, 204)
    assert.equal(removed.text, '')
    const again = await t.api('DELETE', `/applications/${made.body.id}`)
    assert.equal((await t.api('GET', '/user', { token: null, headers: { authorization: `Bearer ${answer.access_token}` } })).status, 401)
    assert.equal(again.status, 404)
    assert.deepEqual(again.body, { message: '404 Application Not Found' })
    assert.equal((await t.api('DELETE', '/applications/999999')).status, 404)
    assert.equal((await t.api('DELETE', '/applications/abc')).status, 400)
  })

  it('is for administrators only: 403 for users, 401 for anonymous', async () => {
    for (const [method, path, options] of [
      ['GET', '/applications', {}], ['POST', '/applications', { body }], ['DELETE', '/applications/1', {}],
    ] as const) {
      assert.equal((await t.api(method, path, { ...options, token: user.token })).status, 403, `${method} ${path}`)
      assert.equal((await t.api(method, path, { ...options, token: null })).status, 401, `${method} ${path}`)
    }
  })
})
