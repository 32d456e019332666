// The session cookie as an API credential: reads with the cookie, writes only with the session's
// CSRF token, expired and renewed sessions (session_expire_delay), blocked users, sudo, tokens
// taking precedence, and enforced terms (the API refuses users who have not accepted them, the web
// sends them to the terms page, where they accept).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { blockUser, makeUser } from '../helpers/factories.js'
import { Browser, formToken, metaToken, setCookie } from '../web/browser.js'
import { acceptTerms } from '../../src/services/users/accept-terms.js'
import { tokenDigest } from '../../src/auth/secrets.js'

const MINUTE = 60 * 1000

describe('Session cookie authentication', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp()
    await makeUser(t, { username: 'bob' })
  })
  after(async () => { await t.close() })

  const settings = async (body: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body })
    assert.equal(res.status, 200, res.text)
  }
  /** Calls the API as the browser does: the cookie and no token. */
  const api = (b: Browser, method: string, path: string, headers: Record<string, string> = {}, form?: Record<string, string>) =>
    b.request(method, `/api/v4${path}`, form === undefined ? undefined : new URLSearchParams(form).toString(), headers)
  const sessionOf = (b: Browser) => t.ctx.db.selectFrom('sessions').selectAll()
    .where('secret_digest', '=', tokenDigest(b.cookies.get('_service_session') ?? '')).executeTakeFirst()

  it('has no terms page while no terms are set', async () => {
    assert.equal((await new Browser(t).get('/-/users/terms')).status, 404)
  })

  it('authenticates reads as the session user', async () => {
    const b = new Browser(t)
    assert.equal((await api(b, 'GET', '/user')).status, 401)
    await b.signIn('bob')
    const res = await api(b, 'GET', '/user')
    assert.equal(res.status, 200)
    assert.equal(JSON.parse(res.text).username, 'bob')
    assert.equal((await api(b, 'HEAD', '/user')).status, 200)
  })

  it('takes writes only with the session CSRF token in X-CSRF-Token', async () => {
    const b = new Browser(t)
    await b.signIn('bob')
    const token = metaToken((await b.get('/')).text)
    const without = await api(b, 'POST', '/projects', {}, { name: 'no-csrf' })
    assert.equal(without.status, 401)
    const wrong = await api(b, 'POST', '/projects', { 'x-csrf-token': 'not-the-token' }, { name: 'wrong-csrf' })
    assert.equal(wrong.status, 401)
    const other = new Browser(t)
    await other.signIn('bob')
    const othersToken = metaToken((await other.get('/')).text)
    assert.equal((await api(b, 'POST', '/projects', { 'x-csrf-token': othersToken }, { name: 'other-csrf' })).status, 401)
    const created = await api(b, 'POST', '/projects', { 'x-csrf-token': token }, { name: 'with-csrf' })
    assert.equal(created.status, 201, created.text)
    assert.equal(JSON.parse(created.text).owner.username, 'bob')
  })

  it('lets a token win over the cookie', async () => {
    const b = new Browser(t)
    await b.signIn('bob')
    const res = await api(b, 'GET', '/user', { 'private-token': t.root.token })
    assert.equal(JSON.parse(res.text).username, 'root')
  })

  it('refuses and deletes an expired session', async () => {
    const b = new Browser(t)
    await b.signIn('bob')
    const session = await sessionOf(b)
    assert.ok(session)
    await t.ctx.db.updateTable('sessions').set({ last_seen_at: Date.now() - 2 * MINUTE, expires_at: Date.now() - 1 })
      .where('id', '=', session.id).execute()
    assert.equal((await api(b, 'GET', '/user')).status, 401)
    assert.equal(await sessionOf(b), undefined)
    // The web forgets the cookie too.
    b.cookies.set('_service_session', b.cookies.get('_service_session') ?? '')
    const page = await b.get('/')
    assert.equal(page.headers.location, '/users/sign_in')
  })

  it('slides the expiry forward by session_expire_delay as the session is used, renewing the cookie', async () => {
    await settings({ session_expire_delay: 5 })
    try {
      const b = new Browser(t)
      await b.signIn('bob')
      const session = await sessionOf(b)
      assert.ok(session)
      assert.ok(Math.abs(session.expires_at - (session.created_at + 5 * MINUTE)) < 1000)
      // Used within the minute: not written again.
      const fresh = await api(b, 'GET', '/user')
      assert.equal(setCookie(fresh, '_service_session'), undefined)
      // Last used four minutes ago, one minute left: this use gives it five minutes again.
      await t.ctx.db.updateTable('sessions').set({ last_seen_at: Date.now() - 4 * MINUTE, expires_at: Date.now() + MINUTE })
        .where('id', '=', session.id).execute()
      const used = Date.now()
      const res = await api(b, 'GET', '/user')
      assert.equal(res.status, 200)
      const renewed = await sessionOf(b)
      assert.ok(renewed && Math.abs(renewed.expires_at - (used + 5 * MINUTE)) < 2000, `expires ${renewed?.expires_at}`)
      const cookie = setCookie(res, '_service_session') ?? ''
      assert.ok(Math.abs(Number(/Max-Age=(\d+)/.exec(cookie)?.[1]) - 300) <= 2, cookie)
    } finally {
      await settings({ session_expire_delay: 10080 })
    }
  })

  it('signs a blocked user out', async () => {
    const carol = await makeUser(t)
    const b = new Browser(t)
    await b.signIn(carol.user.username)
    await blockUser(t, carol.user.id)
    assert.equal((await api(b, 'GET', '/user')).status, 401)
    assert.equal(await sessionOf(b), undefined)
  })

  it('signs a user out everywhere when an administrator sets their password', async () => {
    const dave = await makeUser(t)
    const [phone, laptop] = [new Browser(t), new Browser(t)]
    for (const b of [phone, laptop]) await b.signIn(dave.user.username)
    const res = await t.api('PUT', `/users/${dave.user.id}`, { body: { password: 'a-new-password-1' } })
    assert.equal(res.status, 200, res.text)
    for (const b of [phone, laptop]) {
      assert.equal((await api(b, 'GET', '/user')).status, 401)
      assert.equal(await sessionOf(b), undefined)
    }
    assert.equal((await t.api('GET', '/user', { token: dave.token })).status, 200, 'access tokens are not sessions')
  })

  it('keeps the session that changes its own user’s password, and ends the others', async () => {
    const erin = await makeUser(t, { admin: true })
    const [here, elsewhere] = [new Browser(t), new Browser(t)]
    for (const b of [here, elsewhere]) await b.signIn(erin.user.username)
    const token = metaToken((await here.get('/')).text)
    const res = await api(here, 'PUT', `/users/${erin.user.id}`, { 'x-csrf-token': token }, { password: 'a-new-password-2' })
    assert.equal(res.status, 200, res.text)
    assert.equal((await api(here, 'GET', '/user')).status, 200)
    assert.equal((await api(elsewhere, 'GET', '/user')).status, 401)
    // A profile change without a password ends nothing.
    await elsewhere.signIn(erin.user.username, 'a-new-password-2')
    assert.equal((await api(here, 'PUT', `/users/${erin.user.id}`, { 'x-csrf-token': token }, { bio: 'Hi' })).status, 200)
    assert.equal((await api(elsewhere, 'GET', '/user')).status, 200)
  })

  it('does not sudo with a session', async () => {
    const admin = await makeUser(t, { admin: true })
    const b = new Browser(t)
    await b.signIn(admin.user.username)
    const res = await api(b, 'GET', '/user', { sudo: 'bob' })
    assert.equal(res.status, 403)
    assert.deepEqual(JSON.parse(res.text), { message: '403 Forbidden - Must be authenticated using an OAuth or Personal Access Token to use sudo' })
    const plain = new Browser(t)
    await plain.signIn('bob')
    assert.deepEqual(JSON.parse((await api(plain, 'GET', '/user', { sudo: 'root' })).text), { message: '403 Forbidden - Must be admin to use sudo' })
  })

  describe('enforced terms', () => {
    const TERMS = 'Be <em>kind</em>.\n\nNo spam.'
    before(async () => {
      // root accepts first, or the next settings change would be refused too.
      await acceptTerms(t.ctx.db, t.root.user.id)
      await settings({ enforce_terms: true, terms: TERMS })
    })
    after(async () => { await settings({ enforce_terms: false }) })

    it('keeps a user who has not accepted them out of the API, with any credential, until they accept on the web', async () => {
      const dave = await makeUser(t)
      const b = new Browser(t)
      await b.signIn(dave.user.username)
      const refused = await api(b, 'GET', '/user')
      assert.equal(refused.status, 403)
      assert.deepEqual(JSON.parse(refused.text), { message: '403 Forbidden - User is blocked' })
      assert.equal((await t.api('GET', '/user', { token: dave.token })).status, 403)

      // The web sends them to the terms, shown escaped, with a form to accept.
      const home = await b.get('/')
      assert.equal(home.status, 302)
      assert.equal(home.headers.location, '/-/users/terms')
      const terms = await b.get('/-/users/terms')
      assert.equal(terms.status, 200)
      assert.match(terms.text, /<p>Be &lt;em&gt;kind&lt;\/em&gt;\.<\/p>\s*<p>No spam\.<\/p>/)
      assert.match(terms.text, /action="\/-\/users\/terms\/accept"/)

      // Accepting needs the session's CSRF token.
      assert.equal((await b.post('/-/users/terms/accept', {})).status, 422)
      const accepted = await b.post('/-/users/terms/accept', { authenticity_token: formToken(terms.text) })
      assert.equal(accepted.status, 302)
      assert.equal(accepted.headers.location, '/')
      assert.equal((await api(b, 'GET', '/user')).status, 200)
      assert.equal((await t.api('GET', '/user', { token: dave.token })).status, 200)
      assert.equal((await b.get('/')).status, 200)
      assert.match((await b.get('/-/users/terms')).text, /You have accepted the Terms of Service/)
    })

    it('shows the terms to anyone, and sends anonymous acceptance to the sign-in page', async () => {
      const anonymous = new Browser(t)
      const page = await anonymous.get('/-/users/terms')
      assert.equal(page.status, 200)
      assert.doesNotMatch(page.text, /terms\/accept/)
      const res = await anonymous.post('/-/users/terms/accept', { authenticity_token: 'x' })
      assert.equal(res.headers.location, '/users/sign_in')
    })

    it('lets users in again once terms are no longer enforced', async () => {
      const erin = await makeUser(t)
      assert.equal((await t.api('GET', '/user', { token: erin.token })).status, 403)
      await settings({ enforce_terms: false })
      try {
        assert.equal((await t.api('GET', '/user', { token: erin.token })).status, 200)
      } finally {
        await settings({ enforce_terms: true })
      }
    })
  })
})
