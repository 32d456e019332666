// Issues a personal access token with a name, scopes and an optional expiry date, checked as the
// API checks them: an administrator's impersonation tokens (create-impersonation-token.ts) and the
// operator's `ingot admin token create`. An expiry date ends the token at the start of that day (UTC).
import type { Db } from '../../db/index.js'
import type { AccessTokenRow } from '../../db/schema.js'
import { isCalendarDate, startOfDate } from '../../db/values.js'
import { SCOPES, type Scope } from '../../auth/actor.js'
import { validationFailed } from '../../common/errors.js'
import { collectErrors } from '../validation.js'
import { createAccessToken } from './create-access-token.js'

export interface PersonalAccessTokenInput {
  name: string
  scopes: readonly string[]
  /** 'YYYY-MM-DD'. */
  expires_at?: string | null
}

const isScope = (scope: string): scope is Scope => (SCOPES as readonly string[]).includes(scope)

export async function createPersonalAccessToken(
  db: Db, userId: number, input: PersonalAccessTokenInput, kind: 'personal' | 'impersonation' = 'personal',
): Promise<{ row: AccessTokenRow; token: string }> {
  const errors = collectErrors({
    name: input.name.trim() === '' ? ["can't be blank"] : [],
    scopes: input.scopes.length === 0 ? ["can't be blank"] : input.scopes.every(isScope) ? [] : ['can only contain available scopes'],
    expires_at: input.expires_at && !isCalendarDate(input.expires_at) ? ['is invalid'] : [],
  })
  if (errors !== null) throw validationFailed(errors)
  return createAccessToken(db, {
    userId,
    kind,
    name: input.name,
    scopes: [...new Set(input.scopes.filter(isScope))],
    expiresAt: input.expires_at ? startOfDate(input.expires_at) : null,
  })
}
