// The authorization endpoint's decisions, as Doorkeeper 4.3.2's pre-authorization makes them: the
// response type, the client, the scopes and the redirect URI are checked in that order, and a
// failure is shown to the user (never sent to a redirect URI that may not be the client's). Then
// the user approves (a code, or a token in the fragment for the implicit flow) or denies.
import type { Db } from '../../db/index.js'
import type { OauthApplicationRow } from '../../db/schema.js'
import type { OauthErrorCode } from '../../common/errors.js'
import { OAUTH_ERROR_DESCRIPTIONS } from '../../common/errors.js'
import type { Scope } from '../../auth/actor.js'
import { tokenDigest } from '../../auth/secrets.js'
import { findApplicationByUid, generateOauthValue, redirectUrisOf, scopesOf } from './applications.js'
import { holdsMatchingToken, issueUserToken, requestedScopes } from './tokens.js'

/** Doorkeeper's authorization_code_expires_in default. */
export const AUTHORIZATION_CODE_LIFETIME_MS = 10 * 60 * 1000

export type ResponseType = 'code' | 'token'

/** The parameters of GET /oauth/authorize, and the hidden fields of the consent forms. */
export interface AuthorizationParams {
  client_id?: string
  redirect_uri?: string
  response_type?: string
  state?: string
  scope?: string
  nonce?: string
}

export interface AuthorizationRequest {
  application: OauthApplicationRow
  redirectUri: string
  responseType: ResponseType
  scopes: Scope[]
  state: string | null
  nonce: string | null
}

export type PreAuthorization =
  | { kind: 'valid'; request: AuthorizationRequest }
  | { kind: 'invalid'; error: OauthErrorCode }

export async function preAuthorize(db: Db, params: AuthorizationParams): Promise<PreAuthorization> {
  const invalid = (error: OauthErrorCode): PreAuthorization => ({ kind: 'invalid', error })
  const responseType = params.response_type
  if (responseType !== 'code' && responseType !== 'token') return invalid('unsupported_response_type')
  const application = params.client_id ? await findApplicationByUid(db, params.client_id) : null
  if (application === null) return invalid('invalid_client')
  const scopes = requestedScopes(params.scope, scopesOf(application.scopes))
  if (scopes === null) return invalid('invalid_scope')
  const redirectUri = params.redirect_uri ?? ''
  if (!redirectUriRegistered(redirectUri, redirectUrisOf(application))) return invalid('invalid_redirect_uri')
  return {
    kind: 'valid',
    request: { application, redirectUri, responseType, scopes, state: params.state || null, nonce: params.nonce || null },
  }
}

/**
 * Doorkeeper's URIChecker: an absolute URI without a fragment that is one of the registered ones;
 * its query is free unless the registered URI has one, which it must then carry.
 */
function redirectUriRegistered(value: string, registered: readonly string[]): boolean {
  let uri: URL
  try {
    uri = new URL(value)
  } catch {
    return false
  }
  if (value.includes('#')) return false
  return registered.some((candidate) => {
    let allowed: URL
    try {
      allowed = new URL(candidate)
    } catch {
      return false
    }
    if (allowed.search !== '' && !sameQuery(uri.searchParams, allowed.searchParams)) return false
    return withoutQuery(uri) === withoutQuery(allowed)
  })
}

function withoutQuery(url: URL): string {
  const copy = new URL(url.href)
  copy.search = ''
  return copy.href
}

function sameQuery(a: URLSearchParams, b: URLSearchParams): boolean {
  const sorted = (params: URLSearchParams) => [...params].map(([k, v]) => `${k}=${v}`).sort().join('&')
  return sorted(a) === sorted(b)
}

/** Consent is not asked of a trusted application, nor again for scopes the user already granted it. */
export async function consentNeeded(db: Db, userId: number, request: AuthorizationRequest): Promise<boolean> {
  if (request.application.trusted === 1) return false
  return !(await holdsMatchingToken(db, userId, request.application.id, request.scopes))
}

/** Approves the request: where to send the user (a code in the query, or the token in the fragment). */
export async function approve(db: Db, userId: number, request: AuthorizationRequest): Promise<string> {
  if (request.responseType === 'token') {
    const { answer } = await issueUserToken(db, { userId, application: request.application, scopes: request.scopes })
    return withParams(request.redirectUri, 'fragment', {
      access_token: answer.access_token, token_type: answer.token_type, expires_in: answer.expires_in, state: request.state,
    })
  }
  const code = generateOauthValue()
  const now = Date.now()
  // Codes live ten minutes: the expired ones are removed whenever one is made.
  await db.deleteFrom('oauth_access_grants').where('expires_at', '<=', now).execute()
  await db.insertInto('oauth_access_grants').values({
    application_id: request.application.id,
    user_id: userId,
    code_digest: tokenDigest(code),
    redirect_uri: request.redirectUri,
    scopes: request.scopes.join(' '),
    nonce: request.nonce,
    expires_at: now + AUTHORIZATION_CODE_LIFETIME_MS,
    created_at: now,
  }).execute()
  return withParams(request.redirectUri, 'query', { code, state: request.state })
}

/** Denies the request: the redirect URI with access_denied (in the fragment for the implicit flow). */
export function deny(request: AuthorizationRequest): string {
  return withParams(request.redirectUri, request.responseType === 'token' ? 'fragment' : 'query', {
    error: 'access_denied', error_description: OAUTH_ERROR_DESCRIPTIONS.access_denied, state: request.state,
  })
}

/** The URI with the values added to its query or fragment; blank values are dropped, as Doorkeeper's URIBuilder does. */
function withParams(uri: string, where: 'query' | 'fragment', values: Record<string, string | number | null | undefined>): string {
  const url = new URL(uri)
  const params = new URLSearchParams(where === 'query' ? url.search : '')
  for (const [name, value] of Object.entries(values)) {
    if (value !== null && value !== undefined && value !== '') params.set(name, String(value))
  }
  if (where === 'query') url.search = params.toString()
  else url.hash = params.toString()
  return url.href
}

/**
 * Redeems a code for the client and redirect URI it was issued for: once only (compare-and-swap on
 * used_at), within its lifetime; null otherwise (invalid_grant).
 */
export async function redeemAuthorizationCode(
  db: Db, input: { application: OauthApplicationRow; code: string; redirectUri: string },
) {
  const grant = await db.selectFrom('oauth_access_grants').selectAll()
    .where('code_digest', '=', tokenDigest(input.code)).executeTakeFirst()
  if (grant === undefined || grant.application_id !== input.application.id || grant.used_at !== null) return null
  if (grant.expires_at <= Date.now() || grant.redirect_uri !== input.redirectUri) return null
  const used = await db.updateTable('oauth_access_grants').set({ used_at: Date.now() })
    .where('id', '=', grant.id).where('used_at', 'is', null).executeTakeFirst()
  return Number(used.numUpdatedRows) === 0 ? null : grant
}
