// Visibility rules shared by projects and groups: a project or subgroup may not be more visible
// than the group holding it, and restricted visibilities are for administrators only.
import type { Actor } from '../../auth/actor.js'
import type { NamespaceRow } from '../../db/schema.js'
import { visibilityName, type Visibility } from '../../policies/access-levels.js'
import type { ApplicationSettings } from '../settings.js'

/** Messages for `visibility_level` when `visibility` cannot be used inside `parent`. */
export function visibilityErrors(
  visibility: Visibility, level: number, parent: NamespaceRow | null, actor: Actor, settings: ApplicationSettings, what: 'project' | 'group',
): string[] {
  const errors: string[] = []
  if (parent !== null && parent.kind === 'group' && level > parent.visibility_level) {
    errors.push(`${visibility} is not allowed in a ${visibilityName(parent.visibility_level)} group.`)
  }
  if (!actor.user.admin && settings.restricted_visibility_levels.includes(visibility)) {
    errors.push(`${what === 'project' ? 'Project' : 'Group'} visibility ${visibility} has been restricted by your administrator.`)
  }
  return errors
}
