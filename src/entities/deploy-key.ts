// Deploy key entities (the original's Entities::SSHKey and Entities::DeployKeysProject): a key as
// the instance lists and enables it (id, title, key, created_at), and a key as a project holds it,
// with its can_push there.
import { Type, type Static } from '@sinclair/typebox'
import type { DeployKeyProjectRow, DeployKeyRow } from '../db/schema.js'
import { SshKey, presentSshKey, type SshKeyEntity } from './ssh-key.js'

export const DeployKey = SshKey

export const DeployKeysProject = Type.Composite([SshKey, Type.Object({ can_push: Type.Boolean() })])
export type DeployKeysProjectEntity = Static<typeof DeployKeysProject>

/** A deploy key and its link to one project. */
export interface ProjectDeployKey {
  key: DeployKeyRow
  link: DeployKeyProjectRow
}

export function presentDeployKey(key: DeployKeyRow): SshKeyEntity {
  return presentSshKey(key)
}

export function presentDeployKeysProject({ key, link }: ProjectDeployKey): DeployKeysProjectEntity {
  return { ...presentSshKey(key), can_push: link.can_push === 1 }
}
