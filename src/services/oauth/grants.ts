// The token endpoint's grants, validated in Doorkeeper 4.3.2's order, each failure its OAuth error
// (thrown as oauthError, answered 401): authorization_code, password, refresh_token and
// client_credentials. Clients authenticate by their uid and secret (the body or HTTP Basic).
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { OauthApplicationRow } from '../../db/schema.js'
import { oauthError } from '../../common/errors.js'
import { parseJsonArray } from '../../db/values.js'
import { authenticateByPassword } from '../../auth/git-credentials.js'
import { findUserById } from '../../finders/users-finder.js'
import { applicationSecretMatches, findApplicationByUid, scopesOf } from './applications.js'
import { redeemAuthorizationCode } from './authorization.js'
import { signIdToken } from './openid.js'
import {
  findByRefreshToken, issueClientToken, issueUserToken, requestedScopes, rotateUserToken, type TokenAnswer,
} from './tokens.js'

export interface ClientCredentials {
  clientId: string
  clientSecret: string
}

/** The parameters of a token request (string values only; anything else counts as absent). */
export type TokenParams = Partial<Record<'grant_type' | 'code' | 'redirect_uri' | 'username' | 'password' | 'scope' | 'refresh_token', string>>

/** The application whose uid and secret these are; null when either is blank or they do not match. */
export async function authenticateClient(db: Db, credentials: ClientCredentials | null): Promise<OauthApplicationRow | null> {
  if (credentials === null || credentials.clientId === '' || credentials.clientSecret === '') return null
  const application = await findApplicationByUid(db, credentials.clientId)
  return application !== null && applicationSecretMatches(application, credentials.clientSecret) ? application : null
}

export async function exchangeToken(
  ctx: AppContext, params: TokenParams, credentials: ClientCredentials | null, address: string,
): Promise<TokenAnswer> {
  const grantType = params.grant_type
  if (!grantType) throw oauthError('invalid_request')
  switch (grantType) {
    case 'authorization_code': return authorizationCodeGrant(ctx, params, credentials)
    case 'password': return passwordGrant(ctx, params, credentials, address)
    case 'refresh_token': return refreshTokenGrant(ctx.db, params, credentials)
    case 'client_credentials': return clientCredentialsGrant(ctx.db, params, credentials)
    default: throw oauthError('unsupported_grant_type')
  }
}

/** The client when it authenticated; with no credentials at all, null (for the grants where the client is optional). */
async function optionalClient(db: Db, credentials: ClientCredentials | null): Promise<OauthApplicationRow | null> {
  if (credentials === null) return null
  const application = await authenticateClient(db, credentials)
  if (application === null) throw oauthError('invalid_client')
  return application
}

async function requiredClient(db: Db, credentials: ClientCredentials | null): Promise<OauthApplicationRow> {
  const application = await optionalClient(db, credentials)
  if (application === null) throw oauthError('invalid_client')
  return application
}

async function authorizationCodeGrant(ctx: AppContext, params: TokenParams, credentials: ClientCredentials | null): Promise<TokenAnswer> {
  if (!params.code || !params.redirect_uri) throw oauthError('invalid_request')
  const application = await requiredClient(ctx.db, credentials)
  const grant = await redeemAuthorizationCode(ctx.db, { application, code: params.code, redirectUri: params.redirect_uri })
  if (grant === null) throw oauthError('invalid_grant')
  const scopes = requestedScopes(grant.scopes, null) ?? []
  const user = await findUserById(ctx.db, grant.user_id)
  if (user === null || user.state === 'blocked') throw oauthError('invalid_grant')
  const { answer } = await issueUserToken(ctx.db, { userId: user.id, application, scopes })
  if (!scopes.includes('openid')) return answer
  const idToken = await signIdToken({
    user, application, nonce: grant.nonce, authTime: user.current_sign_in_at ?? grant.created_at,
    baseUrl: ctx.config.externalUrl, dataDir: ctx.config.dataDir,
  })
  return { ...answer, id_token: idToken }
}

async function passwordGrant(
  ctx: AppContext, params: TokenParams, credentials: ClientCredentials | null, address: string,
): Promise<TokenAnswer> {
  const application = await optionalClient(ctx.db, credentials)
  const { username = '', password = '' } = params
  if (username === '' || password === '') throw oauthError('invalid_grant')
  const client = await authenticateByPassword(ctx, username, password, address)
  if (client.kind !== 'user') throw oauthError('invalid_grant')
  const scopes = requestedScopes(params.scope, application === null ? null : scopesOf(application.scopes))
  if (scopes === null) throw oauthError('invalid_scope')
  return (await issueUserToken(ctx.db, { userId: client.actor.user.id, application, scopes })).answer
}

async function refreshTokenGrant(db: Db, params: TokenParams, credentials: ClientCredentials | null): Promise<TokenAnswer> {
  if (!params.refresh_token) throw oauthError('invalid_request')
  const token = await findByRefreshToken(db, params.refresh_token)
  if (token === null || token.revoked === 1) throw oauthError('invalid_grant')
  // The client is optional, as in Doorkeeper 4.3.2; when it authenticates, the token must be its own.
  const application = await optionalClient(db, credentials)
  if (application !== null && token.application_id !== application.id) throw oauthError('invalid_client')
  const original = parseJsonArray(token.scopes)
  const scopes = params.scope ? requestedScopes(params.scope, original) : requestedScopes(original.join(' '), null)
  if (scopes === null) throw oauthError('invalid_scope')
  const user = await findUserById(db, token.user_id)
  if (user === null || user.state === 'blocked') throw oauthError('invalid_grant')
  const answer = await rotateUserToken(db, token, scopes)
  if (answer === null) throw oauthError('invalid_grant')
  return answer
}

async function clientCredentialsGrant(db: Db, params: TokenParams, credentials: ClientCredentials | null): Promise<TokenAnswer> {
  const application = await requiredClient(db, credentials)
  const scopes = requestedScopes(params.scope, scopesOf(application.scopes))
  if (scopes === null) throw oauthError('invalid_scope')
  return issueClientToken(db, application, scopes)
}
