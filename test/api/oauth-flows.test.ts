// The OAuth flows end to end over a real listening server, with fetch as a client and a browser
// would send them: the authorization code flow (sign in, consent, code, token, API, refresh,
// revoke), the implicit flow, the password grant and the client credentials grant.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser } from '../helpers/factories.js'
import { REDIRECT_URI, makeApplication, type TestApplication } from '../helpers/oauth.js'

/** A browser over fetch: keeps cookies, follows no redirect by itself. */
class FetchBrowser {
  private readonly cookies = new Map<string, string>()
  constructor(private readonly baseUrl: string) {}

  async request(path: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const res = await fetch(new URL(path, this.baseUrl), {
      method: init.method ?? (init.form === undefined ? 'GET' : 'POST'),
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(init.form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(init.form === undefined ? {} : { body: new URLSearchParams(init.form) }),
    })
    for (const header of res.headers.getSetCookie()) {
      const [pair = ''] = header.split(';')
      const eq = pair.indexOf('=')
      if (/Max-Age=0/i.test(header)) this.cookies.delete(pair.slice(0, eq))
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1))
    }
    return res
  }
}

function hiddenFields(html: string, formId: string): Record<string, string> {
  const form = new RegExp(`id="${formId}">([\\s\\S]*?)</form>`).exec(html)?.[1] ?? ''
  return Object.fromEntries([...form.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1] ?? '', (m[2] ?? '').replace(/&amp;/g, '&')]))
}

describe('OAuth flows over HTTP', () => {
  let t: TestApp
  let baseUrl: string
  let client: TestApplication
  before(async () => {
    t = await buildTestApp()
    baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 })
    await makeUser(t, { username: 'alice' })
    client = await makeApplication(t)
  })
  after(async () => { await t.close() })

  const token = (body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) })
  const user = (accessToken: string) => fetch(`${baseUrl}/api/v4/user`, { headers: { authorization: `Bearer ${accessToken}` } })

  /** Signs in through the redirect the authorize URL gives, and comes back to the consent page. */
  async function consentPage(browser: FetchBrowser, authorizeUrl: string): Promise<string> {
    const first = await browser.request(authorizeUrl)
    assert.equal(first.status, 302)
    assert.equal(first.headers.get('location'), '/users/sign_in')
    const signInPage = await (await browser.request('/users/sign_in')).text()
    const signedIn = await browser.request('/users/sign_in', {
      form: { ...hiddenFields(signInPage, 'new_user'), 'user[login]': 'alice', 'user[password]': 'password1234' },
    })
    assert.equal(signedIn.status, 302)
    assert.equal(signedIn.headers.get('location'), authorizeUrl)
    const page = await browser.request(authorizeUrl)
    assert.equal(page.status, 200)
    return page.text()
  }

  it('authorization code: sign in, consent, code, token, API, refresh, revoke', async () => {
    const browser = new FetchBrowser(baseUrl)
    const authorizeUrl = `/oauth/authorize?${new URLSearchParams({ client_id: client.uid, redirect_uri: REDIRECT_URI, response_type: 'code', state: 's-1', scope: 'api' })}`
    const page = await consentPage(browser, authorizeUrl)
    const approved = await browser.request('/oauth/authorize', { form: hiddenFields(page, 'authorize') })
    assert.equal(approved.status, 302)
    const callback = new URL(String(approved.headers.get('location')))
    assert.equal(callback.searchParams.get('state'), 's-1')
    const code = String(callback.searchParams.get('code'))

    const issued = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
      { authorization: `Basic ${Buffer.from(`${client.uid}:${client.secret}`).toString('base64')}` })
    assert.equal(issued.status, 200)
    assert.equal(issued.headers.get('cache-control'), 'no-store')
    const tokens = await issued.json() as Record<string, string>
    assert.equal(((await (await user(tokens.access_token ?? '')).json()) as { username: string }).username, 'alice')

    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '', client_id: client.uid, client_secret: client.secret })
    assert.equal(refreshed.status, 200)
    const next = await refreshed.json() as Record<string, string>
    assert.equal((await user(tokens.access_token ?? '')).status, 401)
    assert.equal((await user(next.access_token ?? '')).status, 200)

    const revoked = await fetch(`${baseUrl}/oauth/revoke`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: next.access_token, client_id: client.uid, client_secret: client.secret }),
    })
    assert.equal(revoked.status, 200)
    assert.deepEqual(await revoked.json(), {})
    assert.equal((await user(next.access_token ?? '')).status, 401)
  })

  it('implicit: the token comes back in the fragment', async () => {
    const browser = new FetchBrowser(baseUrl)
    const authorizeUrl = `/oauth/authorize?${new URLSearchParams({ client_id: client.uid, redirect_uri: REDIRECT_URI, response_type: 'token', state: 's-2' })}`
    const page = await consentPage(browser, authorizeUrl)
    const approved = await browser.request('/oauth/authorize', { form: hiddenFields(page, 'authorize') })
    const fragment = new URLSearchParams(new URL(String(approved.headers.get('location'))).hash.slice(1))
    assert.equal(fragment.get('state'), 's-2')
    assert.equal((await user(String(fragment.get('access_token')))).status, 200)
  })

  it('password: a token for a username and password', async () => {
    const res = await token({ grant_type: 'password', username: 'alice', password: 'password1234' })
    assert.equal(res.status, 200)
    assert.equal((await user(((await res.json()) as { access_token: string }).access_token)).status, 200)
    const refused = await token({ grant_type: 'password', username: 'alice', password: 'wrong' })
    assert.equal(refused.status, 401)
    assert.match(String(refused.headers.get('www-authenticate')), /^Bearer realm="Doorkeeper", error="invalid_grant"/)
  })

  it('client credentials: a token of the application, described by token/info', async () => {
    const res = await token({ grant_type: 'client_credentials', client_id: client.uid, client_secret: client.secret, scope: 'read_user' })
    assert.equal(res.status, 200)
    const issued = await res.json() as Record<string, unknown>
    assert.equal(issued.refresh_token, undefined)
    const info = await fetch(`${baseUrl}/oauth/token/info`, { headers: { authorization: `Bearer ${String(issued.access_token)}` } })
    assert.equal(info.status, 200)
    assert.deepEqual(((await info.json()) as { scopes: string[] }).scopes, ['read_user'])
  })
})
