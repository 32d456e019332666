// Revokes a token (DELETE /users/:user_id/impersonation_tokens/:id): it is kept, marked revoked,
// and never authenticates again.
import type { Db } from '../../db/index.js'
import type { AccessTokenRow } from '../../db/schema.js'

export async function revokeAccessToken(db: Db, token: AccessTokenRow): Promise<void> {
  await db.updateTable('access_tokens').set({ revoked: 1 }).where('id', '=', token.id).execute()
}
