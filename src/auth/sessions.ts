// Web sessions: the `_service_session` cookie, the session it names, and the CSRF token tied to it.
// The cookie holds a random secret and the database its SHA-256 digest, as for tokens. A session
// expires session_expire_delay minutes after it was last used (the original's session store renews
// its expiry on every request); the renewal is written at most once a minute. A session an
// administrator started as another user (impersonation, services/sessions/impersonate.ts) is that
// user's to every page and to the API, and remembers the administrator: it ends when they are no
// longer an administrator or are blocked, as the original's authenticate_impersonator! requires.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { Db } from '../db/index.js'
import type { SessionRow, UserRow } from '../db/schema.js'
import type { ApplicationSettings } from '../services/settings.js'
import { tokenDigest } from './secrets.js'

export const SESSION_COOKIE = '_service_session'
/** Carries the CSRF seed of a visitor who is not signed in (sign-in and sign-up forms). */
export const CSRF_COOKIE = '_service_csrf'
/** The header a web page's scripts send the CSRF token in on API writes, as the original's frontend does. */
export const CSRF_HEADER = 'x-csrf-token'

const RENEWAL_INTERVAL_MS = 60 * 1000
const MINUTE_MS = 60 * 1000

export interface ActiveSession {
  session: SessionRow
  user: UserRow
  /** The administrator impersonating `user` in this session, or null for the user's own session. */
  impersonator: UserRow | null
  /** The session's secret, from the cookie: the seed of its CSRF token. */
  secret: string
  /** Set when this use moved the expiry forward, so the cookie's expiry should follow. */
  renewed: boolean
}

/** `name=value` pairs of a Cookie header; a value that is not valid percent-encoding is kept as sent. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>()
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1) continue
    const name = part.slice(0, eq).trim()
    let value = part.slice(eq + 1).trim()
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1)
    try {
      value = decodeURIComponent(value)
    } catch { /* kept as sent */ }
    // The first occurrence wins, as browsers send the most specific cookie first.
    if (name !== '' && !cookies.has(name)) cookies.set(name, value)
  }
  return cookies
}

export interface CookieOptions {
  /** Epoch ms; omitted for a cookie that lasts as long as the browser session. */
  expiresAt?: number
  /** Sent over HTTPS only: when the instance's external URL is https. */
  secure: boolean
}

export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax']
  if (options.expiresAt !== undefined) {
    parts.push(`Expires=${new Date(options.expiresAt).toUTCString()}`)
    parts.push(`Max-Age=${Math.max(0, Math.floor((options.expiresAt - Date.now()) / 1000))}`)
  }
  if (options.secure) parts.push('Secure')
  return parts.join('; ')
}

/** A Set-Cookie value that removes the cookie. */
export function expiredCookie(name: string, secure: boolean): string {
  return serializeCookie(name, '', { expiresAt: 0, secure })
}

export function isHttps(externalUrl: string): boolean {
  return new URL(externalUrl).protocol === 'https:'
}

export function sessionExpiry(now: number, settings: ApplicationSettings): number {
  return now + settings.session_expire_delay * MINUTE_MS
}

/** The CSRF token of a seed (a session secret, or an anonymous visitor's CSRF cookie). */
export function csrfToken(seed: string): string {
  return createHash('sha256').update(`csrf\0${seed}`).digest('base64url')
}

export function csrfTokenMatches(seed: string, sent: unknown): boolean {
  if (typeof sent !== 'string' || sent === '') return false
  const expected = Buffer.from(csrfToken(seed))
  const given = Buffer.from(sent)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/**
 * The live session a cookie secret names, with its user; null for none. An expired session, or
 * one of a user blocked since, is deleted (a blocked user is signed out, as Devise does), and so is
 * an impersonation whose administrator is blocked or no longer an administrator.
 */
export async function findActiveSession(db: Db, secret: string, settings: ApplicationSettings): Promise<ActiveSession | null> {
  if (secret === '' || secret.includes('\0')) return null
  const session = await db.selectFrom('sessions').selectAll().where('secret_digest', '=', tokenDigest(secret)).executeTakeFirst()
  if (session === undefined) return null
  const now = Date.now()
  const [user, impersonator] = await Promise.all([
    db.selectFrom('users').selectAll().where('id', '=', session.user_id).executeTakeFirstOrThrow(),
    session.impersonator_id === null ? null : db.selectFrom('users').selectAll().where('id', '=', session.impersonator_id).executeTakeFirstOrThrow(),
  ])
  const impersonatorLost = impersonator !== null && (impersonator.admin !== 1 || impersonator.state === 'blocked')
  if (session.expires_at <= now || user.state === 'blocked' || impersonatorLost) {
    await db.deleteFrom('sessions').where('id', '=', session.id).execute()
    return null
  }
  if (now - session.last_seen_at < RENEWAL_INTERVAL_MS) return { session, user, impersonator, secret, renewed: false }
  const expiresAt = sessionExpiry(now, settings)
  await db.updateTable('sessions').set({ last_seen_at: now, expires_at: expiresAt }).where('id', '=', session.id).execute()
  return { session: { ...session, last_seen_at: now, expires_at: expiresAt }, user, impersonator, secret, renewed: true }
}

/** Whether a user is kept out until they accept the instance's terms (the original's required_terms_not_accepted?). */
export function mustAcceptTerms(user: UserRow, settings: ApplicationSettings): boolean {
  return settings.enforce_terms && user.terms_accepted_at === null
}
