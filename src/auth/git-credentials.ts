// Who a git client is: the HTTP Basic credentials of git over HTTP, read the way the original
// reads them (Gitlab::Auth.find_for_git_client): login `oauth2` with an OAuth token; any login with
// a personal or impersonation token; a username (or email) with the user's password, unless the
// password_authentication_enabled_for_git setting is off. Tokens carry what their scopes allow
// (api: pull and push; read_repository: pull), a password all of it.
import type { Db } from '../db/index.js'
import type { UserRow } from '../db/schema.js'
import { parseJsonArray } from '../db/values.js'
import { getApplicationSettings } from '../services/settings.js'
import type { Actor } from './actor.js'
import { recordActivity, tokenOwner } from './authenticate.js'
import { passwordMatches, tokenDigest } from './secrets.js'

export type GitClient =
  /** No credentials were sent. */
  | { kind: 'anonymous' }
  /** Credentials were sent and match nobody (401; with a challenge, so git asks again). */
  | { kind: 'refused'; message: string; challenge: boolean }
  /** The credentials are a blocked user's token (403). */
  | { kind: 'blocked' }
  | { kind: 'user'; actor: Actor; mayDownload: boolean; mayPush: boolean }

const ACCESS_DENIED = 'HTTP Basic: Access denied'

/**
 * The original's answer to a password from a user with two-factor authentication, and to any
 * refused credentials while passwords are off for git; sent without a challenge, as there. (The
 * original adds where to create a token; Ingot has no such page yet.)
 */
const NEEDS_TOKEN = `${ACCESS_DENIED}\nYou must use a personal access token with 'api' scope for Git over HTTP.`

const refused = (message: string, challenge: boolean): GitClient => ({ kind: 'refused', message, challenge })

/** Login and password of a Basic Authorization header; null for any other header. */
function basicCredentials(header: string | undefined): { login: string; password: string } | null {
  const encoded = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i)?.[1]
  if (encoded === undefined) return null
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon === -1 ? { login: decoded, password: '' } : { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** The client a request's Authorization header names. */
export async function authenticateGitClient(db: Db, authorization: string | undefined): Promise<GitClient> {
  if (authorization === undefined || authorization === '') return { kind: 'anonymous' }
  const credentials = basicCredentials(authorization)
  if (credentials === null || credentials.password === '' || credentials.password.includes('\0') || credentials.login.includes('\0')) {
    return refused(ACCESS_DENIED, true)
  }
  const client = await byToken(db, credentials.login, credentials.password) ?? await byPassword(db, credentials.login, credentials.password)
  if (client.kind === 'user') await recordActivity(db, client.actor.token, client.actor.user)
  return client
}

async function byToken(db: Db, login: string, secret: string): Promise<GitClient | null> {
  const owner = await tokenOwner(db, tokenDigest(secret))
  if (owner === null) return null
  const { token, user } = owner
  // An OAuth token counts only under the login `oauth2`; personal ones under any login.
  if (token.kind === 'oauth' && login !== 'oauth2') return null
  if (token.revoked || (token.expires_at !== null && token.expires_at <= Date.now())) return null
  if (user.state === 'blocked') return { kind: 'blocked' }
  const scopes = parseJsonArray(token.scopes)
  const mayPush = scopes.includes('api')
  return { kind: 'user', actor: { user, token, sudoFrom: null }, mayDownload: mayPush || scopes.includes('read_repository'), mayPush }
}

async function byPassword(db: Db, login: string, password: string): Promise<GitClient> {
  // With passwords off for git, none is checked, and every refusal says to use a token.
  if (!(await getApplicationSettings(db)).password_authentication_enabled_for_git) return refused(NEEDS_TOKEN, false)
  const lower = login.toLowerCase()
  const user: UserRow | undefined = await db.selectFrom('users').selectAll()
    .where(login.includes('@') ? 'email_lower' : 'username_lower', '=', lower)
    .where('ghost', '=', 0)
    .executeTakeFirst()
  if (user === undefined || user.state === 'blocked' || !await passwordMatches(user.password_digest, password)) {
    return refused(ACCESS_DENIED, true)
  }
  if (user.two_factor_enabled) return refused(NEEDS_TOKEN, false)
  return { kind: 'user', actor: { user, token: null, sudoFrom: null }, mayDownload: true, mayPush: true }
}
