// Issues an impersonation token for a user (POST /users/:user_id/impersonation_tokens): a personal
// access token that an administrator creates for them, checked as every personal access token is.
import type { Db } from '../../db/index.js'
import type { AccessTokenRow } from '../../db/schema.js'
import { createPersonalAccessToken, type PersonalAccessTokenInput } from './create-personal-access-token.js'

export function createImpersonationToken(
  db: Db, userId: number, input: PersonalAccessTokenInput,
): Promise<{ row: AccessTokenRow; token: string }> {
  return createPersonalAccessToken(db, userId, input, 'impersonation')
}
