// Changes a project's deploy key (PUT /projects/:id/deploy_keys/:key_id): its title, which every
// project holding the key shows, and its can_push on this project. Who may is the policy's
// (policies/deploy-key-policy.ts).
import type { Db } from '../../db/index.js'
import { validationFailed } from '../../common/errors.js'
import type { ProjectDeployKey } from '../../entities/deploy-key.js'
import { flag } from '../../db/values.js'
import { keyTitleErrors } from '../ssh-keys/add-ssh-key.js'
import { deployKeyErrors } from './add-deploy-key.js'

export interface DeployKeyChanges {
  title?: string
  can_push?: boolean
}

export async function updateDeployKey(db: Db, held: ProjectDeployKey, changes: DeployKeyChanges): Promise<ProjectDeployKey> {
  const { title, can_push: canPush } = changes
  const titleErrors = title === undefined ? [] : keyTitleErrors(title)
  if (titleErrors.length > 0) throw validationFailed(deployKeyErrors({ title: titleErrors }))
  const now = Date.now()
  return db.transaction().execute(async (trx) => {
    const key = title === undefined
      ? held.key
      : await trx.updateTable('deploy_keys').set({ title, updated_at: now })
        .where('id', '=', held.key.id).returningAll().executeTakeFirstOrThrow()
    const link = canPush === undefined
      ? held.link
      : await trx.updateTable('deploy_keys_projects').set({ can_push: flag(canPush), updated_at: now })
        .where('id', '=', held.link.id).returningAll().executeTakeFirstOrThrow()
    return { key, link }
  })
}
