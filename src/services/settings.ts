// Application settings that govern behaviour (spec: Application settings). Until settings are
// stored and editable through /application/settings, every instance runs on the defaults below.
import type { Db } from '../db/index.js'
import type { Visibility } from '../policies/access-levels.js'

export interface ApplicationSettings {
  default_projects_limit: number
  default_project_visibility: Visibility
  default_group_visibility: Visibility
  /** Visibilities that only administrators may choose. */
  restricted_visibility_levels: Visibility[]
  /** Protection of a new project's default branch: 0 none, 1 Developers push, 2 Maintainers only. */
  default_branch_protection: 0 | 1 | 2
  /** Minimum key sizes by key type: 0 allows any size, -1 forbids the type. */
  rsa_key_restriction: number
  dsa_key_restriction: number
  ecdsa_key_restriction: number
  ed25519_key_restriction: number
}

export const DEFAULT_SETTINGS: Readonly<ApplicationSettings> = {
  default_projects_limit: 100000,
  default_project_visibility: 'private',
  default_group_visibility: 'private',
  restricted_visibility_levels: [],
  default_branch_protection: 2,
  rsa_key_restriction: 0,
  dsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ed25519_key_restriction: 0,
}

export async function getApplicationSettings(_db: Db): Promise<ApplicationSettings> {
  return { ...DEFAULT_SETTINGS, restricted_visibility_levels: [...DEFAULT_SETTINGS.restricted_visibility_levels] }
}
