// Who may do what on a project: pure functions of the caller and what loadProject() found.
import type { Actor } from '../auth/actor.js'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import type { ProjectAccess } from '../finders/access.js'
import { DEVELOPER, INTERNAL, MAINTAINER, OWNER, PUBLIC, REPORTER } from './access-levels.js'

export interface ProjectSubject {
  project: ProjectRow
  namespace: NamespaceRow
  access: ProjectAccess
}

export type ProjectAbility =
  | 'read_project'       // see it at all (404 otherwise)
  | 'read_statistics'    // Reporter
  | 'download_code'      // read the repository: public and internal projects' readers, Reporter on private ones
  | 'push_code'          // Developer, on a project that is not archived
  | 'admin_project'      // Maintainer: settings, share, hooks, integrations
  | 'admin_project_member'
  | 'remove_project'     // Owner: the personal namespace's user or a group Owner
  | 'archive_project'    // Owner, as in the original (archive, unarchive)
  | 'rename_project'     // Owner (a new name through PUT)
  | 'change_visibility_level' // Owner (a visibility through PUT)

/** A project is readable by admins, by anyone when public, by internal users when internal, and by members. */
export function canReadProject(actor: Actor | null, project: ProjectRow, access: ProjectAccess): boolean {
  if (project.visibility_level === PUBLIC) return true
  if (actor === null) return false
  if (actor.user.admin) return true
  if (project.visibility_level === INTERNAL && !actor.user.external) return true
  return access.level > 0
}

/**
 * Whether the caller may read the repository (tree, blobs, archives, commits): everyone who can read
 * a public project, signed-in non-external users on internal ones, and Reporters and up otherwise
 * (a Guest of a private project sees the project but not its code: 403).
 */
function canDownloadCode(actor: Actor | null, subject: ProjectSubject): boolean {
  const { project, access } = subject
  if (!canReadProject(actor, project, access)) return false
  if (project.visibility_level === PUBLIC) return true
  if (actor !== null && (actor.user.admin || (project.visibility_level === INTERNAL && !actor.user.external))) return true
  return access.level >= REPORTER
}

export function isProjectOwner(actor: Actor | null, subject: ProjectSubject): boolean {
  if (actor === null) return false
  if (subject.namespace.kind === 'user') return subject.namespace.owner_id === actor.user.id
  return (subject.access.groupAccess ?? 0) >= OWNER
}

export function canOnProject(actor: Actor | null, subject: ProjectSubject, ability: ProjectAbility): boolean {
  if (ability === 'read_project') return canReadProject(actor, subject.project, subject.access)
  if (ability === 'download_code') return canDownloadCode(actor, subject)
  if (actor === null) return false
  // An archived project is read-only, for administrators too.
  if (ability === 'push_code' && subject.project.archived) return false
  if (actor.user.admin) return true
  const level = subject.access.level
  switch (ability) {
    case 'read_statistics': return level >= REPORTER
    case 'push_code': return level >= DEVELOPER
    case 'admin_project':
    case 'admin_project_member': return level >= MAINTAINER || isProjectOwner(actor, subject)
    case 'remove_project':
    case 'archive_project':
    case 'rename_project':
    case 'change_visibility_level': return isProjectOwner(actor, subject)
  }
}
