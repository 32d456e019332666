// Applications registered with the OAuth provider (the original's Doorkeeper applications): made by
// an administrator (the API, /admin/applications; no owner) or by a user for themselves
// (/profile/applications, while user_oauth_applications is on). The client secret is random, shown
// once when made or regenerated, and stored as its digest only. Redirect URIs are absolute, without
// a fragment, one per line, as Doorkeeper validates them.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { Db } from '../../db/index.js'
import type { OauthApplicationRow } from '../../db/schema.js'
import { OAUTH_SCOPES, type Scope } from '../../auth/actor.js'
import { tokenDigest } from '../../auth/secrets.js'
import { validationFailed } from '../../common/errors.js'
import { collectErrors } from '../validation.js'

export interface ApplicationInput {
  name: string
  /** One or more URIs, separated by line breaks (or whitespace). */
  redirectUri: string
  /** Scope names, separated by spaces. */
  scopes: string
}

/** The random values of the provider (uids, secrets, codes, tokens): 64 hex digits, as the original's SecureRandom.hex(32). */
export function generateOauthValue(): string {
  return randomBytes(32).toString('hex')
}

export function redirectUrisOf(application: OauthApplicationRow): string[] {
  return splitRedirectUris(application.redirect_uri)
}

export function scopesOf(value: string): string[] {
  return value.split(/\s+/).filter((scope) => scope !== '')
}

export function isOauthScope(scope: string): scope is Scope {
  return (OAUTH_SCOPES as readonly string[]).includes(scope)
}

function splitRedirectUris(value: string): string[] {
  return value.split(/\s+/).filter((uri) => uri !== '')
}

/** Doorkeeper's RedirectUriValidator: each URI absolute (a scheme and, for http(s), a host) and without a fragment. */
function redirectUriErrors(value: string): string[] {
  const uris = splitRedirectUris(value)
  if (uris.length === 0) return ["can't be blank"]
  const errors = new Set<string>()
  for (const uri of uris) {
    let url: URL
    try {
      url = new URL(uri)
    } catch {
      errors.add('must be an absolute URI.')
      continue
    }
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.host === '') errors.add('must be an absolute URI.')
    if (uri.includes('#')) errors.add('cannot contain a fragment.')
  }
  return [...errors]
}

function checked(input: ApplicationInput): { name: string; redirect_uri: string; scopes: string } {
  const scopes = scopesOf(input.scopes)
  const errors = collectErrors({
    name: input.name.trim() === '' ? ["can't be blank"] : [],
    redirect_uri: redirectUriErrors(input.redirectUri),
    scopes: scopes.every(isOauthScope) ? [] : ['doesn\'t match configured on the server.'],
  })
  if (errors !== null) throw validationFailed(errors)
  return { name: input.name.trim(), redirect_uri: splitRedirectUris(input.redirectUri).join('\n'), scopes: [...new Set(scopes)].join(' ') }
}

export async function createApplication(
  db: Db, input: ApplicationInput & { ownerId: number | null; trusted?: boolean },
): Promise<{ application: OauthApplicationRow; secret: string }> {
  const values = checked(input)
  const secret = generateOauthValue()
  const now = Date.now()
  const application = await db.insertInto('oauth_applications').values({
    ...values,
    uid: generateOauthValue(),
    secret_digest: tokenDigest(secret),
    owner_id: input.ownerId,
    trusted: input.trusted === true ? 1 : 0,
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
  return { application, secret }
}

export async function updateApplication(
  db: Db, application: OauthApplicationRow, input: ApplicationInput & { trusted?: boolean },
): Promise<OauthApplicationRow> {
  const values = checked(input)
  return db.updateTable('oauth_applications')
    .set({ ...values, ...(input.trusted === undefined ? {} : { trusted: input.trusted ? 1 : 0 }), updated_at: Date.now() })
    .where('id', '=', application.id).returningAll().executeTakeFirstOrThrow()
}

/** A new secret; the old one stops working at once. */
export async function regenerateApplicationSecret(db: Db, application: OauthApplicationRow): Promise<string> {
  const secret = generateOauthValue()
  await db.updateTable('oauth_applications').set({ secret_digest: tokenDigest(secret), updated_at: Date.now() })
    .where('id', '=', application.id).execute()
  return secret
}

/** Removes the application with its codes and tokens (foreign keys cascade). */
export async function deleteApplication(db: Db, application: OauthApplicationRow): Promise<void> {
  await db.deleteFrom('oauth_applications').where('id', '=', application.id).execute()
}

export function applicationSecretMatches(application: OauthApplicationRow, secret: string): boolean {
  const expected = Buffer.from(application.secret_digest)
  const given = Buffer.from(tokenDigest(secret))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export async function findApplicationById(db: Db, id: number): Promise<OauthApplicationRow | null> {
  return (await db.selectFrom('oauth_applications').selectAll().where('id', '=', id).executeTakeFirst()) ?? null
}

export async function findApplicationByUid(db: Db, uid: string): Promise<OauthApplicationRow | null> {
  return (await db.selectFrom('oauth_applications').selectAll().where('uid', '=', uid).executeTakeFirst()) ?? null
}

/** Every application, or one user's own, or (owner null) the administrators', oldest first. */
export async function listApplications(db: Db, filter: { ownerId?: number | null } = {}): Promise<OauthApplicationRow[]> {
  let query = db.selectFrom('oauth_applications').selectAll().orderBy('id')
  if (filter.ownerId === null) query = query.where('owner_id', 'is', null)
  else if (filter.ownerId !== undefined) query = query.where('owner_id', '=', filter.ownerId)
  return query.execute()
}

export interface AuthorizedApplication {
  application: OauthApplicationRow
  /** When the user first authorized it (their oldest live token of it). */
  authorizedAt: number
  /** The scopes of the user's live tokens of it. */
  scopes: string[]
}

/** The applications a user has authorized: those holding a live (not revoked) token of theirs. */
export async function authorizedApplications(db: Db, userId: number): Promise<AuthorizedApplication[]> {
  const rows = await db.selectFrom('access_tokens')
    .innerJoin('oauth_applications', 'oauth_applications.id', 'access_tokens.application_id')
    .selectAll('oauth_applications')
    .select(['access_tokens.created_at as token_created_at', 'access_tokens.scopes as token_scopes'])
    .where('access_tokens.user_id', '=', userId)
    .where('access_tokens.kind', '=', 'oauth')
    .where('access_tokens.revoked', '=', 0)
    .orderBy('access_tokens.id')
    .execute()
  const byApplication = new Map<number, AuthorizedApplication>()
  for (const { token_created_at: createdAt, token_scopes: tokenScopes, ...application } of rows) {
    const entry = byApplication.get(application.id) ?? { application, authorizedAt: createdAt, scopes: [] }
    for (const scope of JSON.parse(tokenScopes) as string[]) if (!entry.scopes.includes(scope)) entry.scopes.push(scope)
    byApplication.set(application.id, entry)
  }
  return [...byApplication.values()]
}

/** Revokes every token and unused code the application holds for the user (the original's Revoke on authorized applications). */
export async function revokeAuthorization(db: Db, userId: number, applicationId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('access_tokens').set({ revoked: 1 })
      .where('user_id', '=', userId).where('application_id', '=', applicationId).where('kind', '=', 'oauth').execute()
    await trx.deleteFrom('oauth_access_grants').where('user_id', '=', userId).where('application_id', '=', applicationId).execute()
  })
}
