// Signing in on the web with a login (username or email) and a password, and signing out. A
// successful sign-in starts a session (its secret is returned once, for the cookie) and records the
// sign-in times the user entity shows, as Devise's trackable does. Failures count towards a ban of
// the address and of the account (services/throttles/sign-in-bans.ts).
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { randomBytes } from 'node:crypto'
import { passwordMatches, tokenDigest } from '../../auth/secrets.js'
import { sessionExpiry } from '../../auth/sessions.js'
import { getApplicationSettings, type ApplicationSettings } from '../settings.js'
import { accountKey, type SignInAttempt } from '../throttles/sign-in-bans.js'

export type SignInResult =
  | { kind: 'signed_in'; user: UserRow; secret: string; expiresAt: number }
  /** password_authentication_enabled_for_web is off. */
  | { kind: 'password_sign_in_disabled' }
  /** Unknown login, wrong password, or an account banned for failures: one answer, so logins cannot be probed. */
  | { kind: 'invalid' }
  /** The right password of a blocked user. */
  | { kind: 'blocked' }

export interface SignInForm {
  login: string
  password: string
  /** The client's address, which failures are counted against. */
  address: string
}

export async function signIn(ctx: AppContext, form: SignInForm): Promise<SignInResult> {
  const { db } = ctx
  const { login, password } = form
  const settings = await getApplicationSettings(db)
  if (!settings.password_authentication_enabled_for_web) return { kind: 'password_sign_in_disabled' }
  const bans = ctx.throttles.signInBans
  if (login === '' || password === '' || login.includes('\0')) {
    await bans.failed({ address: form.address, account: null })
    return { kind: 'invalid' }
  }
  const user = await db.selectFrom('users').selectAll()
    .where(login.includes('@') ? 'email_lower' : 'username_lower', '=', login.toLowerCase())
    .where('ghost', '=', 0)
    .executeTakeFirst()
  const attempt: SignInAttempt = { address: form.address, account: accountKey(user?.id ?? null, login) }
  // The password is checked whatever else is known, so that every refusal takes the same time.
  const matches = await passwordMatches(user?.password_digest ?? null, password)
  if (user === undefined || !matches || await bans.accountBanned(attempt)) {
    await bans.failed(attempt)
    return { kind: 'invalid' }
  }
  await bans.succeeded(attempt)
  if (user.state === 'blocked') return { kind: 'blocked' }
  const { secret, expiresAt } = await startSession(db, user.id)
  return { kind: 'signed_in', user, secret, expiresAt }
}

export interface NewSession {
  /** For the cookie; the database keeps its digest. */
  secret: string
  expiresAt: number
}

/**
 * Inserts a session for the user (an impersonation when `impersonatorId` is given), in the caller's
 * transaction; their expired sessions are removed on the way.
 */
export async function insertSession(trx: Db, settings: ApplicationSettings, userId: number, impersonatorId: number | null = null): Promise<NewSession> {
  const secret = randomBytes(32).toString('base64url')
  const now = Date.now()
  const expiresAt = sessionExpiry(now, settings)
  await trx.deleteFrom('sessions').where('user_id', '=', userId).where('expires_at', '<=', now).execute()
  await trx.insertInto('sessions').values({
    user_id: userId, secret_digest: tokenDigest(secret), created_at: now, last_seen_at: now, expires_at: expiresAt, impersonator_id: impersonatorId,
  }).execute()
  return { secret, expiresAt }
}

/** A new session for the user, who signed in: the sign-in times are recorded. */
export async function startSession(db: Db, userId: number): Promise<NewSession> {
  const settings = await getApplicationSettings(db)
  const now = Date.now()
  return db.transaction().execute(async (trx) => {
    const started = await insertSession(trx, settings, userId)
    const previous = await trx.selectFrom('users').select('current_sign_in_at').where('id', '=', userId).executeTakeFirstOrThrow()
    await trx.updateTable('users')
      .set({ last_sign_in_at: previous.current_sign_in_at ?? now, current_sign_in_at: now })
      .where('id', '=', userId).execute()
    return started
  })
}

export async function endSession(db: Db, secret: string): Promise<void> {
  await db.deleteFrom('sessions').where('secret_digest', '=', tokenDigest(secret)).execute()
}

/** Removes every expired session (the recurring clean-up; sessions are also removed when next used). */
export async function pruneExpiredSessions(db: Db): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', Date.now()).executeTakeFirst()
  return Number(result.numDeletedRows)
}
