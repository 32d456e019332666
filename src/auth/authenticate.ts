// Resolves the credentials of every request to req.actor (spec: Authentication), before bodies are
// parsed or parameters validated, as the original does:
//   private_token query / Private-Token header: personal and impersonation tokens
//   access_token query / Authorization: Bearer:  OAuth tokens (and personal ones, as the original)
//   the _service_session cookie: a web session, for GET/HEAD, or with its CSRF token in X-CSRF-Token
//   JOB-TOKEN header / job_token query: a running CI job's token, on the routes that take one
// A user kept out by enforced terms they have not accepted is refused whatever the carrier.
// Each route declares in its config whether a caller is required and which token scopes it
// accepts (default: api), then sudo is applied.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Db } from '../db/index.js'
import type { AccessTokenRow, TokenKind, UserRow } from '../db/schema.js'
import { parseJsonArray, today } from '../db/values.js'
import { forbidden, insufficientScope, invalidToken, notFound, unauthorized } from '../common/errors.js'
import { readCacheOf } from '../db/read-cache.js'
import { tokenDigest } from './secrets.js'
import { findUserById, findUserByUsername } from '../finders/users-finder.js'
import { getApplicationSettings } from '../services/settings.js'
import {
  CSRF_HEADER, SESSION_COOKIE, csrfTokenMatches, findActiveSession, isHttps, mustAcceptTerms, parseCookies, serializeCookie,
  type ActiveSession,
} from './sessions.js'
import type { Actor, Scope } from './actor.js'
import { actorForJobToken } from './job-token.js'

export type AuthMode = 'required' | 'optional' | 'none'

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null
  }
  interface FastifyContextConfig {
    /** Whether the route needs a caller ('required', the default), takes one ('optional'), or is not part of the API ('none'). */
    auth?: AuthMode
    /** Token scopes that may call the route; default ['api']. */
    scopes?: readonly Scope[]
    /** Whether a running CI job's token (JOB-TOKEN header, `job_token` query) may call it, as the job's user (the original's job_token_allowed). */
    jobToken?: boolean
  }
}

const DEFAULT_SCOPES: readonly Scope[] = ['api']
const PRIVATE_TOKEN_KINDS: readonly TokenKind[] = ['personal', 'impersonation']
const LAST_USED_RESOLUTION_MS = 10 * 60 * 1000

interface Credential {
  token: string
  kinds: readonly TokenKind[] | null
}

export function registerAuthentication(app: FastifyInstance, db: Db): void {
  app.decorateRequest('actor', null)
  app.addHook('onRequest', async (req, reply) => {
    const config = req.routeOptions.config
    const mode: AuthMode = config.auth ?? (req.routeOptions.url === undefined ? 'none' : 'required')
    if (mode === 'none') return
    const credential = credentialOf(req)
    const jobToken = config.jobToken === true ? jobTokenOf(req) : null
    if (credential === null && jobToken !== null) {
      req.actor = await actorForJobToken(db, jobToken)
      if (req.actor === null) throw unauthorized()
    } else if (credential !== null) {
      const { token, user } = await findTokenOwner(db, credential)
      await checkTermsAccepted(db, user)
      checkScopes(token, config.scopes ?? DEFAULT_SCOPES)
      req.actor = await applySudo(db, req, user, token)
      await recordActivity(db, token, req.actor.user)
    } else {
      const session = await sessionOf(db, req, reply)
      if (session !== null) {
        const { user } = session
        await checkTermsAccepted(db, user)
        // Sudo needs a token, as the original says to a session (an admin's) that asks for it.
        if (sudoIdentifier(req) !== null) {
          throw forbidden(user.admin ? 'Must be authenticated using an OAuth or Personal Access Token to use sudo' : 'Must be admin to use sudo')
        }
        req.actor = { user, token: null, sudoFrom: null, sessionId: session.session.id }
        await recordActivity(db, null, user)
      } else if (sudoIdentifier(req) !== null) {
        throw unauthorized()
      }
    }
    if (mode === 'required' && req.actor === null) throw unauthorized()
  })
}

/**
 * The session of the request's cookie, with its user, when the request is verified as the original's
 * RequestForgeryProtection has it (GET/HEAD, or the session's CSRF token in X-CSRF-Token); else
 * null, and the request goes on as anonymous. A session used again gets its cookie renewed.
 * Looked up once per request: the throttles ask before authentication does.
 */
function sessionOf(db: Db, req: FastifyRequest, reply: FastifyReply): Promise<ActiveSession | null> {
  let session = sessionsOfRequests.get(req)
  if (session === undefined) {
    session = findSessionOf(db, req, reply)
    sessionsOfRequests.set(req, session)
  }
  return session
}

const sessionsOfRequests = new WeakMap<FastifyRequest, Promise<ActiveSession | null>>()

async function findSessionOf(db: Db, req: FastifyRequest, reply: FastifyReply): Promise<ActiveSession | null> {
  const secret = parseCookies(req.headers.cookie).get(SESSION_COOKIE)
  if (secret === undefined) return null
  const verified = req.method === 'GET' || req.method === 'HEAD' || csrfTokenMatches(secret, req.headers[CSRF_HEADER])
  if (!verified) return null
  const active = await findActiveSession(db, secret, await getApplicationSettings(db))
  if (active === null) return null
  if (active.renewed) {
    const secure = isHttps(req.ingot.config.externalUrl)
    void reply.header('set-cookie', serializeCookie(SESSION_COOKIE, secret, { expiresAt: active.session.expires_at, secure }))
  }
  return active
}

/**
 * The user a request's credentials name, as the original's throttles tell it (Rack::Attack's
 * authenticated_user_id): a usable token's owner, else a verified session's user; null for none,
 * and for credentials that fail, which authentication refuses later. Whatever the route: web
 * pages and git over HTTP count their callers too.
 */
export async function requestUserId(db: Db, req: FastifyRequest, reply: FastifyReply): Promise<number | null> {
  const credential = credentialOf(req)
  if (credential === null) return (await sessionOf(db, req, reply))?.user.id ?? null
  const owner = await tokenOwner(db, tokenDigest(credential.token))
  if (owner === null || (credential.kinds !== null && !credential.kinds.includes(owner.token.kind))) return null
  const { token, user } = owner
  if (token.revoked || (token.expires_at !== null && token.expires_at <= Date.now())) return null
  return user.id
}

/** 403 for a user who has not accepted enforced terms: the original's access_api rule, and its message. */
async function checkTermsAccepted(db: Db, user: UserRow): Promise<void> {
  if (user.terms_accepted_at !== null) return
  if (mustAcceptTerms(user, await getApplicationSettings(db))) throw forbidden('User is blocked')
}

function credentialOf(req: FastifyRequest): Credential | null {
  const query = req.query as Record<string, unknown>
  const header = (name: string) => {
    const value = req.headers[name]
    return typeof value === 'string' && value !== '' ? value : null
  }
  const privateToken = header('private-token') ?? stringParam(query.private_token)
  if (privateToken !== null) return { token: privateToken, kinds: PRIVATE_TOKEN_KINDS }
  const authorization = header('authorization')
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1] ?? null
  const accessToken = bearer ?? stringParam(query.access_token)
  if (accessToken !== null) return { token: accessToken, kinds: null }
  return null
}

/** A CI job's token: the JOB-TOKEN header or the `job_token` query parameter. */
function jobTokenOf(req: FastifyRequest): string | null {
  const header = req.headers['job-token']
  return typeof header === 'string' && header !== '' ? header : stringParam((req.query as Record<string, unknown>).job_token)
}

function stringParam(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

export interface TokenOwner {
  token: AccessTokenRow
  user: UserRow
}

/** The token with this digest and its user, through the read cache every request would hit. */
export async function tokenOwner(db: Db, digest: string): Promise<TokenOwner | null> {
  const load = async () => {
    const token = await db.selectFrom('access_tokens').selectAll().where('token_digest', '=', digest).executeTakeFirst()
    if (token === undefined) return null
    const user = await db.selectFrom('users').selectAll().where('id', '=', token.user_id).executeTakeFirstOrThrow()
    return { token, user }
  }
  const cache = readCacheOf<TokenOwner | null>(db, 'token-owners', { tables: ['access_tokens', 'users'], maxWeight: 10_000 })
  return cache === null ? load() : cache.get(digest, load)
}

async function findTokenOwner(db: Db, credential: Credential): Promise<TokenOwner> {
  const owner = await tokenOwner(db, tokenDigest(credential.token))
  if (owner === null || (credential.kinds !== null && !credential.kinds.includes(owner.token.kind))) {
    throw unauthorized()
  }
  const { token, user } = owner
  if (token.revoked) throw invalidToken('Token was revoked. You have to re-authorize from the user.')
  if (token.expires_at !== null && token.expires_at <= Date.now()) throw invalidToken('Token has expired.')
  if (user.state === 'blocked') throw forbidden('User is blocked')
  return { token, user }
}

function checkScopes(token: AccessTokenRow, accepted: readonly Scope[]): void {
  const granted = scopesOf(token)
  if (!accepted.some((scope) => granted.includes(scope))) throw insufficientScope(accepted)
}

/** A token's scopes, parsed once per row read (cached rows are frozen: a changed token is a new row). */
function scopesOf(token: AccessTokenRow): readonly string[] {
  let scopes = parsedScopes.get(token)
  if (scopes === undefined) {
    scopes = parseJsonArray(token.scopes)
    parsedScopes.set(token, scopes)
  }
  return scopes
}

const parsedScopes = new WeakMap<AccessTokenRow, readonly string[]>()

function sudoIdentifier(req: FastifyRequest): string | null {
  const header = req.headers.sudo
  if (typeof header === 'string' && header !== '') return header
  return stringParam((req.query as Record<string, unknown>).sudo)
}

/** Sudo exactly as specified: admin owner, a token with the sudo scope, an existing target. */
async function applySudo(db: Db, req: FastifyRequest, user: UserRow, token: AccessTokenRow): Promise<Actor> {
  const actor: Actor = { user, token, sudoFrom: null }
  const identifier = sudoIdentifier(req)
  if (identifier === null) return actor
  if (!actor.user.admin) throw forbidden('Must be admin to use sudo')
  checkScopes(token, ['sudo'])
  const target = /^\d+$/.test(identifier) ? await findUserById(db, Number(identifier)) : await findUserByUsername(db, identifier)
  if (target === null) throw notFound(`User with ID or username '${identifier}'`)
  return { user: target, token: actor.token, sudoFrom: actor.user }
}

/** Token last use (at most every ten minutes) and the user's activity day, without a write per request. */
export async function recordActivity(db: Db, token: AccessTokenRow | null, user: UserRow): Promise<void> {
  const now = Date.now()
  if (token !== null && (token.last_used_at === null || now - token.last_used_at > LAST_USED_RESOLUTION_MS)) {
    await db.updateTable('access_tokens').set({ last_used_at: now }).where('id', '=', token.id).execute()
  }
  const day = today(now)
  if (user.last_activity_on !== day) {
    await db.updateTable('users').set({ last_activity_on: day }).where('id', '=', user.id).execute()
  }
}
