// The OAuth authorization endpoint, a page as in the original (Doorkeeper's authorizations
// controller): a visitor not signed in signs in first and comes back; a request that cannot be
// answered with a redirect shows an error page; otherwise the user is asked to authorize or deny
// (unless the application is trusted or already holds a token with these scopes), and is sent
// back to the client with a code, a token (the implicit flow) or access_denied.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { mustAcceptTerms } from '../auth/sessions.js'
import { findUserById } from '../finders/users-finder.js'
import {
  approve, consentNeeded, deny, preAuthorize, type AuthorizationParams,
} from '../services/oauth/authorization.js'
import { AUTHORIZE_PATH, authorizeErrorPage, authorizePage } from './oauth-pages.js'
import { SIGN_IN_PATH, TERMS_PATH, rejectedPage } from './pages.js'
import { WEB, cspSourceOf, csrfVerified, formMethod, redirect, rememberReturnTo, sendPage, tokenOf, visitOf, type Visit } from './visit.js'

const PARAM_NAMES = ['client_id', 'redirect_uri', 'response_type', 'state', 'scope', 'nonce'] as const

/** The authorization parameters among a query or form (string values only). */
function authorizationParams(source: unknown): AuthorizationParams {
  const params: AuthorizationParams = {}
  if (typeof source !== 'object' || source === null) return params
  for (const name of PARAM_NAMES) {
    const value = (source as Record<string, unknown>)[name]
    if (typeof value === 'string') params[name] = value
  }
  return params
}

/** The signed-in user who may answer; otherwise the redirect that comes first (sign in, or accept the terms). */
function userOf(visit: Visit) {
  const user = visit.session?.user ?? null
  if (user === null) return { redirectTo: SIGN_IN_PATH }
  if (mustAcceptTerms(user, visit.settings)) return { redirectTo: TERMS_PATH }
  return { user }
}

const oauthAuthorize: FastifyPluginAsync = async (app) => {
  app.get(AUTHORIZE_PATH, WEB, async (req, reply) => {
    const visit = await visitOf(req)
    const { user, redirectTo } = userOf(visit)
    if (user === undefined) {
      rememberReturnTo(visit, req.url)
      return redirect(reply, visit, redirectTo)
    }
    const { db } = req.ingot
    const pre = await preAuthorize(db, authorizationParams(req.query))
    if (pre.kind === 'invalid') return sendPage(reply, visit, 200, authorizeErrorPage(pre.error))
    if (!(await consentNeeded(db, user.id, pre.request))) return redirect(reply, visit, await approve(db, user.id, pre.request))
    const owner = pre.request.application.owner_id === null ? null : await findUserById(db, pre.request.application.owner_id)
    // Authorize and Deny redirect to the client, which the page's form-action must allow.
    const client = cspSourceOf(pre.request.redirectUri)
    return sendPage(reply, visit, 200, authorizePage({ request: pre.request, owner, user, csrfToken: tokenOf(visit) }), client === null ? [] : [client])
  })

  /** The consent forms' answer: Authorize (POST), or Deny (DELETE, or a POST naming it in `_method`). */
  const answer = (method: 'POST' | 'DELETE') => async (req: FastifyRequest, reply: FastifyReply) => {
    const visit = await visitOf(req)
    const { user, redirectTo } = userOf(visit)
    if (user === undefined) return redirect(reply, visit, redirectTo)
    if (!csrfVerified(req, visit)) return sendPage(reply, visit, 422, rejectedPage())
    const denied = method === 'DELETE' || formMethod(req) === 'DELETE'
    // A DELETE's parameters are in its query, merged with its body (app.ts).
    const pre = await preAuthorize(req.ingot.db, authorizationParams(method === 'DELETE' ? req.query : req.body))
    if (pre.kind === 'invalid') return sendPage(reply, visit, 200, authorizeErrorPage(pre.error))
    return redirect(reply, visit, denied ? deny(pre.request) : await approve(req.ingot.db, user.id, pre.request))
  }
  app.post(AUTHORIZE_PATH, WEB, answer('POST'))
  app.delete(AUTHORIZE_PATH, WEB, answer('DELETE'))
}

export default oauthAuthorize
