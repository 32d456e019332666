// The personal access tokens page (/profile/personal_access_tokens): the form and the active
// tokens, creating one (shown once, and it works against the API with the scopes chosen), refusals,
// sudo offered to administrators only, revoking (own tokens only), CSRF, anonymous visitors, escaping.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_PASSWORD, buildTestApp, type TestApp } from '../helpers/app.js'
import { makeToken, makeUser, type TestUser } from '../helpers/factories.js'
import { acceptTerms } from '../../src/services/users/accept-terms.js'
import { Browser } from './browser.js'

const PAGE = '/profile/personal_access_tokens'

/** The token shown once after creating one. */
function createdToken(text: string): string {
  const token = /id="created-personal-access-token" value="([^"]+)"/.exec(text)?.[1]
  assert.ok(token, 'the page shows the new token')
  return token
}

describe('Web personal access tokens', () => {
  let t: TestApp
  let alice: TestUser
  let b: Browser
  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t)
    b = new Browser(t)
    await b.signIn(alice.user.username)
  })
  after(async () => { await t.close() })

  const create = (browser: Browser, name: string, scopes: readonly string[], expiresAt = '') => browser.submit(PAGE, PAGE, [
    ['personal_access_token[name]', name], ['personal_access_token[expires_at]', expiresAt],
    ...scopes.map((scope): [string, string] => ['personal_access_token[scopes][]', scope]),
  ])

  it('sends an anonymous visitor to sign in, for the page and its forms', async () => {
    const anonymous = new Browser(t)
    for (const res of [await anonymous.get(PAGE), await anonymous.post(PAGE, {}), await anonymous.post(`${PAGE}/1/revoke`, { _method: 'put' })]) {
      assert.equal(res.status, 302)
      assert.equal(res.headers.location, '/users/sign_in')
    }
  })

  it('shows the form with a date field and a box per scope, without sudo for a user, and the navigation', async () => {
    const res = await b.get(PAGE)
    assert.equal(res.status, 200)
    assert.match(res.text, /<input type="date" name="personal_access_token\[expires_at\]"/)
    for (const scope of ['api', 'read_user', 'read_repository']) {
      assert.match(res.text, new RegExp(`name="personal_access_token\\[scopes\\]\\[\\]" value="${scope}"`))
    }
    assert.doesNotMatch(res.text, /value="sudo"/)
    assert.match(res.text, /<a href="\/profile\/keys">SSH keys<\/a>/)
    assert.doesNotMatch(res.text, /href="\/admin\/applications"/)
    // The token the factory made shows as active.
    assert.match(res.text, /Active Personal Access Tokens \(1\)/)
  })

  it('offers sudo to an administrator', async () => {
    const admin = new Browser(t)
    await admin.signIn('root', ROOT_PASSWORD)
    const res = await admin.get(PAGE)
    assert.match(res.text, /value="sudo"/)
    assert.match(res.text, /href="\/admin"/, "the header offers the admin area")
  })

  it('creates a token shown once, which works against the API with the scopes chosen', async () => {
    const res = await create(b, 'laptop', ['read_user'], '2099-12-31')
    assert.equal(res.status, 200, res.text)
    const token = createdToken(res.text)
    assert.match(res.text, /<td>laptop<\/td><td>read_user<\/td>/)
    assert.match(res.text, /2099-12-31/)
    const user = await t.api('GET', '/user', { token })
    assert.equal(user.status, 200)
    assert.equal(user.body.username, alice.user.username)
    // read_user only: no writes.
    const write = await t.api('POST', '/projects', { token, body: { name: 'nope' } })
    assert.equal(write.status, 403)
    const again = await b.get(PAGE)
    assert.doesNotMatch(again.text, /created-personal-access-token/)
    assert.ok(!again.text.includes(token))
    const row = await t.ctx.db.selectFrom('access_tokens').selectAll().where('name', '=', 'laptop').executeTakeFirstOrThrow()
    assert.equal(row.kind, 'personal')
    assert.equal(row.user_id, alice.user.id)
    assert.equal(new Date(row.expires_at!).toISOString(), '2099-12-31T00:00:00.000Z')
  })

  it('refuses a form without a name or scopes, or with a bad date, and keeps what was sent', async () => {
    const res = await create(b, '', [])
    assert.equal(res.status, 200)
    assert.match(res.text, /id="error_explanation"><ul><li>Name can&#39;t be blank<\/li><li>Scopes can&#39;t be blank<\/li><\/ul>/)
    assert.doesNotMatch(res.text, /created-personal-access-token/)
    const badDate = await create(b, 'kept name', ['api'], '2020-13-45')
    assert.match(badDate.text, /<li>Expires at is invalid<\/li>/)
    assert.match(badDate.text, /value="kept name"/)
    assert.match(badDate.text, /value="api" id="personal_access_token_scopes_api" checked/)
  })

  it('ignores sudo sent by a user, which the form does not offer', async () => {
    const res = await create(b, 'sneaky', ['sudo', 'api'])
    assert.equal(res.status, 200)
    const row = await t.ctx.db.selectFrom('access_tokens').selectAll().where('name', '=', 'sneaky').executeTakeFirstOrThrow()
    assert.deepEqual(JSON.parse(row.scopes), ['api'])
  })

  it('shows a name with markup escaped', async () => {
    const res = await create(b, '<script>alert(1)</script>', ['api'])
    assert.match(res.text, /<td>&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/td>/)
    assert.doesNotMatch(res.text, /<script>alert/)
  })

  it('revokes one of the user\'s tokens: it stops working and leaves the list', async () => {
    const token = createdToken((await create(b, 'to revoke', ['api'])).text)
    const row = await t.ctx.db.selectFrom('access_tokens').selectAll().where('name', '=', 'to revoke').executeTakeFirstOrThrow()
    const res = await b.submit(PAGE, `${PAGE}/${row.id}/revoke`, { _method: 'put' })
    assert.equal(res.status, 302)
    assert.equal(res.headers.location, PAGE)
    assert.equal((await t.api('GET', '/user', { token })).status, 401)
    assert.doesNotMatch((await b.get(PAGE)).text, /to revoke/)
    // Revoked already: nothing to revoke.
    assert.equal((await b.submit(PAGE, `${PAGE}/${row.id}/revoke`, { _method: 'put' })).status, 404)
  })

  it("answers 404 for another user's token, an impersonation token, a bad id or a POST without _method=put", async () => {
    const bob = await makeUser(t)
    const bobs = await t.ctx.db.selectFrom('access_tokens').select('id').where('user_id', '=', bob.user.id).executeTakeFirstOrThrow()
    const impersonation = await t.api('POST', `/users/${alice.user.id}/impersonation_tokens`, { body: { name: 'imp', scopes: ['api'] } })
    assert.equal(impersonation.status, 201)
    for (const id of [bobs.id, impersonation.body.id, 'abc', '99999999999999999999', '-1']) {
      const res = await b.submit(PAGE, `${PAGE}/${id}/revoke`, { _method: 'put' })
      assert.equal(res.status, 404, String(id))
      assert.match(res.text, /The page could not be found/)
    }
    const own = await makeToken(t, alice.user.id)
    assert.equal((await b.submit(PAGE, `${PAGE}/${own.row.id}/revoke`, {})).status, 404)
    assert.equal((await t.api('GET', '/user', { token: bob.token })).status, 200)
    assert.equal((await t.api('GET', '/user', { token: own.token })).status, 200)
  })

  it('answers HEAD as a read, and sends a user who must accept the terms to them first', async () => {
    assert.equal((await b.request('HEAD', PAGE, undefined, {})).status, 200)
    const settings = (body: Record<string, unknown>) => t.api('PUT', '/application/settings', { body })
    // root, who changes the settings, must have accepted them to keep using the API.
    await acceptTerms(t.ctx.db, t.root.user.id)
    assert.equal((await settings({ enforce_terms: true, terms: 'Be nice.' })).status, 200)
    try {
      const res = await b.get(PAGE)
      assert.equal(res.status, 302)
      assert.equal(res.headers.location, '/-/users/terms')
    } finally {
      const reset = await settings({ enforce_terms: false })
      assert.equal(reset.status, 200, reset.text)
    }
  })

  it('refuses a form without the CSRF token with the 422 page, and creates nothing', async () => {
    const res = await b.post(PAGE, { 'personal_access_token[name]': 'csrf', 'personal_access_token[scopes][]': 'api' })
    assert.equal(res.status, 422)
    assert.match(res.text, /The change you requested was rejected/)
    const row = await t.ctx.db.selectFrom('access_tokens').select('id').where('name', '=', 'csrf').executeTakeFirst()
    assert.equal(row, undefined)
  })
})
