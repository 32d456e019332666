// The web front door, outside /api/v4: sign-in and sign-out, sign-up, the terms and help (the
// root page is the dashboard's, dashboard.ts). Each page reads the application settings that govern it on every request, so a change
// takes effect at once; visits, CSRF and the answers pages give are in visit.ts.
import type { FastifyPluginAsync } from 'fastify'
import { ApiError } from '../common/errors.js'
import { COMPATIBLE_VERSION, ingotRevision } from '../revision.js'
import { SESSION_COOKIE, csrfToken, expiredCookie } from '../auth/sessions.js'
import { endSession, signIn, startSession } from '../services/sessions/sign-in.js'
import { signUp } from '../services/users/sign-up.js'
import { acceptTerms } from '../services/users/accept-terms.js'
import {
  SIGN_IN_PATH, TERMS_PATH, helpPage, notFoundPage, rejectedPage, signInPage, termsPage, webUrl, welcomePage,
  type SignUpValues,
} from './pages.js'
import { WEB, csrfVerified, formOf, fullMessages, redirect, sendPage, signedIn, takeReturnTo, tokenOf, visitOf } from './visit.js'

const INVALID_LOGIN = 'Invalid Login or password.'
const BLOCKED = 'Your account has been blocked. Please contact your administrator if you think this is an error.'
const PASSWORD_SIGN_IN_DISABLED = 'Signing in with a password is disabled on this instance.'
const TERMS_REQUIRED = 'You must accept our Terms of Service and privacy policy in order to register an account'

const web: FastifyPluginAsync = async (app) => {
  app.get(SIGN_IN_PATH, WEB, async (req, reply) => {
    const visit = await visitOf(req)
    if (visit.session !== null) return redirect(reply, visit, takeReturnTo(req, visit, '/'))
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
    return redirect(reply, visit, takeReturnTo(req, visit, '/'))
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
    return redirect(reply, visit, takeReturnTo(req, visit, '/'))
  })

  app.get('/help', WEB, async (req, reply) => {
    const visit = await visitOf(req)
    return sendPage(reply, visit, 200, helpPage({
      settings: visit.settings, signedIn: visit.session !== null, version: COMPATIBLE_VERSION, revision: await ingotRevision(),
    }))
  })
}

export default web

