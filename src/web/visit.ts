// What every web page knows of its visitor, and the answers pages give: the application settings,
// the signed-in session (if any), the CSRF seed and token of its forms, and the cookies to set.
// Forms carry a CSRF token derived from the visitor's session secret, or, before signing in, from
// a random cookie of their own; a POST without the right token is refused with 422 as Rails'
// forgery protection answers.
import { randomBytes } from 'node:crypto'
import { Readable, pipeline } from 'node:stream'
import { brotliCompressSync, constants as zlib, createBrotliCompress, createGzip, gzipSync } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Actor } from '../auth/actor.js'
import { ApiError } from '../common/errors.js'
import {
  CSRF_COOKIE, SESSION_COOKIE, csrfToken, csrfTokenMatches, expiredCookie, findActiveSession, isHttps, mustAcceptTerms,
  parseCookies, serializeCookie, type ActiveSession,
} from '../auth/sessions.js'
import { fitsIntegerColumn } from '../db/values.js'
import { getApplicationSettings, type ApplicationSettings } from '../services/settings.js'
import { encodingFor } from './assets.js'
import { csrfField, escapeHtml, html, type SafeHtml } from './html.js'
import { SIGN_IN_PATH, TERMS_PATH, notFoundPage, rejectedPage } from './pages.js'

/** Web routes are not part of the API: its token authentication leaves them alone. */
export const WEB = { config: { auth: 'none' as const } }

/** What every page knows of its visitor. */
export interface Visit {
  settings: ApplicationSettings
  session: ActiveSession | null
  /** Seeds the CSRF token of the forms shown and checks the one a POST sends. */
  csrfSeed: string | null
  secure: boolean
  /** Set-Cookie values to send with the answer. */
  cookies: string[]
}

export async function visitOf(req: FastifyRequest): Promise<Visit> {
  const { db, config } = req.ingot
  const settings = await getApplicationSettings(db)
  const secure = isHttps(config.externalUrl)
  const cookies = parseCookies(req.headers.cookie)
  const visit: Visit = { settings, session: null, csrfSeed: cookies.get(CSRF_COOKIE) ?? null, secure, cookies: [] }
  const secret = cookies.get(SESSION_COOKIE)
  if (secret !== undefined) {
    visit.session = await findActiveSession(db, secret, settings)
    if (visit.session === null) visit.cookies.push(expiredCookie(SESSION_COOKIE, secure))
    else {
      visit.csrfSeed = secret
      if (visit.session.renewed) visit.cookies.push(serializeCookie(SESSION_COOKIE, secret, { expiresAt: visit.session.session.expires_at, secure }))
    }
  }
  return visit
}

/** The CSRF token of the forms on the page; a visitor without a seed yet is given one. */
export function tokenOf(visit: Visit): string {
  if (visit.csrfSeed === null) {
    visit.csrfSeed = randomBytes(32).toString('base64url')
    visit.cookies.push(serializeCookie(CSRF_COOKIE, visit.csrfSeed, { secure: visit.secure }))
  }
  return csrfToken(visit.csrfSeed)
}

export function csrfVerified(req: FastifyRequest, visit: Visit): boolean {
  const sent = (req.body as Record<string, unknown> | undefined)?.authenticity_token
  return visit.csrfSeed !== null && csrfTokenMatches(visit.csrfSeed, sent)
}

/** Where a visitor sent to sign in came from, to go back there afterwards (as Devise's stored location). */
const RETURN_TO_COOKIE = '_service_return_to'
const RETURN_TO_LIFETIME_MS = 60 * 60 * 1000

/** A path on this site (`/…`, never `//host` or `/\host`, which browsers read as another site), or null. */
export function localPath(value: string | undefined): string | null {
  if (value === undefined || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null
  return /[\u0000-\u001f\u007f]/.test(value) ? null : value
}

/** Remembers the page to come back to after signing in. */
export function rememberReturnTo(visit: Visit, path: string): void {
  visit.cookies.push(serializeCookie(RETURN_TO_COOKIE, path, { expiresAt: Date.now() + RETURN_TO_LIFETIME_MS, secure: visit.secure }))
}

/** The remembered page (a local path) or `fallback`; the memory is cleared. */
export function takeReturnTo(req: FastifyRequest, visit: Visit, fallback: string): string {
  const remembered = parseCookies(req.headers.cookie).get(RETURN_TO_COOKIE)
  if (remembered === undefined) return fallback
  visit.cookies.push(expiredCookie(RETURN_TO_COOKIE, visit.secure))
  return localPath(remembered) ?? fallback
}

export function signedIn(visit: Visit, secret: string, expiresAt: number): void {
  visit.csrfSeed = secret
  visit.cookies.push(serializeCookie(SESSION_COOKIE, secret, { expiresAt, secure: visit.secure }))
}

/** The string fields of a form's `scope[…]` hash. */
export function formOf(req: FastifyRequest, scope: string): Record<string, string> {
  const hash = (req.body as Record<string, unknown> | undefined)?.[scope]
  if (typeof hash !== 'object' || hash === null) return {}
  return Object.fromEntries(Object.entries(hash).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
}

/** The string values of a form's `scope[field][]` list (checkboxes). */
export function formListOf(req: FastifyRequest, scope: string, field: string): string[] {
  const hash = (req.body as Record<string, unknown> | undefined)?.[scope]
  const list = typeof hash === 'object' && hash !== null ? (hash as Record<string, unknown>)[field] : undefined
  return Array.isArray(list) ? list.filter((value): value is string => typeof value === 'string') : []
}

/** The `:id` path parameter, naming a row; null for anything that cannot (so the page answers 404). */
export function idParam(req: FastifyRequest): number | null {
  const value = (req.params as Record<string, unknown>).id
  if (typeof value !== 'string' || !/^\d{1,19}$/.test(value)) return null
  const id = Number(value)
  return fitsIntegerColumn(id) ? id : null
}

/** A visit whose visitor is signed in. */
export type SignedInVisit = Visit & { session: ActiveSession }

/** The signed-in visitor as the API reads a caller signed in by cookie, for loaders, policies and services. */
export function actorOf(visit: SignedInVisit): Actor {
  return { user: visit.session.user, token: null, sudoFrom: null, sessionId: visit.session.session.id }
}

export type SignedInHandler = (req: FastifyRequest, reply: FastifyReply, visit: SignedInVisit) => Promise<FastifyReply>

/**
 * A page of signed-in users only, as Devise's authenticate_user! guards the original's: anyone
 * else is sent to sign in, a user who must accept the terms to them, and brought back to the page
 * afterwards; a form sent to it (a POST) must carry the CSRF token.
 */
export function forSignedIn(handler: SignedInHandler) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const visit = await visitOf(req)
    // A page asked for (not a form sent) is where signing in, or accepting the terms, comes back to.
    const returnTo = req.method === 'GET' ? localPath(req.url) : null
    if (visit.session === null) {
      if (returnTo !== null) rememberReturnTo(visit, returnTo)
      return redirect(reply, visit, SIGN_IN_PATH)
    }
    if (mustAcceptTerms(visit.session.user, visit.settings)) {
      if (returnTo !== null) rememberReturnTo(visit, returnTo)
      return redirect(reply, visit, TERMS_PATH)
    }
    if (req.method === 'POST' && !csrfVerified(req, visit)) return sendPage(reply, visit, 422, rejectedPage())
    return handler(req, reply, visit as SignedInVisit)
  }
}

export function sendNotFound(reply: FastifyReply, visit: Visit): FastifyReply {
  return sendPage(reply, visit, 404, notFoundPage())
}

/** An API error as the sentences a form shows: `{"email":["is invalid"]}` → "Email is invalid". */
export function fullMessages(err: ApiError): string[] {
  const message = err.body.message
  if (typeof message === 'string') return [message]
  if (typeof message !== 'object' || message === null) return [String(err.body.error ?? err.message)]
  return Object.entries(message).flatMap(([field, errors]) => {
    const name = field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' ')
    return (Array.isArray(errors) ? errors : [errors]).map((e) => `${name} ${String(e)}`)
  })
}

/** A service's refusal (a 4xx) as the form's messages; anything else is not the form's fault and is thrown on. */
export function refusalOf(err: unknown): string[] {
  if (err instanceof ApiError && err.statusCode < 500) return fullMessages(err)
  throw err
}

/**
 * The Content-Security-Policy of every page: nothing but this site's own stylesheet and scripts,
 * no inline script or style, no framing, no <base>; images from anywhere on the web too, as
 * Markdown shows them (READMEs, comments: web/markdown.ts keeps them to http and https); forms post here only, and to
 * `formTargets` (the OAuth consent form, which redirects to the client: browsers check that too).
 */
export function contentSecurityPolicy(formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'", "style-src 'self'", "script-src 'self'", "img-src 'self' data: https: http:", "connect-src 'self'",
    `form-action ${["'self'", ...formTargets].join(' ')}`, "frame-ancestors 'none'", "base-uri 'none'",
  ].join('; ')
}

const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
}

/** The CSP source a URL's destination needs: its origin, or its scheme for an app's own (`com.example.app:`). */
export function cspSourceOf(url: string): string | null {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : parsed.protocol
  } catch {
    return null
  }
}

export function redirect(reply: FastifyReply, visit: Visit, location: string): FastifyReply {
  return withCookies(reply, visit).code(302).header('location', location)
    .headers({ ...PAGE_HEADERS, 'content-security-policy': contentSecurityPolicy() }).type('text/html; charset=utf-8')
    .send(`<html><body>You are being <a href="${escapeHtml(location)}">redirected</a>.</body></html>`)
}

/**
 * A page as its pieces in order (a large page's kept parts, such as a diff's files as UTF-8
 * bytes): compressed and sent as a stream, without joining them into one string first. A page of
 * megabytes joined, encoded and compressed at once costs a fresh allocation of its whole size
 * for each step, which on this kind of machine is most of the page's time.
 */
export type PageParts = readonly (string | Buffer)[]

/** A page's parts: its markup with `kept` (a large part's kept bytes) in place of `mark`, which the markup holds once. */
export function pageAround(markup: string, mark: string, kept: PageParts): PageParts {
  const at = markup.indexOf(mark)
  return [markup.slice(0, at), ...kept, markup.slice(at + mark.length)]
}

/**
 * While an administrator impersonates a user, every page says so at its top and offers to stop
 * (the original's header banner): placed here, where every page passes, right after `<body>`.
 */
function withImpersonationBanner(visit: Visit, page: string | PageParts): string | PageParts {
  const session = visit.session
  if (session === null || session.impersonator === null) return page
  const banner = html`<div class="impersonation-banner" role="status"><form method="post" action="/admin/impersonation">${csrfField(tokenOf(visit))}${methodField('DELETE')}
You are impersonating <strong>@${session.user.username}</strong> (you are @${session.impersonator.username}). <button type="submit">Stop impersonating</button></form></div>
`
  const withBanner = (markup: string) => markup.replace('<body>\n', `<body>\n${banner.markup}`)
  if (typeof page === 'string') return withBanner(page)
  const at = page.findIndex((part) => typeof part === 'string' && part.includes('<body>\n'))
  return page.map((part, i) => (i === at ? withBanner(part as string) : part))
}

export function sendPage(reply: FastifyReply, visit: Visit, status: number, page: string | PageParts, formTargets: readonly string[] = []): FastifyReply {
  const markup = withImpersonationBanner(visit, page)
  withCookies(reply, visit).code(status)
    .headers({ ...PAGE_HEADERS, 'content-security-policy': contentSecurityPolicy(formTargets) })
    .type('text/html; charset=utf-8')
  if (typeof markup !== 'string') return sendParts(reply, markup)
  if (markup.length < COMPRESS_FROM_CHARS) return reply.send(markup)
  void reply.header('vary', 'Accept-Encoding')
  switch (encodingFor(reply.request)) {
    case 'br': return reply.header('content-encoding', 'br').send(brotliCompressSync(markup, BROTLI_FAST))
    case 'gzip': return reply.header('content-encoding', 'gzip').send(gzipSync(markup, GZIP_FAST))
    case null: return reply.send(markup)
  }
}

function sendParts(reply: FastifyReply, parts: PageParts): FastifyReply {
  // A small page goes as it is, as a small page of one string does.
  if (parts.reduce((size, part) => size + part.length, 0) < COMPRESS_FROM_CHARS) {
    return reply.send(Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))))
  }
  void reply.header('vary', 'Accept-Encoding')
  const encoding = encodingFor(reply.request)
  const body = Readable.from(parts, { objectMode: false })
  if (encoding === null) return reply.send(body)
  const compress = encoding === 'br' ? createBrotliCompress(BROTLI_FAST) : createGzip(GZIP_FAST)
  // A visitor who leaves mid-page ends the stream: nothing to do but stop.
  return reply.header('content-encoding', encoding).send(pipeline(body, compress, () => {}))
}

/**
 * Pages of code are large (a 5,000-line highlighted file is 1.6 MB of markup) and shrink 25 to 50
 * times; small pages gain too little to be worth the time. Fast levels, measured on that page:
 * gzip 1 gives the size gzip 4 gives in 2.9 ms instead of 7.3; Brotli 3 takes 4.7 ms for 33 KB
 * where Brotli 4 takes 8.4 ms for 30 KB.
 */
const COMPRESS_FROM_CHARS = 8 * 1024
const BROTLI_FAST = { params: { [zlib.BROTLI_PARAM_QUALITY]: 3 } }
const GZIP_FAST = { level: 1 }

function withCookies(reply: FastifyReply, visit: Visit): FastifyReply {
  if (visit.cookies.length > 0) void reply.header('set-cookie', visit.cookies)
  return reply
}

/**
 * The method a form means: HTML forms only GET and POST, so a POST names PUT, PATCH or DELETE in a
 * hidden `_method` field, as Rails' forms do; one route takes the POST and branches on this.
 */
export function formMethod(req: FastifyRequest): 'POST' | 'PUT' | 'PATCH' | 'DELETE' {
  const named = (req.body as Record<string, unknown> | undefined)?._method
  const method = typeof named === 'string' ? named.toUpperCase() : 'POST'
  return method === 'PUT' || method === 'PATCH' || method === 'DELETE' ? method : 'POST'
}

/** The hidden field of a form that means PUT, PATCH or DELETE (see formMethod). */
export function methodField(method: 'PUT' | 'PATCH' | 'DELETE'): SafeHtml {
  return html`<input type="hidden" name="_method" value="${method.toLowerCase()}">`
}
