// What a deploy key may do with a project: read it where the key is enabled on it, push where it
// is enabled with can_push. SSH (git commands, git-lfs-authenticate) and LFS over HTTP ask here.
import type { Db } from '../../db/index.js'

export interface DeployKeyAccess {
  read: boolean
  push: boolean
}

const NONE: DeployKeyAccess = { read: false, push: false }

export async function deployKeyAccess(db: Db, deployKeyId: number, projectId: number): Promise<DeployKeyAccess> {
  const link = await db.selectFrom('deploy_keys_projects').select('can_push')
    .where('deploy_key_id', '=', deployKeyId).where('project_id', '=', projectId).executeTakeFirst()
  return link === undefined ? NONE : { read: true, push: link.can_push === 1 }
}
