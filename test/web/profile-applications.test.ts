// A user's own OAuth applications (/profile/applications, /oauth/applications): the list and form,
// creating (the secret shown once), the application's page, editing, renewing the secret,
// destroying; owners only; user_oauth_applications off; the authorized applications and revoking
// them; CSRF, anonymous visitors, escaping.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_PASSWORD, buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { tokenDigest } from '../../src/auth/secrets.js'
import { createAccessToken } from '../../src/services/access-tokens/create-access-token.js'
import { applicationSecretMatches, createApplication, findApplicationById } from '../../src/services/oauth/applications.js'
import { applicationFields, shownValue } from './application-forms.js'
import { Browser } from './browser.js'

const LIST = '/profile/applications'
const APPS = '/oauth/applications'

describe('Web OAuth applications of a user', () => {
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

  const settings = async (body: Record<string, unknown>) => assert.equal((await t.api('PUT', '/application/settings', { body })).status, 200)
  const create = (browser: Browser, name: string, redirectUri = 'https://client.example/callback', scopes: readonly string[] = ['api']) =>
    browser.submit(LIST, APPS, applicationFields(name, redirectUri, scopes))
  const applicationNamed = (name: string) => t.ctx.db.selectFrom('oauth_applications').selectAll().where('name', '=', name).executeTakeFirstOrThrow()

  it('sends an anonymous visitor to sign in', async () => {
    const anonymous = new Browser(t)
    for (const path of [LIST, APPS, `${APPS}/1`, `${APPS}/1/edit`, `${APPS}/new`]) {
      const res = await anonymous.get(path)
      assert.equal(res.status, 302, path)
      assert.equal(res.headers.location, '/users/sign_in')
    }
    for (const path of [APPS, `${APPS}/1`, `${APPS}/1/renew`, '/oauth/authorized_applications/1']) {
      assert.equal((await anonymous.post(path, {})).status, 302, path)
    }
  })

  it('shows the form (scopes without sudo for a user), on /profile/applications and /oauth/applications alike', async () => {
    for (const path of [LIST, APPS]) {
      const res = await b.get(path)
      assert.equal(res.status, 200)
      assert.match(res.text, /<form method="post" action="\/oauth\/applications" id="new_doorkeeper_application"/)
      assert.match(res.text, /<textarea name="doorkeeper_application\[redirect_uri\]"/)
      for (const scope of ['api', 'read_user', 'read_repository', 'openid']) assert.match(res.text, new RegExp(`value="${scope}"`))
      assert.doesNotMatch(res.text, /value="sudo"/)
      assert.doesNotMatch(res.text, /Trusted/)
      assert.match(res.text, /Authorized applications \(0\)/)
    }
  })

  it('shows the form alone on /oauth/applications/new', async () => {
    const res = await b.get(`${APPS}/new`)
    assert.equal(res.status, 200)
    assert.match(res.text, /<h1>New application<\/h1>/)
    assert.match(res.text, /id="new_doorkeeper_application"/)
  })

  it('creates an application and shows its id and secret once; its page later shows no secret', async () => {
    const res = await create(b, 'My client', 'https://client.example/callback\r\nhttp://localhost:3000/cb', ['api', 'openid'])
    assert.equal(res.status, 200, res.text)
    const row = await applicationNamed('My client')
    assert.equal(row.owner_id, alice.user.id)
    assert.equal(row.trusted, 0)
    assert.equal(row.scopes, 'api openid')
    assert.equal(row.redirect_uri, 'https://client.example/callback\nhttp://localhost:3000/cb')
    assert.equal(shownValue(res.text, 'application_id'), row.uid)
    const secret = shownValue(res.text, 'secret')
    assert.ok(secret)
    assert.ok(applicationSecretMatches(row, secret))
    assert.match(res.text, /<code>http:\/\/localhost:3000\/cb<\/code>/)
    assert.match(res.text, /<li>openid<\/li>/)
    const shown = await b.get(`${APPS}/${row.id}`)
    assert.equal(shown.status, 200)
    assert.equal(shownValue(shown.text, 'application_id'), row.uid)
    assert.equal(shownValue(shown.text, 'secret'), undefined)
    assert.ok(!shown.text.includes(secret))
    assert.match(shown.text, /id="secret-hidden"/)
    assert.match((await b.get(LIST)).text, new RegExp(`<a href="/oauth/applications/${row.id}">My client</a>`))
  })

  it('refuses a blank name, a relative or fragment URI, and keeps what was sent', async () => {
    const res = await create(b, '', 'not-absolute\nhttps://x.example/cb#frag', ['read_user'])
    assert.equal(res.status, 200)
    assert.match(res.text, /<li>Name can&#39;t be blank<\/li>/)
    assert.match(res.text, /<li>Redirect uri must be an absolute URI\.<\/li><li>Redirect uri cannot contain a fragment\.<\/li>/)
    assert.match(res.text, />not-absolute\nhttps:\/\/x\.example\/cb#frag<\/textarea>/)
    assert.match(res.text, /value="read_user" id="doorkeeper_application_scopes_read_user" checked/)
    assert.equal(shownValue(res.text, 'secret'), undefined)
  })

  it('edits an application (PUT), renews its secret (the old one stops matching) and destroys it', async () => {
    await create(b, 'Editable')
    const row = await applicationNamed('Editable')
    const edit = await b.get(`${APPS}/${row.id}/edit`)
    assert.equal(edit.status, 200)
    assert.match(edit.text, /name="_method" value="put"/)
    assert.match(edit.text, /value="Editable"/)
    const refused = await b.submit(`${APPS}/${row.id}/edit`, `${APPS}/${row.id}`, [['_method', 'put'], ...applicationFields('', 'https://c.example/cb', [])])
    assert.match(refused.text, /<li>Name can&#39;t be blank<\/li>/)
    const updated = await b.submit(`${APPS}/${row.id}/edit`, `${APPS}/${row.id}`, [
      ['_method', 'put'], ...applicationFields('Renamed', 'https://c.example/cb', ['read_user', 'sudo'], [['doorkeeper_application[trusted]', '1']]),
    ])
    assert.equal(updated.status, 200)
    assert.match(updated.text, /Application: Renamed/)
    const after = (await findApplicationById(t.ctx.db, row.id))!
    assert.equal(after.name, 'Renamed')
    // sudo is not offered to a user, nor the Trusted box outside the admin's area.
    assert.equal(after.scopes, 'read_user')
    assert.equal(after.trusted, 0)

    const renewed = await b.submit(`${APPS}/${row.id}`, `${APPS}/${row.id}/renew`, {})
    assert.equal(renewed.status, 200)
    const secret = shownValue(renewed.text, 'secret')
    assert.ok(secret)
    const current = (await findApplicationById(t.ctx.db, row.id))!
    assert.ok(applicationSecretMatches(current, secret))
    assert.notEqual(current.secret_digest, row.secret_digest)

    const destroyed = await b.submit(`${APPS}/${row.id}`, `${APPS}/${row.id}`, { _method: 'delete' })
    assert.equal(destroyed.status, 302)
    assert.equal(destroyed.headers.location, LIST)
    assert.equal(await findApplicationById(t.ctx.db, row.id), null)
  })

  it("answers 404 for another user's application, an instance-wide one and bad ids, and changes nothing", async () => {
    const bob = await makeUser(t)
    const bobs = await createApplication(t.ctx.db, { name: 'Bobs', redirectUri: 'https://b.example/cb', scopes: 'api', ownerId: bob.user.id })
    const instance = await createApplication(t.ctx.db, { name: 'Instance', redirectUri: 'https://i.example/cb', scopes: 'api', ownerId: null })
    for (const id of [bobs.application.id, instance.application.id, 'abc', '99999999999999999999']) {
      assert.equal((await b.get(`${APPS}/${id}`)).status, 404)
      assert.equal((await b.get(`${APPS}/${id}/edit`)).status, 404)
      assert.equal((await b.submit(LIST, `${APPS}/${id}`, [['_method', 'put'], ...applicationFields('Taken', 'https://t.example/cb', ['api'])])).status, 404)
      assert.equal((await b.submit(LIST, `${APPS}/${id}/renew`, {})).status, 404)
      assert.equal((await b.submit(LIST, `${APPS}/${id}`, { _method: 'delete' })).status, 404)
    }
    const kept = (await findApplicationById(t.ctx.db, bobs.application.id))!
    assert.equal(kept.name, 'Bobs')
    assert.equal(kept.secret_digest, tokenDigest(bobs.secret))
    assert.ok(await findApplicationById(t.ctx.db, instance.application.id))
    assert.doesNotMatch((await b.get(LIST)).text, /Bobs|Instance/)
  })

  it('offers sudo to an administrator in their own applications', async () => {
    const admin = new Browser(t)
    await admin.signIn('root', ROOT_PASSWORD)
    assert.match((await admin.get(LIST)).text, /value="sudo"/)
  })

  it('shows names and URIs with markup escaped', async () => {
    const res = await create(b, '<script>alert(1)</script>', 'https://x.example/cb?a=<b>')
    assert.equal(res.status, 200, res.text)
    assert.doesNotMatch(res.text, /<script>alert/)
    assert.match(res.text, /Application: &lt;script&gt;alert\(1\)&lt;\/script&gt;/)
    assert.doesNotMatch((await b.get(LIST)).text, /<script>alert/)
  })

  it('while user_oauth_applications is off, offers no form nor own list, and answers 404 to the application pages', async () => {
    await create(b, 'Before off')
    const row = await applicationNamed('Before off')
    await settings({ user_oauth_applications: false })
    try {
      const list = await b.get(LIST)
      assert.equal(list.status, 200)
      assert.doesNotMatch(list.text, /new_doorkeeper_application|Before off/)
      assert.match(list.text, /Authorized applications/)
      const refused = await create(b, 'While off')
      assert.equal(refused.status, 404)
      assert.equal(await t.ctx.db.selectFrom('oauth_applications').select('id').where('name', '=', 'While off').executeTakeFirst(), undefined)
      for (const path of [`${APPS}/new`, `${APPS}/${row.id}`, `${APPS}/${row.id}/edit`]) assert.equal((await b.get(path)).status, 404, path)
      assert.equal((await b.submit(LIST, `${APPS}/${row.id}`, { _method: 'delete' })).status, 404)
    } finally {
      await settings({ user_oauth_applications: true })
    }
    assert.equal((await b.get(`${APPS}/${row.id}`)).status, 200)
  })

  it('lists the applications the user authorized, and revokes one: its tokens stop working', async () => {
    const client = await createApplication(t.ctx.db, { name: 'Authorized <client>', redirectUri: 'https://a.example/cb', scopes: 'api read_user', ownerId: null })
    const { row, token } = await createAccessToken(t.ctx.db, { userId: alice.user.id, kind: 'oauth', name: 'oauth', scopes: ['read_user'] })
    await t.ctx.db.updateTable('access_tokens').set({ application_id: client.application.id }).where('id', '=', row.id).execute()
    const asClient = () => t.api('GET', '/user', { token: null, headers: { authorization: `Bearer ${token}` } })
    assert.equal((await asClient()).status, 200)
    const list = await b.get(LIST)
    assert.match(list.text, /Authorized applications \(1\)/)
    assert.match(list.text, new RegExp(`<tr id="authorized-application-${client.application.id}"><td>Authorized &lt;client&gt;</td><td><time[^>]*>\\d{4}-\\d{2}-\\d{2}</time></td><td>read_user</td>`))
    assert.equal((await b.submit(LIST, `/oauth/authorized_applications/${client.application.id}`, {})).status, 404)
    assert.equal((await b.post(`/oauth/authorized_applications/${client.application.id}`, { _method: 'delete' })).status, 422)
    const res = await b.submit(LIST, `/oauth/authorized_applications/${client.application.id}`, { _method: 'delete' })
    assert.equal(res.status, 302)
    assert.equal(res.headers.location, LIST)
    assert.equal((await asClient()).status, 401)
    assert.match((await b.get(LIST)).text, /Authorized applications \(0\)/)
  })

  it('refuses forms without the CSRF token with the 422 page', async () => {
    const res = await b.post(APPS, Object.fromEntries(applicationFields('CSRF app', 'https://c.example/cb', ['api'])))
    assert.equal(res.status, 422)
    assert.equal(await t.ctx.db.selectFrom('oauth_applications').select('id').where('name', '=', 'CSRF app').executeTakeFirst(), undefined)
  })
})
