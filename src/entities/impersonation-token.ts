// Impersonation token entities: ImpersonationToken, and ImpersonationTokenWithToken (the plain
// token, shown only in the answer that creates it).
import { Type, type Static } from '@sinclair/typebox'
import type { AccessTokenRow } from '../db/schema.js'
import { isoDateOf, isoTime, parseJsonArray } from '../db/values.js'
import { IsoDateTime, NullableDate } from './common.js'

export const ImpersonationToken = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  revoked: Type.Boolean(),
  created_at: IsoDateTime,
  scopes: Type.Array(Type.String()),
  user_id: Type.Integer(),
  /** Neither revoked nor expired. */
  active: Type.Boolean(),
  expires_at: NullableDate,
  impersonation: Type.Boolean(),
})
export type ImpersonationTokenEntity = Static<typeof ImpersonationToken>

export const ImpersonationTokenWithToken = Type.Composite([ImpersonationToken, Type.Object({ token: Type.String() })])
export type ImpersonationTokenWithTokenEntity = Static<typeof ImpersonationTokenWithToken>

export function presentImpersonationToken(row: AccessTokenRow, now: number = Date.now()): ImpersonationTokenEntity {
  const expired = row.expires_at !== null && row.expires_at <= now
  return {
    id: row.id,
    name: row.name,
    revoked: row.revoked === 1,
    created_at: isoTime(row.created_at),
    scopes: parseJsonArray(row.scopes),
    user_id: row.user_id,
    active: row.revoked === 0 && !expired,
    expires_at: row.expires_at === null ? null : isoDateOf(row.expires_at),
    impersonation: row.kind === 'impersonation',
  }
}

export function presentImpersonationTokenWithToken(row: AccessTokenRow, token: string): ImpersonationTokenWithTokenEntity {
  return { ...presentImpersonationToken(row), token }
}
