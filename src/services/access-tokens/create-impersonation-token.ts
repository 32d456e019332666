// Issues an impersonation token for a user (POST /users/:user_id/impersonation_tokens): a personal
// access token that an administrator creates for them. An expiry date ends it at the start of that
// day (UTC).
import type { Db } from '../../db/index.js'
import type { AccessTokenRow } from '../../db/schema.js'
import { startOfDate } from '../../db/values.js'
import { SCOPES, type Scope } from '../../auth/actor.js'
import { validationFailed } from '../../common/errors.js'
import { collectErrors } from '../validation.js'
import { createAccessToken } from './create-access-token.js'

export interface ImpersonationTokenInput {
  name: string
  scopes: readonly string[]
  /** 'YYYY-MM-DD'. */
  expires_at?: string | null
}

const isScope = (scope: string): scope is Scope => (SCOPES as readonly string[]).includes(scope)

export async function createImpersonationToken(
  db: Db, userId: number, input: ImpersonationTokenInput,
): Promise<{ row: AccessTokenRow; token: string }> {
  const errors = collectErrors({
    name: input.name.trim() === '' ? ["can't be blank"] : [],
    scopes: input.scopes.length === 0 ? ["can't be blank"] : input.scopes.every(isScope) ? [] : ['can only contain available scopes'],
  })
  if (errors !== null) throw validationFailed(errors)
  return createAccessToken(db, {
    userId,
    kind: 'impersonation',
    name: input.name,
    scopes: [...new Set(input.scopes.filter(isScope))],
    expiresAt: input.expires_at ? startOfDate(input.expires_at) : null,
  })
}
