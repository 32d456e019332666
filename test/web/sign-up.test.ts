// The web sign-up: signup_enabled (and password sign-in) turning it on and off, the admin API's
// validation, the domain whitelist and blacklist (sign-up only, never admin-created users),
// enforced terms, after_sign_up_text, CSRF, and escaping of what the form shows back.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, uniqueName } from '../helpers/factories.js'
import { Browser, setCookie } from './browser.js'
import { acceptTerms } from '../../src/services/users/accept-terms.js'

describe('Web sign-up', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const settings = async (body: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body })
    assert.equal(res.status, 200, res.text)
  }
  const userNamed = (username: string) =>
    t.ctx.db.selectFrom('users').selectAll().where('username_lower', '=', username.toLowerCase()).executeTakeFirst()

  /** Fills in and sends the sign-up form of a new visitor. */
  async function signUp(fields: { name?: string; username?: string; email?: string; password?: string; terms?: boolean } = {}) {
    const b = new Browser(t)
    const token = await b.csrfTokenFrom('/users/sign_in')
    const username = fields.username ?? uniqueName('newbie')
    const form: Record<string, string> = {
      authenticity_token: token,
      'new_user[name]': fields.name ?? 'New Person',
      'new_user[username]': username,
      'new_user[email]': fields.email ?? `${username}@example.com`,
      'new_user[password]': fields.password ?? 'password1234',
    }
    if (fields.terms === true) form.terms_opt_in = 'true'
    const res = await b.post('/users', form)
    return { b, res, username }
  }

  it('creates the user, signs them in and welcomes them (signup_enabled is on by default)', async () => {
    const { b, res, username } = await signUp({ name: 'Nina <Newcomer>' })
    assert.equal(res.status, 200, res.text)
    assert.match(res.text, /Welcome, Nina &lt;Newcomer&gt;/)
    assert.ok(setCookie(res, '_service_session'))
    const user = await userNamed(username)
    assert.ok(user)
    assert.equal(user.admin, 0)
    assert.equal(user.projects_limit, 100000)
    const me = await b.request('GET', '/api/v4/user', undefined, {})
    assert.equal(me.status, 200)
    assert.equal(JSON.parse(me.text).username, username)
  })

  it('shows after_sign_up_text, escaped', async () => {
    await settings({ after_sign_up_text: 'Read the <a href="x">rules</a> first' })
    try {
      const { res } = await signUp()
      assert.match(res.text, /<p>Read the &lt;a href=&quot;x&quot;&gt;rules&lt;\/a&gt; first<\/p>/)
    } finally {
      await settings({ after_sign_up_text: '' })
    }
  })

  it('accepts the fields as user[…] too', async () => {
    const b = new Browser(t)
    const token = await b.csrfTokenFrom('/users/sign_in')
    const username = uniqueName('plain')
    const res = await b.post('/users', {
      authenticity_token: token, 'user[name]': 'Plain', 'user[username]': username, 'user[email]': `${username}@example.com`, 'user[password]': 'password1234',
    })
    assert.equal(res.status, 200)
    assert.ok(await userNamed(username))
  })

  it('is gone while signup_enabled, or password sign-in on the web, is off', async () => {
    for (const off of [{ signup_enabled: false }, { password_authentication_enabled_for_web: false }]) {
      const b = new Browser(t)
      const token = await b.csrfTokenFrom('/users/sign_in')
      await settings(off)
      try {
        assert.doesNotMatch((await new Browser(t).get('/users/sign_in')).text, /action="\/users"/)
        const username = uniqueName('refused')
        const res = await b.post('/users', {
          authenticity_token: token, 'new_user[name]': 'R', 'new_user[username]': username,
          'new_user[email]': `${username}@example.com`, 'new_user[password]': 'password1234',
        })
        assert.equal(res.status, 302)
        assert.equal(res.headers.location, '/users/sign_in')
        assert.equal(await userNamed(username), undefined)
      } finally {
        await settings({ signup_enabled: true, password_authentication_enabled_for_web: true })
      }
    }
  })

  it('refuses what the admin API refuses, showing the messages and the values back (escaped)', async () => {
    const { res, username } = await signUp({ name: '"><b>x', email: 'not-an-email', password: 'short' })
    assert.equal(res.status, 200)
    assert.match(res.text, /<li>Email is invalid<\/li>/)
    assert.match(res.text, /<li>Password is too short \(minimum is 8 characters\)<\/li>/)
    assert.match(res.text, /value="&quot;&gt;&lt;b&gt;x"/)
    assert.doesNotMatch(res.text, /value="short"/)
    assert.equal(await userNamed(username), undefined)
    const taken = await makeUser(t)
    const again = await signUp({ username: taken.user.username, email: `${uniqueName('fresh')}@example.com` })
    assert.match(again.res.text, /<li>Username has already been taken<\/li>/)
    assert.equal(setCookie(again.res, '_service_session'), undefined)
    const sameEmail = await signUp({ email: taken.user.email })
    assert.match(sameEmail.res.text, /<li>Email has already been taken<\/li>/)
  })

  it('refuses a POST without the CSRF token with 422', async () => {
    const username = uniqueName('csrf')
    const b = new Browser(t)
    await b.get('/users/sign_in')
    const res = await b.post('/users', {
      'new_user[name]': 'C', 'new_user[username]': username, 'new_user[email]': `${username}@example.com`, 'new_user[password]': 'password1234',
    })
    assert.equal(res.status, 422)
    assert.equal(await userNamed(username), undefined)
  })

  describe('domain rules', () => {
    it('takes only whitelisted domains, wildcards matching subdomains, case ignored', async () => {
      await settings({ domain_whitelist: ['example.com', '*.corp.test'] })
      try {
        for (const email of ['someone@other.test', 'someone@corp.test', 'someone@example.com.evil.test']) {
          const { res, username } = await signUp({ email })
          assert.match(res.text, /<li>Email domain is not authorized for sign-up<\/li>/, email)
          assert.equal(await userNamed(username), undefined)
        }
        for (const domain of ['EXAMPLE.com', 'dev.corp.test', 'a.b.corp.test']) {
          const { res, username } = await signUp({ email: `${uniqueName('w')}@${domain}` })
          assert.equal(res.status, 200)
          assert.ok(await userNamed(username), domain)
        }
      } finally {
        await settings({ domain_whitelist: [] })
      }
    })

    it('refuses blacklisted domains while the blacklist is enabled; a whitelisted domain still passes', async () => {
      await settings({ domain_blacklist: ['spam.test', '*.spam.test'], domain_blacklist_enabled: true })
      try {
        for (const email of ['x@spam.test', 'x@mail.SPAM.test']) {
          const { res, username } = await signUp({ email })
          assert.match(res.text, /<li>Email is not from an allowed domain\.<\/li>/, email)
          assert.equal(await userNamed(username), undefined)
        }
        assert.ok(await userNamed((await signUp({ email: `${uniqueName('ok')}@fine.test` })).username))
        await settings({ domain_whitelist: ['spam.test'] })
        assert.ok(await userNamed((await signUp({ email: `${uniqueName('both')}@spam.test` })).username))
        await settings({ domain_blacklist_enabled: false, domain_whitelist: [] })
        assert.ok(await userNamed((await signUp({ email: `${uniqueName('off')}@spam.test` })).username))
      } finally {
        await settings({ domain_blacklist_enabled: false, domain_whitelist: [] })
      }
    })

    it('does not bind administrators creating users through the API', async () => {
      await settings({ domain_whitelist: ['example.com'], domain_blacklist: ['spam.test'], domain_blacklist_enabled: true })
      try {
        for (const domain of ['spam.test', 'elsewhere.test']) {
          const username = uniqueName('admin')
          const res = await t.api('POST', '/users', { body: { username, name: 'A', email: `${username}@${domain}`, password: 'password1234' } })
          assert.equal(res.status, 201, res.text)
        }
      } finally {
        await settings({ domain_blacklist_enabled: false, domain_whitelist: [] })
      }
    })
  })

  describe('enforced terms', () => {
    before(async () => {
      await acceptTerms(t.ctx.db, t.root.user.id)
      await settings({ enforce_terms: true, terms: 'The terms.' })
    })
    after(async () => { await settings({ enforce_terms: false }) })

    it('asks for the terms on the form and refuses a sign-up without them', async () => {
      const page = await new Browser(t).get('/users/sign_in')
      assert.match(page.text, /name="terms_opt_in"/)
      assert.match(page.text, /<a href="\/-\/users\/terms"/)
      const { res, username } = await signUp()
      assert.equal(res.status, 200)
      assert.match(res.text, /role="alert">You must accept our Terms of Service and privacy policy in order to register an account</)
      assert.equal(await userNamed(username), undefined)
    })

    it('records the acceptance of a sign-up that accepts them, so the API lets the new user in', async () => {
      const { b, res, username } = await signUp({ terms: true })
      assert.equal(res.status, 200, res.text)
      const user = await userNamed(username)
      assert.ok(user?.terms_accepted_at)
      assert.equal((await b.request('GET', '/api/v4/user', undefined, {})).status, 200)
      assert.equal((await b.get('/')).status, 200)
    })
  })
})
