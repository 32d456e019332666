// The web front door, outside /api/v4: sign-in and sign-out, sign-up, the terms, help, and the
// root page. Each page reads the application settings that govern it on every request, so a change
// takes effect at once. Forms carry a CSRF token derived from the visitor's session secret, or,
// before signing in, from a random cookie of their own; a POST without the right token is refused
// with 422 as Rails' forgery protection answers.
import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../common/errors.js'
import { COMPATIBLE_VERSION, ingotRevision } from '../revision.js'
import {
  CSRF_COOKIE, SESSION_COOKIE, csrfToken, csrfTokenMatches, expiredCookie, findActiveSession, isHttps, mustAcceptTerms,
  parseCookies, serializeCookie, type ActiveSession,
} from '../auth/sessions.js'
import { getApplicationSettings, type ApplicationSettings } from '../services/settings.js'
import { endSession, signIn, startSession } from '../services/sessions/sign-in.js'
import { signUp } from '../services/users/sign-up.js'
import { acceptTerms } from '../services/users/accept-terms.js'
import {
  SIGN_IN_PATH, TERMS_PATH, helpPage, homePage, notFoundPage, rejectedPage, signInPage, termsPage, webUrl, welcomePage,
  type SignUpValues,
} from './pages.js'
import { escapeHtml } from './html.js'

/** What every page knows of its visitor. */
interface Visit {
  settings: ApplicationSettings
  session: ActiveSession | null
  /** Seeds the CSRF token of the forms shown and checks the one a POST sends. */
  csrfSeed: string | null
  secure: boolean
  /** Set-Cookie values to send with the answer. */
  cookies: string[]
}

const INVALID_LOGIN = 'Invalid Login or password.'
const BLOCKED = 'Your account has been blocked. Please contact your administrator if you think this is an error.'
const PASSWORD_SIGN_IN_DISABLED = 'Signing in with a password is disabled on this instance.'
const TERMS_REQUIRED = 'You must accept our Terms of Service and privacy policy in order to register an account'

/** Web routes are not part of the API: its token authentication leaves them alone. */
const WEB = { config: { auth: 'none' as const } }

const web: FastifyPluginAsync = async (app) => {
  app.get('/', WEB, async (req, reply) => {
    const visit = await visitOf(req)
    if (visit.session === null) {
      return redirect(reply, visit, homePageUrl(app, visit.settings) ?? SIGN_IN_PATH)
    }
    if (mustAcceptTerms(visit.session.user, visit.settings)) return redirect(reply, visit, TERMS_PATH)
    return sendPage(reply, visit, 200, homePage(visit.session.user, tokenOf(visit)))
  })

  app.get(SIGN_IN_PATH, WEB, async (req, reply) => {
    const visit = await visitOf(req)
    if (visit.session !== null) return redirect(reply, visit, '/')
    return sendPage(reply, visit, 200, signInPage({ settings: visit.settings, csrfToken: tokenOf(visit) }))
  })

  app.post(SIGN_IN_PATH, WEB, async (req, reply) => {
    const visit = await visitOf(req)
    if (!csrfVerified(req, visit)) return sendPage(reply, visit, 422, rejectedPage())
    if (visit.session !== null) return redirect(reply, visit, '/')
    const form = formOf(req, 'user')
    const login = form.login ?? ''
    const result = await signIn(req.ingot, { login, password: form.password ?? '', address: req.ip })
    if (result.kind !== 'signed_in') {
      const alert = result.kind === 'blocked' ? BLOCKED : result.kind === 'invalid' ? INVALID_LOGIN : PASSWORD_SIGN_IN_DISABLED
      return sendPage(reply, visit, 200, signInPage({ settings: visit.settings, csrfToken: tokenOf(visit), alert, login }))
    }
    signedIn(visit, result.secret, result.expiresAt)
    return redirect(reply, visit, '/')
  })

  app.post('/users/sign_out', WEB, async (req, reply) => {
    const visit = await visitOf(req)
    const afterSignOut = webUrl(visit.settings.after_sign_out_path) ?? SIGN_IN_PATH
    if (visit.session === null) return redirect(reply, visit, afterSignOut)
    if (!csrfVerified(req, visit)) return sendPage(reply, visit, 422, rejectedPage())
    await endSession(app.ingot.db, visit.session.secret)
    visit.cookies.push(expiredCookie(SESSION_COOKIE, visit.secure))
    return redirect(reply, visit, afterSignOut)
  })

  app.post('/users', WEB, async (req, reply) => {
    const visit = await visitOf(req)
    if (!csrfVerified(req, visit)) return sendPage(reply, visit, 422, rejectedPage())
    if (visit.session !== null) return redirect(reply, visit, '/')
    // The original's form names its fields new_user[…] (to keep them apart from sign-in's); user[…] works too.
    const form = { ...formOf(req, 'user'), ...formOf(req, 'new_user') }
    const values: SignUpValues = { name: form.name ?? '', username: form.username ?? '', email: form.email ?? '' }
    const refused = (alert: string | null, signUpErrors: readonly string[] = []) => sendPage(reply, visit, 200, signInPage({
      settings: visit.settings, csrfToken: tokenOf(visit), alert, signUpValues: values, signUpErrors,
    }))
    const termsAccepted = ['1', 'true', 'on', 'yes'].includes(String((req.body as Record<string, unknown>).terms_opt_in ?? ''))
    try {
      const result = await signUp(req.ingot, { ...values, password: form.password ?? '', termsAccepted })
      if (result.kind === 'sign_up_disabled') return redirect(reply, visit, SIGN_IN_PATH)
      if (result.kind === 'terms_not_accepted') return refused(TERMS_REQUIRED)
      const { secret, expiresAt } = await startSession(app.ingot.db, result.user.id)
      signedIn(visit, secret, expiresAt)
      return sendPage(reply, visit, 200, welcomePage(result.user, visit.settings, csrfToken(secret)))
    } catch (err) {
      if (err instanceof ApiError && err.statusCode < 500) return refused(null, fullMessages(err))
      throw err
    }
  })

  app.get(TERMS_PATH, WEB, async (req, reply) => {
    const visit = await visitOf(req)
    const terms = visit.settings.terms
    if (terms === null || terms.trim() === '') return sendPage(reply, visit, 404, notFoundPage())
    return sendPage(reply, visit, 200, termsPage({ terms, user: visit.session?.user ?? null, csrfToken: tokenOf(visit) }))
  })

  app.post(`${TERMS_PATH}/accept`, WEB, async (req, reply) => {
    const visit = await visitOf(req)
    if (visit.session === null) return redirect(reply, visit, SIGN_IN_PATH)
    if (!csrfVerified(req, visit)) return sendPage(reply, visit, 422, rejectedPage())
    await acceptTerms(app.ingot.db, visit.session.user.id)
    return redirect(reply, visit, '/')
  })

  app.get('/help', WEB, async (req, reply) => {
    const visit = await visitOf(req)
    return sendPage(reply, visit, 200, helpPage({
      settings: visit.settings, signedIn: visit.session !== null, version: COMPATIBLE_VERSION, revision: await ingotRevision(),
    }))
  })
}

export default web

async function visitOf(req: FastifyRequest): Promise<Visit> {
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
function tokenOf(visit: Visit): string {
  if (visit.csrfSeed === null) {
    visit.csrfSeed = randomBytes(32).toString('base64url')
    visit.cookies.push(serializeCookie(CSRF_COOKIE, visit.csrfSeed, { secure: visit.secure }))
  }
  return csrfToken(visit.csrfSeed)
}

function csrfVerified(req: FastifyRequest, visit: Visit): boolean {
  const sent = (req.body as Record<string, unknown> | undefined)?.authenticity_token
  return visit.csrfSeed !== null && csrfTokenMatches(visit.csrfSeed, sent)
}

function signedIn(visit: Visit, secret: string, expiresAt: number): void {
  visit.csrfSeed = secret
  visit.cookies.push(serializeCookie(SESSION_COOKIE, secret, { expiresAt, secure: visit.secure }))
}

/** The string fields of a form's `scope[…]` hash. */
function formOf(req: FastifyRequest, scope: string): Record<string, string> {
  const hash = (req.body as Record<string, unknown> | undefined)?.[scope]
  if (typeof hash !== 'object' || hash === null) return {}
  return Object.fromEntries(Object.entries(hash).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
}

/** An API error as the sentences a form shows: `{"email":["is invalid"]}` → "Email is invalid". */
function fullMessages(err: ApiError): string[] {
  const message = err.body.message
  if (typeof message === 'string') return [message]
  if (typeof message !== 'object' || message === null) return [String(err.body.error ?? err.message)]
  return Object.entries(message).flatMap(([field, errors]) => {
    const name = field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' ')
    return (Array.isArray(errors) ? errors : [errors]).map((e) => `${name} ${String(e)}`)
  })
}

/**
 * Where an anonymous visitor of `/` goes: home_page_url when set, unless it is this instance's own
 * root (which would loop), as the original's redirect_to_home_page_url? decides.
 */
function homePageUrl(app: FastifyInstance, settings: ApplicationSettings): string | null {
  const url = webUrl(settings.home_page_url)
  if (url === null) return null
  const root = app.ingot.config.externalUrl.replace(/\/+$/, '')
  return [root, '', '/'].includes(url.replace(/\/+$/, '')) ? null : url
}

function redirect(reply: FastifyReply, visit: Visit, location: string): FastifyReply {
  return withCookies(reply, visit).code(302).header('location', location).type('text/html; charset=utf-8')
    .send(`<html><body>You are being <a href="${escapeHtml(location)}">redirected</a>.</body></html>`)
}

function sendPage(reply: FastifyReply, visit: Visit, status: number, markup: string): FastifyReply {
  return withCookies(reply, visit).code(status)
    .headers({ 'cache-control': 'no-store', 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff' })
    .type('text/html; charset=utf-8').send(markup)
}

function withCookies(reply: FastifyReply, visit: Visit): FastifyReply {
  if (visit.cookies.length > 0) void reply.header('set-cookie', visit.cookies)
  return reply
}
