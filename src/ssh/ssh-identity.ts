// Who an SSH client is: the owner of a user's key, or a deploy key, found by the SHA256
// fingerprint of the public key it offers (the unique indexes of ssh_keys and deploy_keys).
import { createHash } from 'node:crypto'
import type { Db } from '../db/index.js'
import type { DeployKeyRow, SshKeyRow, UserRow } from '../db/schema.js'

export type SshIdentity =
  | { kind: 'user'; user: UserRow; key: SshKeyRow }
  /** `user`: who added the key (null once deleted), whom the original greets and records its pushes as. */
  | { kind: 'deploy_key'; key: DeployKeyRow; user: UserRow | null }

/** `SHA256:<base64 without padding>` of a public key blob, as ssh-keygen -l and the keys' fingerprint columns have it. */
export function sshFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`
}

export async function findSshIdentity(db: Db, fingerprint: string): Promise<SshIdentity | null> {
  const key = await db.selectFrom('ssh_keys').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst()
  if (key !== undefined) {
    const user = await db.selectFrom('users').selectAll().where('id', '=', key.user_id).executeTakeFirst()
    return user === undefined ? null : { kind: 'user', user, key }
  }
  const deployKey = await db.selectFrom('deploy_keys').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst()
  if (deployKey === undefined) return null
  const user = deployKey.user_id === null ? undefined : await db.selectFrom('users').selectAll().where('id', '=', deployKey.user_id).executeTakeFirst()
  return { kind: 'deploy_key', key: deployKey, user: user ?? null }
}

/** How often a deploy key's last_used_at is written at most: a busy key costs no write per command. */
const LAST_USED_INTERVAL_MS = 60_000

export async function touchDeployKey(db: Db, key: DeployKeyRow): Promise<void> {
  const now = Date.now()
  await db.updateTable('deploy_keys').set({ last_used_at: now }).where('id', '=', key.id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now - LAST_USED_INTERVAL_MS)]))
    .execute()
}
