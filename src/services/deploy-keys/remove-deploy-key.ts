// Disables a deploy key on a project (DELETE /projects/:id/deploy_keys/:key_id). As in the
// original, a private key no project holds any more goes with its last link; a public key stays
// for others to enable. Deleting projects does the same for their keys.
import type { Db } from '../../db/index.js'
import type { ProjectDeployKey } from '../../entities/deploy-key.js'

export async function removeDeployKey(db: Db, held: ProjectDeployKey): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('deploy_keys_projects').where('id', '=', held.link.id).execute()
    await trx.deleteFrom('deploy_keys').where('id', '=', held.key.id).where('public', '=', 0)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('deploy_keys_projects').select('id').where('deploy_key_id', '=', held.key.id))))
      .execute()
  })
}

/**
 * Deletes the private keys that only these projects hold, in the caller's transaction, before the
 * projects go (their links go with them by cascade).
 */
export async function removeDeployKeysOnlyOf(trx: Db, projectIds: readonly number[]): Promise<void> {
  if (projectIds.length === 0) return
  const projects = [...projectIds]
  await trx.deleteFrom('deploy_keys').where('public', '=', 0)
    .where('id', 'in', trx.selectFrom('deploy_keys_projects').select('deploy_key_id').where('project_id', 'in', projects))
    .where('id', 'not in', trx.selectFrom('deploy_keys_projects').select('deploy_key_id').where('project_id', 'not in', projects))
    .execute()
}
