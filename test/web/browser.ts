// A browser over Fastify inject for the web pages: keeps the cookies the server sets (honouring
// expiry), sends them back, and reads the CSRF token out of the pages' forms.
import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.js'

export interface PageResponse {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  text: string
  /** The Set-Cookie values of this response. */
  setCookies: string[]
}

export class Browser {
  readonly cookies = new Map<string, string>()
  /** `remoteAddress`: the client address the server sees (127.0.0.1 when not given). */
  constructor(private readonly t: TestApp, private readonly remoteAddress?: string) {}

  get(path: string, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.request('GET', path, undefined, headers)
  }

  /** A form POST; `fields` are sent as application/x-www-form-urlencoded in the order given (pairs for a repeated name). */
  post(path: string, fields: Record<string, string> | readonly [string, string][], headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.request('POST', path, new URLSearchParams(fields as Record<string, string>).toString(), headers)
  }

  /** Sends a form as the signed-in page at `from` would: with the CSRF token it carries. */
  async submit(from: string, action: string, fields: Record<string, string> | readonly [string, string][]): Promise<PageResponse> {
    const page = await this.get(from)
    assert.equal(page.status, 200, page.text)
    const token = metaToken(page.text)
    const pairs = Array.isArray(fields) ? fields : Object.entries(fields)
    return this.post(action, [['authenticity_token', token], ...pairs])
  }

  async request(method: string, path: string, form: string | undefined, headers: Record<string, string>): Promise<PageResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await this.t.app.inject({
      method: method as 'GET',
      url: path,
      headers: {
        ...(cookie === '' ? {} : { cookie }),
        ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        ...headers,
      },
      ...(form === undefined ? {} : { payload: form }),
      ...(this.remoteAddress === undefined ? {} : { remoteAddress: this.remoteAddress }),
    })
    const raw = response.headers['set-cookie']
    const setCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)]
    for (const header of setCookies) {
      const [pair = ''] = header.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq)
      const maxAge = /;\s*Max-Age=(\d+)/i.exec(header)?.[1]
      if (maxAge === '0') this.cookies.delete(name)
      else this.cookies.set(name, pair.slice(eq + 1))
    }
    return { status: response.statusCode, headers: response.headers, text: response.body, setCookies }
  }

  /** Opens a page and returns the CSRF token of its first form. */
  async csrfTokenFrom(path: string): Promise<string> {
    const page = await this.get(path)
    assert.equal(page.status, 200, page.text)
    return formToken(page.text)
  }

  /** Signs in through the sign-in form; fails the test unless it works. */
  async signIn(login: string, password = 'password1234'): Promise<void> {
    const token = await this.csrfTokenFrom('/users/sign_in')
    const res = await this.post('/users/sign_in', { authenticity_token: token, 'user[login]': login, 'user[password]': password })
    assert.equal(res.status, 302, res.text)
    assert.ok(this.cookies.has('_service_session'))
  }
}

/** A browser signed in through the sign-in form as `login` (test users' password unless told otherwise). */
export async function signedInBrowser(t: TestApp, login: string, password?: string): Promise<Browser> {
  const browser = new Browser(t)
  await browser.signIn(login, password)
  return browser
}

export function formToken(html: string): string {
  const token = /name="authenticity_token" value="([^"]+)"/.exec(html)?.[1]
  assert.ok(token, 'the page has a form with a CSRF token')
  return token
}

export function metaToken(html: string): string {
  const token = /<meta name="csrf-token" content="([^"]+)">/.exec(html)?.[1]
  assert.ok(token, 'the page has a csrf-token meta tag')
  return token
}

/** The Set-Cookie value for a cookie name in a response. */
export function setCookie(res: PageResponse, name: string): string | undefined {
  return res.setCookies.find((c) => c.startsWith(`${name}=`))
}
