// The tokens of the OAuth provider: issued to a user (rows of kind 'oauth' in access_tokens, with
// a refresh token) or to an application alone (client credentials, oauth_client_tokens). Only
// digests are stored, so a token cannot be shown again: unlike Doorkeeper's reuse_access_token,
// every grant issues a new token. They never expire unless oauth_access_token_expires_in is set.
import type { Db } from '../../db/index.js'
import type { AccessTokenRow, OauthApplicationRow, OauthClientTokenRow } from '../../db/schema.js'
import { parseJsonArray } from '../../db/values.js'
import { OAUTH_SCOPES, type Scope } from '../../auth/actor.js'
import { tokenDigest } from '../../auth/secrets.js'
import { createAccessToken } from '../access-tokens/create-access-token.js'
import { getApplicationSettings } from '../settings.js'
import { findApplicationById, generateOauthValue, scopesOf } from './applications.js'

/** Doorkeeper's default_scopes in the original: what a request without `scope` asks for. */
export const DEFAULT_OAUTH_SCOPES: readonly Scope[] = ['api']

/** The answer of the token endpoint (and, in part, of the implicit flow). */
export interface TokenAnswer {
  access_token: string
  token_type: 'bearer'
  refresh_token?: string
  scope: string
  created_at: number
  /** Only when a lifetime is set, as Doorkeeper drops blank values. */
  expires_in?: number
  id_token?: string
}

/**
 * The scopes a request asks for, when valid, as Doorkeeper's ScopeChecker decides: the requested
 * (or default) scopes must be the server's and, when the application names any, the application's;
 * null when they are not (invalid_scope).
 */
export function requestedScopes(scope: string | undefined, allowed: readonly string[] | null): Scope[] | null {
  if (scope !== undefined && /[\r\n\t]/.test(scope)) return null
  const requested = scope === undefined || scope.trim() === '' ? [...DEFAULT_OAUTH_SCOPES] : scopesOf(scope)
  const valid = OAUTH_SCOPES.filter((s) => allowed === null || allowed.length === 0 || allowed.includes(s))
  if (!requested.every((s): s is Scope => (valid as readonly string[]).includes(s))) return null
  return [...new Set(requested)]
}

/** Whether the scopes are the same set, as the original's matching_token_for compares them. */
export function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a)
  return set.size === new Set(b).size && b.every((s) => set.has(s))
}

async function lifetimeSeconds(db: Db): Promise<number | null> {
  const seconds = (await getApplicationSettings(db)).oauth_access_token_expires_in
  return seconds > 0 ? seconds : null
}

function answerOf(accessToken: string, scopes: readonly string[], createdAt: number, lifetime: number | null, refreshToken?: string): TokenAnswer {
  return {
    access_token: accessToken,
    token_type: 'bearer',
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    scope: scopes.join(' '),
    created_at: Math.floor(createdAt / 1000),
    ...(lifetime === null ? {} : { expires_in: lifetime }),
  }
}

/** A new token (and refresh token) of the user for the application (null: a password grant without a client). */
export async function issueUserToken(
  db: Db, input: { userId: number; application: OauthApplicationRow | null; scopes: readonly Scope[] },
): Promise<{ row: AccessTokenRow; answer: TokenAnswer }> {
  const lifetime = await lifetimeSeconds(db)
  const refreshToken = generateOauthValue()
  const { row, token } = await createAccessToken(db, {
    userId: input.userId,
    kind: 'oauth',
    name: input.application?.name ?? 'OAuth',
    scopes: input.scopes,
    expiresAt: lifetime === null ? null : Date.now() + lifetime * 1000,
    token: generateOauthValue(),
    applicationId: input.application?.id ?? null,
    refreshToken,
  })
  return { row, answer: answerOf(token, input.scopes, row.created_at, lifetime, refreshToken) }
}

/** A token of the application itself (client credentials grant): no user, no refresh token. */
export async function issueClientToken(db: Db, application: OauthApplicationRow, scopes: readonly Scope[]): Promise<TokenAnswer> {
  const lifetime = await lifetimeSeconds(db)
  const token = generateOauthValue()
  const now = Date.now()
  await db.insertInto('oauth_client_tokens').values({
    application_id: application.id,
    token_digest: tokenDigest(token),
    scopes: JSON.stringify(scopes),
    expires_at: lifetime === null ? null : now + lifetime * 1000,
    created_at: now,
  }).execute()
  return answerOf(token, scopes, now, lifetime)
}

/**
 * Rotates a refresh token: its token is revoked at once (compare-and-swap, so a refresh token is
 * used once even when sent twice together) and a new pair is issued with the given scopes; null
 * when the token was revoked meanwhile.
 */
export async function rotateUserToken(db: Db, old: AccessTokenRow, scopes: readonly Scope[]): Promise<TokenAnswer | null> {
  const application = old.application_id === null ? null : await findApplicationById(db, old.application_id)
  // One step: a pair is never revoked without its successor issued.
  return db.transaction().execute(async (trx) => {
    const revoked = await trx.updateTable('access_tokens').set({ revoked: 1 })
      .where('id', '=', old.id).where('revoked', '=', 0).executeTakeFirst()
    if (Number(revoked.numUpdatedRows) === 0) return null
    return (await issueUserToken(trx, { userId: old.user_id, application, scopes })).answer
  })
}

/** A token the provider issued, seen the same way whichever table holds it. */
export type OauthToken =
  | { kind: 'user'; row: AccessTokenRow }
  | { kind: 'client'; row: OauthClientTokenRow }

export function tokenScopes(token: OauthToken): string[] {
  return parseJsonArray(token.row.scopes)
}

/** Neither revoked nor expired. */
export function tokenIsLive(token: OauthToken, now = Date.now()): boolean {
  return token.row.revoked === 0 && (token.row.expires_at === null || token.row.expires_at > now)
}

/** The OAuth token with this value (an access token; with `refresh`, a refresh token too); null for none. */
export async function findOauthToken(db: Db, value: string, options: { refresh?: boolean } = {}): Promise<OauthToken | null> {
  const digest = tokenDigest(value)
  let query = db.selectFrom('access_tokens').selectAll().where('kind', '=', 'oauth')
  query = options.refresh === true
    ? query.where((eb) => eb.or([eb('token_digest', '=', digest), eb('refresh_token_digest', '=', digest)]))
    : query.where('token_digest', '=', digest)
  const row = await query.executeTakeFirst()
  if (row !== undefined) return { kind: 'user', row }
  const client = await db.selectFrom('oauth_client_tokens').selectAll().where('token_digest', '=', digest).executeTakeFirst()
  return client === undefined ? null : { kind: 'client', row: client }
}

/** The user token a refresh token belongs to; null for none. */
export async function findByRefreshToken(db: Db, value: string): Promise<AccessTokenRow | null> {
  return (await db.selectFrom('access_tokens').selectAll()
    .where('kind', '=', 'oauth').where('refresh_token_digest', '=', tokenDigest(value)).executeTakeFirst()) ?? null
}

export async function revokeOauthToken(db: Db, token: OauthToken): Promise<void> {
  const table = token.kind === 'user' ? 'access_tokens' : 'oauth_client_tokens'
  await db.updateTable(table).set({ revoked: 1 }).where('id', '=', token.row.id).execute()
}

/** Whether the user holds a live token of the application with exactly these scopes (consent is then not asked again). */
export async function holdsMatchingToken(db: Db, userId: number, applicationId: number, scopes: readonly string[]): Promise<boolean> {
  const rows = await db.selectFrom('access_tokens').select(['scopes', 'expires_at'])
    .where('user_id', '=', userId).where('application_id', '=', applicationId)
    .where('kind', '=', 'oauth').where('revoked', '=', 0)
    .execute()
  const now = Date.now()
  return rows.some((row) => (row.expires_at === null || row.expires_at > now) && sameScopes(parseJsonArray(row.scopes), scopes))
}
