// Removes one of a user's SSH keys (DELETE /user/keys/:key_id, DELETE /users/:id/keys/:key_id).
import type { Db } from '../../db/index.js'
import type { SshKeyRow } from '../../db/schema.js'

export async function removeSshKey(db: Db, key: SshKeyRow): Promise<void> {
  await db.deleteFrom('ssh_keys').where('id', '=', key.id).execute()
}
