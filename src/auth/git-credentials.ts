// Who a git client is: the HTTP Basic credentials of git over HTTP, read the way the original
// reads them (Gitlab::Auth.find_for_git_client): login `oauth2` with an OAuth token; any login with
// a personal or impersonation token; login `gitlab-ci-token` with the token of a running CI job,
// which pulls what the job's user may read and never pushes (auth/job-token.ts); a username (or
// email) with the user's password, unless the password_authentication_enabled_for_git setting is
// off. Tokens carry what their scopes allow (api: pull and push; read_repository: pull), a
// password all of it. Refused credentials count
// towards a ban of the address and the account, as the original's rate_limit! counts them, and a
// success forgets the failures (services/throttles/sign-in-bans.ts).
import type { AppContext } from '../context.js'
import type { Db } from '../db/index.js'
import type { UserRow } from '../db/schema.js'
import { parseJsonArray } from '../db/values.js'
import { getApplicationSettings } from '../services/settings.js'
import type { Actor } from './actor.js'
import { recordActivity, tokenOwner } from './authenticate.js'
import { actorForJobToken } from './job-token.js'
import { JOB_TOKEN_LOGIN } from '../services/ci/variables.js'
import { passwordMatches, tokenDigest } from './secrets.js'
import { accountKey, type SignInAttempt } from '../services/throttles/sign-in-bans.js'

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
 * refused credentials while passwords are off for git, naming the page where tokens are made; sent
 * without a challenge, as there.
 */
function needsToken(externalUrl: string): string {
  return `${ACCESS_DENIED}\nYou must use a personal access token with 'api' scope for Git over HTTP.\n`
    + `You can generate one at ${externalUrl.replace(/\/+$/, '')}/profile/personal_access_tokens`
}

const refused = (message: string, challenge: boolean): GitClient => ({ kind: 'refused', message, challenge })

/** Login and password of a Basic Authorization header; null for any other header. */
export function basicCredentials(header: string | undefined): { login: string; password: string } | null {
  const encoded = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i)?.[1]
  if (encoded === undefined) return null
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon === -1 ? { login: decoded, password: '' } : { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** The client a request's Authorization header names; `address` is the client's, which failures count against. */
export async function authenticateGitClient(ctx: AppContext, authorization: string | undefined, address: string): Promise<GitClient> {
  const { db } = ctx
  if (authorization === undefined || authorization === '') return { kind: 'anonymous' }
  const bans = ctx.throttles.signInBans
  const credentials = basicCredentials(authorization)
  if (credentials === null || credentials.password === '' || credentials.password.includes('\0') || credentials.login.includes('\0')) {
    await bans.failed({ address, account: null })
    return refused(ACCESS_DENIED, true)
  }
  if (credentials.login === JOB_TOKEN_LOGIN) {
    const actor = await actorForJobToken(db, credentials.password)
    if (actor !== null) return { kind: 'user', actor, mayDownload: true, mayPush: false }
  }
  const token = await byToken(db, credentials.login, credentials.password)
  if (token !== null) {
    if (token.kind === 'user') {
      await bans.succeeded({ address, account: null })
      await recordActivity(db, token.actor.token, token.actor.user)
    }
    return token
  }
  return authenticateByPassword(ctx, credentials.login, credentials.password, address)
}

/**
 * A user's login and password as git over HTTP checks them (and OAuth's password grant, as the
 * original's find_with_user_password): refused while password_authentication_enabled_for_git is off,
 * for blocked users and users with two-factor authentication; failures count towards bans.
 */
export async function authenticateByPassword(ctx: AppContext, login: string, password: string, address: string): Promise<GitClient> {
  const bans = ctx.throttles.signInBans
  const { client, attempt } = await byPassword(ctx, login, password, address)
  if (client.kind === 'user' && await bans.accountBanned(attempt)) return refused(ACCESS_DENIED, true)
  if (client.kind === 'refused') await bans.failed(attempt)
  if (client.kind === 'user') {
    await bans.succeeded(attempt)
    await recordActivity(ctx.db, client.actor.token, client.actor.user)
  }
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

async function byPassword(
  { db, config }: AppContext, login: string, password: string, address: string,
): Promise<{ client: GitClient; attempt: SignInAttempt }> {
  // With passwords off for git, none is checked, and every refusal says to use a token.
  if (!(await getApplicationSettings(db)).password_authentication_enabled_for_git) {
    return { client: refused(needsToken(config.externalUrl), false), attempt: { address, account: null } }
  }
  const lower = login.toLowerCase()
  const user: UserRow | undefined = await db.selectFrom('users').selectAll()
    .where(login.includes('@') ? 'email_lower' : 'username_lower', '=', lower)
    .where('ghost', '=', 0)
    .executeTakeFirst()
  const attempt: SignInAttempt = { address, account: accountKey(user?.id ?? null, login) }
  // The password is checked whatever else is known, so that every refusal takes the same time.
  const matches = await passwordMatches(user?.password_digest ?? null, password)
  if (user === undefined || user.state === 'blocked' || !matches) return { client: refused(ACCESS_DENIED, true), attempt }
  if (user.two_factor_enabled) return { client: refused(needsToken(config.externalUrl), false), attempt }
  return { client: { kind: 'user', actor: { user, token: null, sudoFrom: null }, mayDownload: true, mayPush: true }, attempt }
}
