// OpenID Connect on top of the OAuth provider, as doorkeeper-openid_connect 1.5 does it for the
// original: an RS256 id_token with the code flow's token when the openid scope was granted, the
// userinfo claims, the discovery document and the public keys. Claims are the original's
// (config/initializers/doorkeeper_openid_connect.rb) without sub_legacy and groups.
import type { OauthApplicationRow, UserRow } from '../../db/schema.js'
import { OAUTH_SCOPES } from '../../auth/actor.js'
import { presentContext } from '../../entities/common.js'
import { userAvatarUrl, userWebUrl } from '../../entities/user.js'
import { SIGNING_ALGORITHM, signingKey } from './signing-key.js'

/** Doorkeeper-openid_connect's default id_token lifetime. */
const ID_TOKEN_LIFETIME_SECONDS = 120

export interface UserClaims {
  sub: string
  name: string
  nickname: string
  email?: string
  email_verified?: boolean
  website?: string
  profile: string
  picture?: string
}

/** The claims about the user, in the id_token and from /oauth/userinfo; blank ones are left out. */
export function userClaims(user: UserRow, baseUrl: string): UserClaims {
  const ctx = presentContext(baseUrl, null, { sshUrlPrefix: null, lfsEnabled: false })
  const picture = userAvatarUrl(user, ctx)
  return {
    sub: String(user.id),
    name: user.name,
    nickname: user.username,
    // The public email is one the user confirmed (Ingot keeps only confirmed addresses).
    ...(user.public_email === '' ? {} : { email: user.public_email, email_verified: true }),
    ...(user.website_url === '' ? {} : { website: user.website_url }),
    profile: userWebUrl(user.username, ctx),
    ...(picture === null ? {} : { picture }),
  }
}

export const CLAIMS_SUPPORTED = ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'name', 'nickname', 'email', 'email_verified', 'website', 'profile', 'picture']

export async function signIdToken(input: {
  user: UserRow
  application: OauthApplicationRow
  nonce: string | null
  /** When the user last signed in; the grant's time when unknown. */
  authTime: number
  baseUrl: string
  dataDir: string
}): Promise<string> {
  const key = await signingKey(input.dataDir)
  const { SignJWT } = await import('jose')
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({
    ...userClaims(input.user, input.baseUrl),
    auth_time: Math.floor(input.authTime / 1000),
    ...(input.nonce === null ? {} : { nonce: input.nonce }),
  })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: key.publicJwk.kid, typ: 'JWT' })
    .setIssuer(input.baseUrl)
    .setAudience(input.application.uid)
    .setIssuedAt(now)
    .setExpirationTime(now + ID_TOKEN_LIFETIME_SECONDS)
    .sign(key.privateKey)
}

export async function publicKeys(dataDir: string): Promise<{ keys: object[] }> {
  return { keys: [(await signingKey(dataDir)).publicJwk] }
}

export function discoveryDocument(baseUrl: string): Record<string, unknown> {
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/oauth/authorize`,
    token_endpoint: `${baseUrl}/oauth/token`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    introspection_endpoint: `${baseUrl}/oauth/introspect`,
    userinfo_endpoint: `${baseUrl}/oauth/userinfo`,
    jwks_uri: `${baseUrl}/oauth/discovery/keys`,
    scopes_supported: OAUTH_SCOPES,
    response_types_supported: ['code', 'token'],
    response_modes_supported: ['query', 'fragment'],
    grant_types_supported: ['authorization_code', 'password', 'client_credentials', 'refresh_token', 'implicit'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
    claim_types_supported: ['normal'],
    claims_supported: CLAIMS_SUPPORTED,
  }
}
