// OAuth in tests: applications made through the service, token requests as clients send them
// (form-encoded, the client in the body or in HTTP Basic), and the code flow through a Browser.
import assert from 'node:assert/strict'
import type { OauthApplicationRow } from '../../src/db/schema.js'
import { createApplication, updateApplication } from '../../src/services/oauth/applications.js'
import type { ApiResponse, TestApp } from './app.js'
import type { Browser } from '../web/browser.js'

export const REDIRECT_URI = 'https://client.example/callback'

export interface TestApplication {
  application: OauthApplicationRow
  uid: string
  secret: string
}

export async function makeApplication(
  t: TestApp, options: { scopes?: string; redirectUri?: string; trusted?: boolean; name?: string } = {},
): Promise<TestApplication> {
  const { application, secret } = await createApplication(t.ctx.db, {
    name: options.name ?? 'Test client',
    redirectUri: options.redirectUri ?? REDIRECT_URI,
    scopes: options.scopes ?? 'api read_user openid',
    ownerId: null,
  })
  const trusted = options.trusted === true ? await updateApplication(t.ctx.db, application, {
    name: application.name, redirectUri: application.redirect_uri, scopes: application.scopes, trusted: true,
  }) : application
  return { application: trusted, uid: application.uid, secret }
}

/** POST /oauth/token with a form body; `basic` sends the client as HTTP Basic instead of in the body. */
export function tokenRequest(t: TestApp, fields: Record<string, string>, options: { basic?: [string, string] } = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = {}
  if (options.basic !== undefined) headers.authorization = `Basic ${Buffer.from(options.basic.join(':')).toString('base64')}`
  return t.api('POST', '/oauth/token', { token: null, form: new URLSearchParams(fields).toString(), headers })
}

export function clientFields(client: TestApplication): Record<string, string> {
  return { client_id: client.uid, client_secret: client.secret }
}

/** The authorize URL of a code (or implicit) request. */
export function authorizeUrl(client: TestApplication, params: Record<string, string> = {}): string {
  const query = new URLSearchParams({ client_id: client.uid, redirect_uri: REDIRECT_URI, response_type: 'code', state: 'xyz', ...params })
  return `/oauth/authorize?${query}`
}

/** Approves a code request as the browser's signed-in user and returns the code. */
export async function authorizeCode(browser: Browser, client: TestApplication, params: Record<string, string> = {}): Promise<string> {
  const page = await browser.get(authorizeUrl(client, params))
  let location = page.headers.location
  if (page.status === 200) {
    const fields = Object.fromEntries([...page.text.matchAll(/<form method="post" action="\/oauth\/authorize" id="authorize">([\s\S]*?)<\/form>/g)]
      .flatMap((m) => [...(m[1] ?? '').matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((f) => [f[1], unescape(f[2] ?? '')])))
    const answer = await browser.post('/oauth/authorize', fields)
    assert.equal(answer.status, 302, answer.text)
    location = answer.headers.location
  }
  assert.equal(typeof location, 'string', page.text)
  const code = new URL(String(location)).searchParams.get('code')
  assert.ok(code, String(location))
  return code
}

function unescape(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
}
