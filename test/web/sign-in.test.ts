// The web sign-in: the page and the settings shown on it (sign_in_text, help texts), signing in by
// username or email, refusals (bad password, unknown login, blocked user, password sign-in off),
// CSRF, the session cookie's attributes and lifetime (session_expire_delay), signing out
// (after_sign_out_path), the root page (home_page_url) and the help page.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EXTERNAL_URL, buildTestApp, type TestApp } from '../helpers/app.js'
import { blockUser, makeUser, type TestUser } from '../helpers/factories.js'
import { Browser, formToken, metaToken, setCookie } from './browser.js'

const MINUTE = 60 * 1000

describe('Web sign-in', () => {
  let t: TestApp
  let alice: TestUser
  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t, { username: 'alice', email: 'Alice@Example.com', name: 'Alice' })
  })
  after(async () => { await t.close() })

  const settings = async (body: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body })
    assert.equal(res.status, 200, res.text)
  }
  const signInForm = (b: Browser, token: string, login: string, password: string) =>
    b.post('/users/sign_in', { authenticity_token: token, 'user[login]': login, 'user[password]': password })

  describe('GET /users/sign_in', () => {
    it('shows the sign-in and sign-up forms and gives the visitor a CSRF cookie', async () => {
      const b = new Browser(t)
      const res = await b.get('/users/sign_in')
      assert.equal(res.status, 200)
      assert.match(String(res.headers['content-type']), /^text\/html/)
      assert.equal(res.headers['x-frame-options'], 'DENY')
      assert.match(res.text, /<form method="post" action="\/users\/sign_in"/)
      assert.match(res.text, /name="user\[password\]"/)
      assert.match(res.text, /<form method="post" action="\/users"/)
      assert.doesNotMatch(res.text, /terms_opt_in/)
      const cookie = setCookie(res, '_service_csrf')
      assert.ok(cookie)
      assert.match(cookie, /; HttpOnly/)
      assert.match(cookie, /; SameSite=Lax/)
      assert.doesNotMatch(cookie, /Secure/)
      formToken(res.text)
    })

    it('shows sign_in_text as escaped text with its paragraphs', async () => {
      await settings({ sign_in_text: 'Welcome to <b>our</b> forge\n\n<script>alert(1)</script> & "more"' })
      try {
        const res = await new Browser(t).get('/users/sign_in')
        assert.match(res.text, /<p>Welcome to &lt;b&gt;our&lt;\/b&gt; forge<\/p>/)
        assert.match(res.text, /<p>&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;more&quot;<\/p>/)
        assert.doesNotMatch(res.text, /<script>/)
      } finally {
        await settings({ sign_in_text: '' })
      }
    })

    it('sends a signed-in visitor to the root page', async () => {
      const b = new Browser(t)
      await b.signIn('alice')
      const res = await b.get('/users/sign_in')
      assert.equal(res.status, 302)
      assert.equal(res.headers.location, '/')
    })
  })

  describe('POST /users/sign_in', () => {
    it('signs in by username, starting a session whose cookie is HttpOnly, Lax and lasts session_expire_delay (a week)', async () => {
      const b = new Browser(t)
      const token = await b.csrfTokenFrom('/users/sign_in')
      const started = Date.now()
      const res = await signInForm(b, token, 'ALICE', 'password1234')
      assert.equal(res.status, 302)
      assert.equal(res.headers.location, '/')
      const cookie = setCookie(res, '_service_session')
      assert.ok(cookie)
      assert.match(cookie, /; Path=\/; HttpOnly; SameSite=Lax; Expires=[^;]+; Max-Age=\d+$/)
      const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1])
      assert.ok(Math.abs(maxAge - 10080 * 60) <= 2, `Max-Age ${maxAge}`)
      const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)?.[1] ?? '')
      assert.ok(Math.abs(expires - (started + 10080 * MINUTE)) < 5000)
      // The database keeps the secret's digest only.
      const secret = b.cookies.get('_service_session') ?? ''
      const rows = await t.ctx.db.selectFrom('sessions').selectAll().where('user_id', '=', alice.user.id).execute()
      assert.ok(rows.length >= 1)
      assert.ok(rows.every((row) => row.secret_digest !== secret && !row.secret_digest.includes(secret)))
      const home = await b.get('/')
      assert.equal(home.status, 200)
      assert.match(home.text, /<li class="user"><a href="\/alice">@alice<\/a><\/li>/, 'the dashboard names the signed-in user')
      // The sign-in is recorded on the user, as the API shows it.
      const user = await t.api('GET', `/users/${alice.user.id}`)
      assert.ok(user.body.current_sign_in_at !== null)
    })

    it('signs in by email, case-insensitively', async () => {
      const b = new Browser(t)
      await b.signIn('alice@EXAMPLE.com')
      assert.match((await b.get('/')).text, /@alice/)
    })

    it('refuses a wrong password and an unknown login with the same message, and starts no session', async () => {
      for (const [login, password] of [['alice', 'wrong-password'], ['nobody-here', 'password1234'], ['', '']] as const) {
        const b = new Browser(t)
        const token = await b.csrfTokenFrom('/users/sign_in')
        const res = await signInForm(b, token, login, password)
        assert.equal(res.status, 200)
        assert.match(res.text, /role="alert">Invalid Login or password\.</)
        assert.equal(setCookie(res, '_service_session'), undefined)
        assert.equal(b.cookies.has('_service_session'), false)
      }
    })

    it('shows the login sent back escaped', async () => {
      const b = new Browser(t)
      const token = await b.csrfTokenFrom('/users/sign_in')
      const res = await signInForm(b, token, '"><script>x</script>', 'password1234')
      assert.match(res.text, /value="&quot;&gt;&lt;script&gt;x&lt;\/script&gt;"/)
    })

    it('refuses a blocked user (only with the right password does it say so)', async () => {
      const blocked = await makeUser(t)
      await blockUser(t, blocked.user.id)
      const b = new Browser(t)
      const token = await b.csrfTokenFrom('/users/sign_in')
      const right = await signInForm(b, token, blocked.user.username, 'password1234')
      assert.match(right.text, /Your account has been blocked\./)
      const wrong = await signInForm(b, token, blocked.user.username, 'nope-nope-nope')
      assert.match(wrong.text, /Invalid Login or password\./)
      assert.equal(b.cookies.has('_service_session'), false)
    })

    it('refuses everyone while password_authentication_enabled_for_web is off, and hides the forms', async () => {
      const b = new Browser(t)
      const token = await b.csrfTokenFrom('/users/sign_in')
      await settings({ password_authentication_enabled_for_web: false })
      try {
        const page = await new Browser(t).get('/users/sign_in')
        assert.doesNotMatch(page.text, /name="user\[password\]"/)
        assert.doesNotMatch(page.text, /action="\/users"/)
        assert.match(page.text, /Signing in with a password is disabled/)
        const res = await signInForm(b, token, 'alice', 'password1234')
        assert.equal(res.status, 200)
        assert.match(res.text, /role="alert">Signing in with a password is disabled on this instance\.</)
        assert.equal(b.cookies.has('_service_session'), false)
      } finally {
        await settings({ password_authentication_enabled_for_web: true })
      }
      assert.equal((await signInForm(b, token, 'alice', 'password1234')).status, 302)
    })

    it('refuses a POST without the CSRF token, or with one not made for this visitor, with 422', async () => {
      const b = new Browser(t)
      await b.get('/users/sign_in')
      const missing = await b.post('/users/sign_in', { 'user[login]': 'alice', 'user[password]': 'password1234' })
      assert.equal(missing.status, 422)
      assert.match(missing.text, /The change you requested was rejected/)
      const other = new Browser(t)
      const othersToken = await other.csrfTokenFrom('/users/sign_in')
      assert.equal((await signInForm(b, othersToken, 'alice', 'password1234')).status, 422)
      // Without any cookie, no token can match.
      const bare = await new Browser(t).post('/users/sign_in', { authenticity_token: othersToken, 'user[login]': 'alice', 'user[password]': 'password1234' })
      assert.equal(bare.status, 422)
      assert.equal(b.cookies.has('_service_session'), false)
    })

    it('makes sessions last session_expire_delay minutes', async () => {
      await settings({ session_expire_delay: 30 })
      try {
        const b = new Browser(t)
        const token = await b.csrfTokenFrom('/users/sign_in')
        const res = await signInForm(b, token, 'alice', 'password1234')
        const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie(res, '_service_session') ?? '')?.[1])
        assert.ok(Math.abs(maxAge - 30 * 60) <= 2, `Max-Age ${maxAge}`)
      } finally {
        await settings({ session_expire_delay: 10080 })
      }
    })
  })

  describe('secure cookies', () => {
    it('marks the cookies Secure when the external URL is https', async () => {
      const secure = await buildTestApp({ env: { INGOT_EXTERNAL_URL: 'https://ingot.example' } })
      try {
        await makeUser(secure, { username: 'sam' })
        const b = new Browser(secure)
        const page = await b.get('/users/sign_in')
        assert.match(setCookie(page, '_service_csrf') ?? '', /; Secure$/)
        const res = await signInForm(b, formToken(page.text), 'sam', 'password1234')
        assert.match(setCookie(res, '_service_session') ?? '', /; HttpOnly; SameSite=Lax; .*; Secure$/)
      } finally {
        await secure.close()
      }
    })
  })

  describe('POST /users/sign_out', () => {
    it('ends the session and goes to the sign-in page', async () => {
      const b = new Browser(t)
      await b.signIn('alice')
      const secret = b.cookies.get('_service_session') ?? ''
      const token = metaToken((await b.get('/')).text)
      const res = await b.post('/users/sign_out', { authenticity_token: token })
      assert.equal(res.status, 302)
      assert.equal(res.headers.location, '/users/sign_in')
      assert.match(setCookie(res, '_service_session') ?? '', /^_service_session=; .*Max-Age=0/)
      // The old cookie is worth nothing now.
      const api = await t.app.inject({ method: 'GET', url: '/api/v4/user', headers: { cookie: `_service_session=${secret}` } })
      assert.equal(api.statusCode, 401)
      assert.equal((await b.get('/')).headers.location, '/users/sign_in')
    })

    it('goes to after_sign_out_path when set', async () => {
      await settings({ after_sign_out_path: 'https://example.com/bye?x=1' })
      try {
        const b = new Browser(t)
        await b.signIn('alice')
        const res = await b.post('/users/sign_out', { authenticity_token: metaToken((await b.get('/')).text) })
        assert.equal(res.headers.location, 'https://example.com/bye?x=1')
      } finally {
        await settings({ after_sign_out_path: '' })
      }
    })

    it('keeps the session when the CSRF token is missing', async () => {
      const b = new Browser(t)
      await b.signIn('alice')
      assert.equal((await b.post('/users/sign_out', {})).status, 422)
      assert.equal((await b.get('/')).status, 200)
    })
  })

  describe('GET /', () => {
    it('sends anonymous visitors to the sign-in page, or to home_page_url when set', async () => {
      const res = await new Browser(t).get('/')
      assert.equal(res.status, 302)
      assert.equal(res.headers.location, '/users/sign_in')
      await settings({ home_page_url: 'https://example.com/landing' })
      try {
        assert.equal((await new Browser(t).get('/')).headers.location, 'https://example.com/landing')
        // Signed-in visitors stay.
        const b = new Browser(t)
        await b.signIn('alice')
        assert.equal((await b.get('/')).status, 200)
        // The instance's own root would loop: not followed.
        await settings({ home_page_url: `${EXTERNAL_URL}/` })
        assert.equal((await new Browser(t).get('/')).headers.location, '/users/sign_in')
      } finally {
        await settings({ home_page_url: '' })
      }
    })
  })

  describe('GET /help', () => {
    it('shows the about block (the version to signed-in visitors only) by default', async () => {
      const anonymous = await new Browser(t).get('/help')
      assert.equal(anonymous.status, 200)
      assert.match(anonymous.text, /class="about"/)
      assert.doesNotMatch(anonymous.text, /class="version"/)
      assert.doesNotMatch(anonymous.text, /support-url/)
      const b = new Browser(t)
      await b.signIn('alice')
      assert.match((await b.get('/help')).text, /<span class="version">11\.5\.0<\/span>/)
    })

    it('shows help_page_text escaped and the support URL, and hides the about block when asked', async () => {
      await settings({
        help_page_text: 'Ask <i>ops</i>\nin #help',
        help_page_support_url: 'https://support.example.com/?a=1&b=2',
        help_page_hide_commercial_content: true,
      })
      try {
        const res = await new Browser(t).get('/help')
        assert.match(res.text, /<p>Ask &lt;i&gt;ops&lt;\/i&gt;<br>in #help<\/p>/)
        assert.match(res.text, /<a href="https:\/\/support\.example\.com\/\?a=1&amp;b=2" id="support-url"/)
        assert.doesNotMatch(res.text, /class="about"/)
        await settings({ help_page_support_url: 'javascript:alert(1)' })
        assert.doesNotMatch((await new Browser(t).get('/help')).text, /javascript:|support-url/)
      } finally {
        await settings({ help_page_text: '', help_page_support_url: '', help_page_hide_commercial_content: false })
      }
    })
  })
})
