// The administrator's instance-wide OAuth applications (/admin/applications): index, new, create
// (the secret shown once), show, edit, update (with Trusted), destroy, renew; users' own
// applications stay out; everyone but administrators gets the 404 page; CSRF, escaping.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_PASSWORD, buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { applicationSecretMatches, createApplication, findApplicationById } from '../../src/services/oauth/applications.js'
import { applicationFields, shownValue } from './application-forms.js'
import { Browser } from './browser.js'

const ADMIN = '/admin/applications'

describe('Web admin OAuth applications', () => {
  let t: TestApp
  let admin: Browser
  let alice: TestUser
  before(async () => {
    t = await buildTestApp()
    admin = new Browser(t)
    await admin.signIn('root', ROOT_PASSWORD)
    alice = await makeUser(t)
  })
  after(async () => { await t.close() })

  const applicationNamed = (name: string) => t.ctx.db.selectFrom('oauth_applications').selectAll().where('name', '=', name).executeTakeFirstOrThrow()

  it('answers 404 to a user who is not an administrator, on every page and form, and sends anonymous visitors to sign in', async () => {
    const instance = await createApplication(t.ctx.db, { name: 'Hidden', redirectUri: 'https://h.example/cb', scopes: 'api', ownerId: null })
    const id = instance.application.id
    const user = new Browser(t)
    await user.signIn(alice.user.username)
    for (const path of [ADMIN, `${ADMIN}/new`, `${ADMIN}/${id}`, `${ADMIN}/${id}/edit`]) {
      const res = await user.get(path)
      assert.equal(res.status, 404, path)
      assert.match(res.text, /The page could not be found/)
      assert.equal((await new Browser(t).get(path)).status, 302, path)
    }
    const forms: [string, [string, string][]][] = [
      [ADMIN, applicationFields('Sneaky', 'https://s.example/cb', ['api'])], [`${ADMIN}/${id}`, [['_method', 'delete']]], [`${ADMIN}/${id}/renew`, []],
    ]
    for (const [path, fields] of forms) {
      assert.equal((await user.submit('/profile/keys', path, fields)).status, 404, path)
    }
    const kept = (await findApplicationById(t.ctx.db, id))!
    assert.ok(applicationSecretMatches(kept, instance.secret))
    assert.doesNotMatch((await user.get('/profile/applications')).text, /href="\/admin\/applications"/)
  })

  it('lists the instance-wide applications only, with a link to a new one', async () => {
    await createApplication(t.ctx.db, { name: 'Listed', redirectUri: 'https://l.example/cb', scopes: 'api', ownerId: null, trusted: true })
    await createApplication(t.ctx.db, { name: 'Alices own', redirectUri: 'https://a.example/cb', scopes: 'api', ownerId: alice.user.id })
    const res = await admin.get(ADMIN)
    assert.equal(res.status, 200)
    assert.match(res.text, /<a href="\/admin\/applications\/new" id="new-application">/)
    assert.match(res.text, />Listed<\/a><\/td>\n<td>https:\/\/l\.example\/cb<\/td><td>Y<\/td>/)
    assert.doesNotMatch(res.text, /Alices own/)
  })

  it('creates a trusted application from the new page, shows its secret once, then edits, renews and destroys it', async () => {
    const form = await admin.get(`${ADMIN}/new`)
    assert.equal(form.status, 200)
    assert.match(form.text, /<form method="post" action="\/admin\/applications" id="new_doorkeeper_application"/)
    assert.match(form.text, /name="doorkeeper_application\[trusted\]"/)
    assert.match(form.text, /value="sudo"/)
    const created = await admin.submit(`${ADMIN}/new`, ADMIN, applicationFields('Company CI', 'https://ci.example/cb', ['api', 'sudo'], [['doorkeeper_application[trusted]', '1']]))
    assert.equal(created.status, 200, created.text)
    const row = await applicationNamed('Company CI')
    assert.equal(row.owner_id, null)
    assert.equal(row.trusted, 1)
    assert.equal(row.scopes, 'api sudo')
    assert.equal(shownValue(created.text, 'application_id'), row.uid)
    const secret = shownValue(created.text, 'secret')
    assert.ok(secret && applicationSecretMatches(row, secret))
    assert.match(created.text, /<th>Trusted<\/th><td>Y<\/td>/)

    const shown = await admin.get(`${ADMIN}/${row.id}`)
    assert.equal(shown.status, 200)
    assert.equal(shownValue(shown.text, 'secret'), undefined)
    assert.ok(!shown.text.includes(secret))

    const edit = await admin.get(`${ADMIN}/${row.id}/edit`)
    assert.match(edit.text, /id="doorkeeper_application_trusted" checked/)
    // Unticking Trusted sends no value for it: the application is no longer trusted.
    const updated = await admin.submit(`${ADMIN}/${row.id}/edit`, `${ADMIN}/${row.id}`, [['_method', 'put'], ...applicationFields('Company CI 2', 'https://ci.example/cb2', ['read_user'])])
    assert.equal(updated.status, 200)
    const changed = (await findApplicationById(t.ctx.db, row.id))!
    assert.deepEqual([changed.name, changed.redirect_uri, changed.scopes, changed.trusted], ['Company CI 2', 'https://ci.example/cb2', 'read_user', 0])
    const refused = await admin.submit(`${ADMIN}/${row.id}/edit`, `${ADMIN}/${row.id}`, [['_method', 'put'], ...applicationFields('x', '/relative', [])])
    assert.match(refused.text, /<li>Redirect uri must be an absolute URI\.<\/li>/)
    assert.match(refused.text, /id="edit_doorkeeper_application"/)

    const renewed = await admin.submit(`${ADMIN}/${row.id}`, `${ADMIN}/${row.id}/renew`, {})
    const newSecret = shownValue(renewed.text, 'secret')
    assert.ok(newSecret && newSecret !== secret)
    const current = (await findApplicationById(t.ctx.db, row.id))!
    assert.ok(applicationSecretMatches(current, newSecret))
    assert.ok(!applicationSecretMatches(current, secret))

    const destroyed = await admin.submit(ADMIN, `${ADMIN}/${row.id}`, { _method: 'delete' })
    assert.equal(destroyed.status, 302)
    assert.equal(destroyed.headers.location, ADMIN)
    assert.equal(await findApplicationById(t.ctx.db, row.id), null)
  })

  it('shows a refused new application again on the new page', async () => {
    const res = await admin.submit(`${ADMIN}/new`, ADMIN, applicationFields('', 'https://x.example/cb', ['api']))
    assert.equal(res.status, 200)
    assert.match(res.text, /<h1>New application<\/h1>/)
    assert.match(res.text, /<li>Name can&#39;t be blank<\/li>/)
  })

  it("answers 404 for a user's own application in the admin's area", async () => {
    const own = await createApplication(t.ctx.db, { name: 'Own', redirectUri: 'https://o.example/cb', scopes: 'api', ownerId: alice.user.id })
    assert.equal((await admin.get(`${ADMIN}/${own.application.id}`)).status, 404)
    assert.equal((await admin.submit(ADMIN, `${ADMIN}/${own.application.id}`, { _method: 'delete' })).status, 404)
    assert.ok(await findApplicationById(t.ctx.db, own.application.id))
  })

  it('shows a name with markup escaped', async () => {
    const res = await admin.submit(`${ADMIN}/new`, ADMIN, applicationFields('<script>alert(1)</script>', 'https://x.example/cb', ['api']))
    assert.doesNotMatch(res.text, /<script>alert/)
    assert.doesNotMatch((await admin.get(ADMIN)).text, /<script>alert/)
    assert.match((await admin.get(ADMIN)).text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
  })

  it('refuses a form without the CSRF token with the 422 page', async () => {
    const res = await admin.post(ADMIN, Object.fromEntries(applicationFields('No CSRF', 'https://c.example/cb', ['api'])))
    assert.equal(res.status, 422)
    assert.equal(await t.ctx.db.selectFrom('oauth_applications').select('id').where('name', '=', 'No CSRF').executeTakeFirst(), undefined)
  })
})
