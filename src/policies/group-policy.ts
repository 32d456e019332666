// Who may do what on a group: pure functions of the caller and their (inherited) access level.
import type { Actor } from '../auth/actor.js'
import { MAINTAINER, OWNER } from './access-levels.js'

export type GroupAbility =
  | 'create_projects'    // Maintainer
  | 'admin_group'        // Owner: settings, delete, transfer in
  | 'admin_group_member' // Owner
  | 'create_subgroup'    // Owner

export function canOnGroup(actor: Actor | null, accessLevel: number, ability: GroupAbility): boolean {
  if (actor === null) return false
  if (actor.user.admin) return true
  switch (ability) {
    case 'create_projects': return accessLevel >= MAINTAINER
    case 'admin_group':
    case 'admin_group_member':
    case 'create_subgroup': return accessLevel >= OWNER
  }
}

/**
 * Whether the caller may create a group: under a parent, where they may create subgroups (given
 * their access level there); at the top level, when their account may create groups.
 */
export function canCreateGroup(actor: Actor | null, parentAccessLevel: number | null): boolean {
  if (actor === null) return false
  return parentAccessLevel === null ? actor.user.can_create_group === 1 : canOnGroup(actor, parentAccessLevel, 'create_subgroup')
}
