// Issues a token: the plain value is returned once to the caller; only its digest is stored.
import type { Db } from '../../db/index.js'
import type { AccessTokenRow, TokenKind } from '../../db/schema.js'
import type { Scope } from '../../auth/actor.js'
import { generateToken, tokenDigest } from '../../auth/secrets.js'

export interface NewAccessToken {
  userId: number
  kind: TokenKind
  name: string
  scopes: readonly Scope[]
  expiresAt?: number | null
  /** A chosen value (the configured root token, an OAuth token); otherwise a random one. */
  token?: string
  /** For an `oauth` token: the application it is issued to (none for a password grant without a client) and its refresh token. */
  applicationId?: number | null
  refreshToken?: string | null
}

export async function createAccessToken(db: Db, input: NewAccessToken): Promise<{ row: AccessTokenRow; token: string }> {
  const token = input.token ?? generateToken()
  const row = await db.insertInto('access_tokens').values({
    user_id: input.userId,
    kind: input.kind,
    name: input.name,
    token_digest: tokenDigest(token),
    scopes: JSON.stringify(input.scopes),
    expires_at: input.expiresAt ?? null,
    revoked: 0,
    created_at: Date.now(),
    application_id: input.applicationId ?? null,
    refresh_token_digest: input.refreshToken == null ? null : tokenDigest(input.refreshToken),
  }).returningAll().executeTakeFirstOrThrow()
  return { row, token }
}
