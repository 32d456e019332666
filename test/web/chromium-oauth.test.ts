// The OAuth code flow in a real browser (headless Chromium), as a person meets it: an application
// sends them to /oauth/authorize, they sign in, read the consent page, Authorize (or Deny), and the
// browser lands on the application's redirect URI — here a small HTTP server of the test's, which
// then exchanges the code at the token endpoint as an application does.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import type { Browser } from 'playwright-core'
import { launchChromium, openPage, startListeningApp, submitSignIn, type ListeningApp } from '../helpers/chromium.js'
import { makeApplication, type TestApplication } from '../helpers/oauth.js'

/** The client application's callback: records the query of every visit to it and answers a plain page. */
async function startCallbackServer(): Promise<{ url: string; visits: URLSearchParams[]; close(): Promise<void> }> {
  const visits: URLSearchParams[] = []
  const server = http.createServer((req, res) => {
    // Chromium asks the client's site for /favicon.ico too.
    const url = new URL(req.url ?? '/', 'http://callback')
    if (url.pathname === '/callback') visits.push(url.searchParams)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><title>Client</title><h1>Back at the client</h1>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/callback`, visits, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

describe('OAuth authorization in Chromium', () => {
  let server: ListeningApp
  let browser: Browser
  let callback: Awaited<ReturnType<typeof startCallbackServer>>
  let client: TestApplication

  before(async () => {
    ;[server, browser, callback] = await Promise.all([startListeningApp(), launchChromium(), startCallbackServer()])
    client = await makeApplication(server.t, { name: 'Chat <bot>', redirectUri: callback.url, scopes: 'api openid' })
  })
  after(async () => {
    await browser?.close()
    await server?.close()
    await callback?.close()
  })

  const authorizePath = (state: string) => `/oauth/authorize?${new URLSearchParams({
    client_id: client.uid, redirect_uri: callback.url, response_type: 'code', state, scope: 'api openid', nonce: 'n-0S6',
  })}`

  it('signs in, shows the consent page, and brings the code back to the application', async () => {
    const { page, consoleErrors, close } = await openPage(browser, server.url)
    try {
      await page.goto(authorizePath('state with spaces & signs'))
      await page.waitForURL(`${server.url}/users/sign_in`)
      await submitSignIn(page)

      await page.waitForURL((url) => url.pathname === '/oauth/authorize')
      assert.equal(await page.locator('h1').textContent(), 'Authorize Chat <bot> to use your account?')
      assert.deepEqual(await page.locator('ul.scopes strong').allTextContents(), ['api', 'openid'])
      assert.deepEqual(consoleErrors, [])
      await page.getByRole('button', { name: 'Authorize' }).click()

      await page.waitForURL((url) => url.href.startsWith(callback.url))
      const visit = callback.visits.at(-1)!
      assert.equal(visit.get('state'), 'state with spaces & signs', 'state comes back unchanged')
      const code = visit.get('code')
      assert.match(code ?? '', /^[0-9a-f]{64}$/)

      const answer = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code', code: code!, redirect_uri: callback.url, client_id: client.uid, client_secret: client.secret,
        }),
      })
      assert.equal(answer.status, 200)
      const tokens = await answer.json() as { access_token: string; token_type: string; scope: string; id_token: string }
      assert.equal(tokens.token_type, 'bearer')
      assert.equal(tokens.scope, 'api openid')
      const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${server.url}/oauth/discovery/keys`)), {
        issuer: server.url, audience: client.uid,
      })
      assert.equal(payload.nonce, 'n-0S6')
      assert.equal(payload.nickname, 'root')
      const user = await fetch(`${server.url}/api/v4/user`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
      assert.equal(((await user.json()) as { username: string }).username, 'root')
    } finally {
      await close()
    }
  })

  it('sends a denial back to the application without a code', async () => {
    const denied = await makeApplication(server.t, { name: 'Denied client', redirectUri: callback.url, scopes: 'read_user' })
    const { page, consoleErrors, close } = await openPage(browser, server.url)
    try {
      await page.goto('/users/sign_in')
      await submitSignIn(page)
      await page.waitForURL(`${server.url}/`)

      await page.goto(`/oauth/authorize?${new URLSearchParams({
        client_id: denied.uid, redirect_uri: callback.url, response_type: 'code', state: 's1', scope: 'read_user',
      })}`)
      await page.getByRole('button', { name: 'Deny' }).click()
      await page.waitForURL((url) => url.href.startsWith(callback.url))
      const visit = callback.visits.at(-1)!
      assert.equal(visit.get('error'), 'access_denied')
      assert.equal(visit.get('state'), 's1')
      assert.equal(visit.get('code'), null)
      assert.deepEqual(consoleErrors, [])
    } finally {
      await close()
    }
  })
})
