// The OAuth 2.0 and OpenID Connect endpoints outside /api/v4, as the original's Doorkeeper 4.3.2
// (with doorkeeper-openid_connect 1.5) answers them: the token endpoint, token info, revocation,
// introspection, userinfo, the discovery document and the signing keys. The API's token
// authentication leaves them alone (auth: 'none'): each reads its own credentials, and every
// OAuth error is a 401 with Doorkeeper's body and WWW-Authenticate header. The authorization
// endpoint is a page (web/oauth-authorize.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type TObject, type TOptional, type TUnknown } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { oauthError } from '../common/errors.js'
import { basicCredentials } from '../auth/git-credentials.js'
import { findUserById } from '../finders/users-finder.js'
import { findApplicationById } from '../services/oauth/applications.js'
import { authenticateClient, exchangeToken, type ClientCredentials, type TokenParams } from '../services/oauth/grants.js'
import { discoveryDocument, publicKeys, userClaims } from '../services/oauth/openid.js'
import { findOauthToken, revokeOauthToken, tokenIsLive, tokenScopes, type OauthToken } from '../services/oauth/tokens.js'

const OAUTH = { config: { auth: 'none' as const } }

/**
 * Parameters any value passes: the endpoints answer bad ones with OAuth errors, not the API's 400,
 * so only string values count (anything else is absent). Declared so the route table names them.
 */
function looseParams<K extends string>(...names: K[]): TObject<Record<K, TOptional<TUnknown>>> {
  return Type.Object(Object.fromEntries(names.map((name) => [name, Type.Optional(Type.Unknown())])) as Record<K, TOptional<TUnknown>>)
}

const TOKEN_PARAMS = ['grant_type', 'code', 'redirect_uri', 'username', 'password', 'scope', 'refresh_token'] as const
const CLIENT_PARAMS = ['client_id', 'client_secret'] as const
const BEARER_PARAMS = ['access_token', 'bearer_token'] as const

/** The string values of the request's parameters (the query, merged with a write's body). */
function stringParams(req: FastifyRequest): Record<string, string> {
  const merged = { ...(req.query as Record<string, unknown>), ...(typeof req.body === 'object' && req.body !== null ? req.body : {}) }
  return Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
}

/** The client's uid and secret: HTTP Basic first, then the body, as Doorkeeper reads them; null when neither names a client. */
function clientCredentialsOf(req: FastifyRequest): ClientCredentials | null {
  const basic = basicCredentials(req.headers.authorization)
  if (basic !== null) return { clientId: basic.login, clientSecret: basic.password }
  const { client_id: clientId = '', client_secret: clientSecret = '' } = stringParams(req)
  return clientId === '' && clientSecret === '' ? null : { clientId, clientSecret }
}

/** The access token of the request: Authorization Bearer, or the access_token or bearer_token parameter. */
function bearerOf(req: FastifyRequest): string | null {
  const bearer = req.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]
  if (bearer !== undefined) return bearer
  const params = stringParams(req)
  return params.access_token || params.bearer_token || null
}

async function liveTokenOf(req: FastifyRequest): Promise<OauthToken | null> {
  const value = bearerOf(req)
  if (value === null) return null
  const token = await findOauthToken(req.ingot.db, value)
  return token !== null && tokenIsLive(token) ? token : null
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
}

/** Doorkeeper's answer to a resource request without a usable token: a bare status and a challenge. */
function bearerRefused(reply: FastifyReply, status: 401 | 403, error: 'invalid_token' | 'insufficient_scope'): FastifyReply {
  const description = error === 'invalid_token' ? 'The access token is invalid'
    : 'The request requires higher privileges than provided by the access token.'
  return reply.code(status).header('www-authenticate', `Bearer realm="Doorkeeper", error="${error}", error_description="${description}"`).send()
}

const oauth: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/oauth/token', {
    ...OAUTH,
    schema: { body: looseParams(...TOKEN_PARAMS, ...CLIENT_PARAMS) },
  }, async (req, reply) => {
    const params: TokenParams = stringParams(req)
    const answer = await exchangeToken(req.ingot, params, clientCredentialsOf(req), req.ip)
    return noStore(reply).send(answer)
  })

  app.get('/oauth/token/info', { ...OAUTH, schema: { querystring: looseParams(...BEARER_PARAMS) } }, async (req, reply) => {
    const token = await liveTokenOf(req)
    if (token === null) throw oauthError('invalid_request')
    const application = token.row.application_id === null ? null : await findApplicationById(req.ingot.db, token.row.application_id)
    return noStore(reply).send({
      resource_owner_id: token.kind === 'user' ? token.row.user_id : null,
      scopes: tokenScopes(token),
      expires_in_seconds: token.row.expires_at === null ? null : Math.max(0, Math.floor((token.row.expires_at - Date.now()) / 1000)),
      application: { uid: application?.uid ?? null },
      created_at: Math.floor(token.row.created_at / 1000),
    })
  })

  // Always 200 {}: a token is revoked only when its application's client authenticated (or it has none), RFC 7009.
  app.post('/oauth/revoke', { ...OAUTH, schema: { body: looseParams('token', 'token_type_hint', ...CLIENT_PARAMS) } }, async (req, reply) => {
    const { db } = req.ingot
    const value = stringParams(req).token
    const token = value ? await findOauthToken(db, value, { refresh: true }) : null
    if (token !== null) {
      const client = await authenticateClient(db, clientCredentialsOf(req))
      if (token.row.application_id === null || token.row.application_id === client?.id) await revokeOauthToken(db, token)
    }
    return noStore(reply).send({})
  })

  // RFC 7662, as Doorkeeper 4.3: the caller is an authenticated client, or holds a live token.
  app.post('/oauth/introspect', { ...OAUTH, schema: { body: looseParams('token', 'token_type_hint', ...CLIENT_PARAMS) } }, async (req, reply) => {
    const { db } = req.ingot
    const client = await authenticateClient(db, clientCredentialsOf(req))
    if (client === null && await liveTokenOf(req) === null) throw oauthError('invalid_client')
    const value = stringParams(req).token
    const token = value ? await findOauthToken(db, value) : null
    if (token === null || !tokenIsLive(token)) return noStore(reply).send({ active: false })
    const application = token.row.application_id === null ? null : await findApplicationById(db, token.row.application_id)
    return noStore(reply).send({
      active: true,
      scope: tokenScopes(token).join(' '),
      client_id: application?.uid ?? null,
      token_type: 'bearer',
      ...(token.row.expires_at === null ? {} : { exp: Math.floor(token.row.expires_at / 1000) }),
      iat: Math.floor(token.row.created_at / 1000),
    })
  })

  const userinfo = async (req: FastifyRequest, reply: FastifyReply) => {
    const token = await liveTokenOf(req)
    if (token === null || token.kind !== 'user') return bearerRefused(reply, 401, 'invalid_token')
    if (!tokenScopes(token).includes('openid')) return bearerRefused(reply, 403, 'insufficient_scope')
    const user = await findUserById(req.ingot.db, token.row.user_id)
    if (user === null || user.state === 'blocked') return bearerRefused(reply, 401, 'invalid_token')
    return userClaims(user, req.ingot.config.externalUrl)
  }
  app.get('/oauth/userinfo', { ...OAUTH, schema: { querystring: looseParams(...BEARER_PARAMS) } }, userinfo)
  app.post('/oauth/userinfo', { ...OAUTH, schema: { body: looseParams(...BEARER_PARAMS) } }, userinfo)

  app.get('/.well-known/openid-configuration', OAUTH, async (req) => discoveryDocument(req.ingot.config.externalUrl))

  app.get('/oauth/discovery/keys', OAUTH, async (req) => publicKeys(req.ingot.config.dataDir))
}

export default oauth
