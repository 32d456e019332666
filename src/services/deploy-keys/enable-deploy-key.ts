// Enables an existing deploy key on a project (POST /projects/:id/deploy_keys/:key_id/enable): a
// public key, or one enabled on another project the user maintains. Enabling a key the project
// has already changes nothing.
import type { Db } from '../../db/index.js'
import type { DeployKeyRow } from '../../db/schema.js'
import type { ProjectDeployKey } from '../../entities/deploy-key.js'
import { findEnableableDeployKey, findProjectDeployKey } from '../../finders/deploy-keys-finder.js'
import { flag } from '../../db/values.js'

/** Links the key to the project unless it is linked already (concurrently too); the link as it stands. */
export async function linkDeployKey(db: Db, key: DeployKeyRow, projectId: number, canPush: boolean): Promise<ProjectDeployKey> {
  const now = Date.now()
  await db.insertInto('deploy_keys_projects')
    .values({ deploy_key_id: key.id, project_id: projectId, can_push: flag(canPush), created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['deploy_key_id', 'project_id']).doNothing())
    .execute()
  const held = await findProjectDeployKey(db, projectId, key.id)
  // Only a key deleted at this very moment is missing.
  if (held === null) throw new Error(`deploy key ${key.id} vanished while being enabled`)
  return held
}

/** The key enabled, or null when the user may not enable a key of that id (none, or not theirs to give). */
export async function enableDeployKey(db: Db, projectId: number, userId: number, keyId: number): Promise<DeployKeyRow | null> {
  const key = await findEnableableDeployKey(db, userId, { id: keyId })
  if (key === null) return null
  await linkDeployKey(db, key, projectId, false)
  return key
}
