// Who may change a deploy key itself, as the original's DeployKeyPolicy (update_deploy_key):
// administrators any key, anyone else a private key enabled on one of their projects. Callers
// reach a key through a project they maintain, so the second half is "the key is not public":
// its title (which every project holding it shows) and its can_push there; a public key is the
// administrators' alone.
import type { Actor } from '../auth/actor.js'
import type { DeployKeyRow } from '../db/schema.js'

export function canUpdateDeployKey(actor: Actor, key: DeployKeyRow): boolean {
  return actor.user.admin === 1 || key.public !== 1
}
