// The OAuth authorization endpoint (/oauth/authorize): signing in (and accepting enforced terms)
// first and coming back (never to another site), the consent page, Authorize and Deny (a form's _method or a real DELETE), the
// implicit flow, the error page for requests that cannot be redirected, consent skipped for
// trusted applications and for scopes already granted, CSRF.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { OAUTH_ERROR_DESCRIPTIONS } from '../../src/common/errors.js'
import { updateApplicationSettings } from '../../src/services/settings.js'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser } from '../helpers/factories.js'
import { REDIRECT_URI, authorizeUrl, clientFields, makeApplication, tokenRequest, type TestApplication } from '../helpers/oauth.js'
import { Browser, formToken } from './browser.js'

/** The hidden fields of the page's form with this id. */
function formFields(html: string, id: string): Record<string, string> {
  const form = new RegExp(`<form method="post" action="/oauth/authorize" id="${id}">([\\s\\S]*?)</form>`).exec(html)?.[1]
  assert.ok(form, `the page has the ${id} form`)
  return Object.fromEntries([...form.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1] ?? '', (m[2] ?? '').replace(/&amp;/g, '&')]))
}

describe('OAuth authorization page', () => {
  let t: TestApp
  let client: TestApplication
  let browser: Browser
  before(async () => {
    t = await buildTestApp()
    await makeUser(t, { username: 'alice', name: 'Alice <Admin>' })
    client = await makeApplication(t, { name: 'Dash <board>' })
    browser = new Browser(t)
    await browser.signIn('alice')
  })
  after(async () => { await t.close() })

  it('sends a visitor to sign in and back to the request afterwards', async () => {
    const visitor = new Browser(t)
    const url = authorizeUrl(client, { scope: 'read_user' })
    const first = await visitor.get(url)
    assert.equal(first.status, 302)
    assert.equal(first.headers.location, '/users/sign_in')
    const token = await visitor.csrfTokenFrom('/users/sign_in')
    const signIn = await visitor.post('/users/sign_in', { authenticity_token: token, 'user[login]': 'alice', 'user[password]': 'password1234' })
    assert.equal(signIn.status, 302)
    assert.equal(signIn.headers.location, url)
    assert.equal((await visitor.get('/users/sign_in')).headers.location, '/', 'remembered once only')
    const consent = await visitor.get(url)
    assert.equal(consent.status, 200)
    assert.match(consent.text, /id="authorize"/)
  })

  it('sends a user who must accept the terms to them first, and back to the request afterwards', async () => {
    // Through the service: root's token is refused too while root has not accepted the terms.
    await updateApplicationSettings(t.ctx.db, { enforce_terms: true, terms: 'Be nice.' })
    try {
      await makeUser(t, { username: 'carol' })
      const carol = new Browser(t)
      await carol.signIn('carol')
      const url = authorizeUrl(client)
      const first = await carol.get(url)
      assert.equal(first.status, 302)
      assert.equal(first.headers.location, '/-/users/terms')
      const token = await carol.csrfTokenFrom('/-/users/terms')
      const accepted = await carol.post('/-/users/terms/accept', { authenticity_token: token })
      assert.equal(accepted.headers.location, url)
      assert.equal((await carol.get(url)).status, 200)
    } finally {
      await updateApplicationSettings(t.ctx.db, { enforce_terms: false })
    }
  })

  it('never returns to another site after signing in', async () => {
    for (const returnTo of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)']) {
      const visitor = new Browser(t)
      visitor.cookies.set('_service_return_to', encodeURIComponent(returnTo))
      const token = await visitor.csrfTokenFrom('/users/sign_in')
      const res = await visitor.post('/users/sign_in', { authenticity_token: token, 'user[login]': 'alice', 'user[password]': 'password1234' })
      assert.equal(res.headers.location, '/', returnTo)
    }
  })

  it('asks for consent naming the application and the scopes, escaped', async () => {
    const page = await browser.get(authorizeUrl(client, { scope: 'api openid', nonce: 'n-1' }))
    assert.equal(page.status, 200)
    assert.match(page.text, /Authorize <strong>Dash &lt;board&gt;<\/strong> to use your account\?/)
    assert.match(page.text, /<strong>api<\/strong>: Access the authenticated user&#39;s API/)
    assert.match(page.text, /<strong>openid<\/strong>: Authenticate using OpenID Connect/)
    const fields = formFields(page.text, 'authorize')
    assert.deepEqual({ ...fields, authenticity_token: 'x' }, {
      authenticity_token: 'x', client_id: client.uid, redirect_uri: REDIRECT_URI, state: 'xyz', response_type: 'code', scope: 'api openid', nonce: 'n-1',
    })
    assert.equal(formFields(page.text, 'deny')._method, 'delete')
  })

  it('Authorize redirects with a single-use code and the state unchanged', async () => {
    const page = await browser.get(authorizeUrl(client, { state: 'a b&c=d' }))
    const res = await browser.post('/oauth/authorize', formFields(page.text, 'authorize'))
    assert.equal(res.status, 302)
    const location = new URL(String(res.headers.location))
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI)
    assert.equal(location.searchParams.get('state'), 'a b&c=d')
    const code = location.searchParams.get('code')
    assert.match(String(code), /^[0-9a-f]{64}$/)
    const grant = await t.ctx.db.selectFrom('oauth_access_grants').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow()
    assert.ok(Math.abs(grant.expires_at - grant.created_at - 600_000) < 1000, 'valid 10 minutes')
  })

  it('keeps the query of the redirect URI and drops a blank state', async () => {
    const withQuery = await makeApplication(t, { redirectUri: 'https://client.example/cb?tenant=7' })
    const page = await browser.get(`/oauth/authorize?${new URLSearchParams({ client_id: withQuery.uid, redirect_uri: 'https://client.example/cb?tenant=7', response_type: 'code' })}`)
    const res = await browser.post('/oauth/authorize', formFields(page.text, 'authorize'))
    const location = new URL(String(res.headers.location))
    assert.equal(location.searchParams.get('tenant'), '7')
    assert.equal(location.searchParams.has('state'), false)
  })

  it('Deny redirects with access_denied, by the form and by a real DELETE', async () => {
    const page = await browser.get(authorizeUrl(client))
    const denied = await browser.post('/oauth/authorize', formFields(page.text, 'deny'))
    assert.equal(denied.status, 302)
    const location = new URL(String(denied.headers.location))
    assert.equal(location.searchParams.get('error'), 'access_denied')
    assert.equal(location.searchParams.get('error_description'), OAUTH_ERROR_DESCRIPTIONS.access_denied)
    assert.equal(location.searchParams.get('state'), 'xyz')
    assert.equal(location.searchParams.has('code'), false)

    const { _method, ...fields } = formFields(page.text, 'deny')
    const deleted = await browser.request('DELETE', '/oauth/authorize', new URLSearchParams(fields).toString(), {})
    assert.equal(deleted.status, 302, deleted.text)
    assert.equal(new URL(String(deleted.headers.location)).searchParams.get('error'), 'access_denied')
  })

  it('the implicit flow puts the token in the fragment, blank values dropped', async () => {
    const page = await browser.get(authorizeUrl(client, { response_type: 'token', scope: 'read_user' }))
    const res = await browser.post('/oauth/authorize', formFields(page.text, 'authorize'))
    const location = new URL(String(res.headers.location))
    assert.equal(location.search, '')
    const fragment = new URLSearchParams(location.hash.slice(1))
    assert.deepEqual([...fragment.keys()], ['access_token', 'token_type', 'state'])
    assert.equal(fragment.get('token_type'), 'bearer')
    const user = await t.api('GET', '/user', { token: null, headers: { authorization: `Bearer ${fragment.get('access_token')}` } })
    assert.equal(user.body.username, 'alice')

    const deny = await browser.post('/oauth/authorize', formFields((await browser.get(authorizeUrl(client, { response_type: 'token' }))).text, 'deny'))
    assert.match(String(deny.headers.location), /#error=access_denied&/)
  })

  it('shows an error page, and never redirects, for an unknown client, an unregistered redirect URI, a bad response type or scope', async () => {
    const cases: [Record<string, string>, keyof typeof OAUTH_ERROR_DESCRIPTIONS][] = [
      [{ response_type: 'id_token' }, 'unsupported_response_type'],
      [{ response_type: '' }, 'unsupported_response_type'],
      [{ client_id: 'unknown' }, 'invalid_client'],
      [{ client_id: '' }, 'invalid_client'],
      [{ scope: 'sudo' }, 'invalid_scope'],
      [{ scope: 'api\tread_user' }, 'invalid_scope'],
      [{ redirect_uri: 'https://evil.example/callback' }, 'invalid_redirect_uri'],
      [{ redirect_uri: `${REDIRECT_URI}#x` }, 'invalid_redirect_uri'],
      [{ redirect_uri: '' }, 'invalid_redirect_uri'],
    ]
    for (const [params, error] of cases) {
      const res = await browser.get(authorizeUrl(client, params))
      assert.equal(res.status, 200, JSON.stringify(params))
      assert.equal(res.headers.location, undefined)
      assert.match(res.text, /An error has occurred/)
      assert.ok(res.text.includes(OAUTH_ERROR_DESCRIPTIONS[error].replace(/'/g, '&#39;')), `${JSON.stringify(params)}: ${error}`)
      const posted = await browser.post('/oauth/authorize', {
        authenticity_token: formToken((await browser.get(authorizeUrl(client))).text),
        client_id: client.uid, redirect_uri: REDIRECT_URI, response_type: 'code', ...params,
      })
      assert.equal(posted.status, 200, JSON.stringify(params))
      assert.equal(posted.headers.location, undefined)
    }
    const wrongShape = await browser.get('/oauth/authorize?client_id[]=x&redirect_uri[a]=b')
    assert.equal(wrongShape.status, 200)
    assert.match(wrongShape.text, /An error has occurred/)
  })

  it('refuses an answer without the CSRF token (422)', async () => {
    const page = await browser.get(authorizeUrl(client))
    const res = await browser.post('/oauth/authorize', { ...formFields(page.text, 'authorize'), authenticity_token: 'forged' })
    assert.equal(res.status, 422)
  })

  it('skips consent for a trusted application', async () => {
    const trusted = await makeApplication(t, { trusted: true })
    const res = await browser.get(authorizeUrl(trusted))
    assert.equal(res.status, 302)
    assert.ok(new URL(String(res.headers.location)).searchParams.get('code'))
  })

  it('skips consent when the user holds a live token of the application with exactly these scopes', async () => {
    const fresh = await makeApplication(t)
    const ask = async (scope: string) => browser.get(authorizeUrl(fresh, { scope }))
    assert.equal((await ask('api read_user')).status, 200)
    const page = await ask('api read_user')
    const approved = await browser.post('/oauth/authorize', formFields(page.text, 'authorize'))
    const code = String(new URL(String(approved.headers.location)).searchParams.get('code'))
    const token = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...clientFields(fresh) })
    assert.equal(token.status, 200, token.text)

    assert.equal((await ask('read_user api')).status, 302, 'the same scopes: no consent')
    assert.equal((await ask('api')).status, 200, 'other scopes: consent again')
    const revoked = await t.api('POST', '/oauth/revoke', { token: null, form: new URLSearchParams({ token: token.body.access_token, ...clientFields(fresh) }).toString() })
    assert.equal(revoked.status, 200)
    assert.equal((await ask('api read_user')).status, 200, 'a revoked token: consent again')
  })
})
