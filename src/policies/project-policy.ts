// Who may do what on a project: pure functions of the caller and what loadProject() found.
import type { Actor } from '../auth/actor.js'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import type { ProjectAccess } from '../finders/access.js'
import { DEVELOPER, GUEST, INTERNAL, MAINTAINER, OWNER, PUBLIC, REPORTER } from './access-levels.js'

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
  | 'read_issue'         // whoever reads the project, while issues are enabled (confidential ones: see issue policy)
  | 'create_issue'       // signed-in readers of public/internal projects, Guest on private ones
  | 'admin_issue'        // Reporter: edit others' issues, labels, assignees, milestones, boards
  | 'destroy_issue'      // Owner (and admins), as the original
  | 'read_merge_request' // whoever reads the code, while merge requests are enabled
  | 'create_merge_request_in'   // the target: whoever reads its code (forks' owners too)
  | 'create_merge_request_from' // the source: Developer (push access)
  | 'admin_merge_request'       // Developer: edit others' merge requests
  | 'create_note'        // signed-in readers (the noteable's own rules decide the rest)
  | 'admin_note'         // Maintainer: edit and delete others' notes
  | 'read_snippet'       // whoever reads the project, while snippets are enabled
  | 'create_snippet'     // Reporter, while snippets are enabled
  | 'admin_snippet'      // Maintainer: edit and delete others' snippets
  | 'read_milestone'     // whoever reads issues or merge requests
  | 'admin_milestone'    // Reporter: create, edit, close milestones; labels and board lists alike
  | 'destroy_milestone'  // Developer, as the spec says
  | 'destroy_board_list' // Owner (and admins), as the spec says
  | 'read_wiki'          // whoever reads the project (Guests of private ones too), while the wiki is enabled
  | 'create_wiki'        // Developer, while the wiki is enabled: write pages and attachments, push to the wiki
  | 'admin_wiki'         // Maintainer, while the wiki is enabled: delete pages
  | 'read_pipeline'      // Reporter; anyone who reads the project when its jobs are public (public_jobs)
  | 'read_build'         // the same, while jobs are enabled: jobs and their traces
  | 'create_pipeline'    // Developer, while jobs are enabled
  | 'update_build'       // Developer, while jobs are enabled: cancel, retry, play jobs and pipelines
  | 'admin_build'        // Maintainer, while jobs are enabled: CI/CD variables, pipeline triggers, any pipeline schedule
  | 'destroy_pipeline'   // Owner (and admins)
  | 'read_pipeline_schedule' // Developer, while jobs are enabled
  | 'read_environment'   // Reporter, while jobs are enabled: environments and deployments
  | 'update_environment' // Developer, while jobs are enabled: create, edit, delete and stop environments

/** What an archived project refuses: every change of its code and collaboration content. */
const CHANGES_CONTENT: ReadonlySet<ProjectAbility> = new Set<ProjectAbility>([
  'push_code', 'create_issue', 'admin_issue', 'destroy_issue', 'create_merge_request_in', 'create_merge_request_from',
  'admin_merge_request', 'create_note', 'admin_note', 'create_snippet', 'admin_snippet', 'admin_milestone', 'destroy_milestone',
  'destroy_board_list', 'create_wiki', 'admin_wiki', 'create_pipeline', 'update_build', 'admin_build', 'destroy_pipeline',
  'update_environment',
])

/** What a project with jobs disabled refuses, to administrators too. */
const NEEDS_JOBS: ReadonlySet<ProjectAbility> = new Set<ProjectAbility>([
  'create_pipeline', 'update_build', 'admin_build', 'read_pipeline_schedule', 'read_environment', 'update_environment',
])

/** Pipelines and jobs: Reporters and up, or whoever reads the project when its jobs are public, as the original's public_builds. */
function canReadPipelines(actor: Actor | null, subject: ProjectSubject): boolean {
  const { project, access } = subject
  if (!canReadProject(actor, project, access)) return false
  return project.public_jobs === 1 || (actor !== null && (actor.user.admin === 1 || access.level >= REPORTER))
}

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
  const { project } = subject
  switch (ability) {
    case 'read_project': return canReadProject(actor, project, subject.access)
    case 'download_code': return canDownloadCode(actor, subject)
    case 'read_issue': return project.issues_enabled === 1 && canReadProject(actor, project, subject.access)
    case 'read_merge_request': return project.merge_requests_enabled === 1 && canDownloadCode(actor, subject)
    case 'read_snippet': return project.snippets_enabled === 1 && canReadProject(actor, project, subject.access)
    case 'read_milestone': return (project.issues_enabled === 1 || project.merge_requests_enabled === 1)
      && canReadProject(actor, project, subject.access)
    case 'read_wiki': return project.wiki_enabled === 1 && canReadProject(actor, project, subject.access)
    case 'read_pipeline': return canReadPipelines(actor, subject)
    case 'read_build': return project.jobs_enabled === 1 && canReadPipelines(actor, subject)
    default: break
  }
  if (actor === null) return false
  // An archived project is read-only, for administrators too.
  if (project.archived && CHANGES_CONTENT.has(ability)) return false
  if (ability === 'create_merge_request_in') return project.merge_requests_enabled === 1 && canDownloadCode(actor, subject)
  // A disabled wiki is closed to administrators too.
  if ((ability === 'create_wiki' || ability === 'admin_wiki') && project.wiki_enabled !== 1) return false
  if (NEEDS_JOBS.has(ability) && project.jobs_enabled !== 1) return false
  if (actor.user.admin) return true
  const level = subject.access.level
  switch (ability) {
    case 'read_statistics':
    case 'read_environment': return level >= REPORTER
    case 'push_code': return level >= DEVELOPER
    case 'admin_project':
    case 'admin_project_member': return level >= MAINTAINER || isProjectOwner(actor, subject)
    case 'remove_project':
    case 'archive_project':
    case 'rename_project':
    case 'change_visibility_level': return isProjectOwner(actor, subject)
    case 'create_issue': return project.issues_enabled === 1 && (level >= GUEST || project.visibility_level >= INTERNAL)
    case 'admin_issue':
    case 'admin_milestone': return level >= REPORTER
    case 'destroy_issue':
    case 'destroy_board_list':
    case 'destroy_pipeline': return isProjectOwner(actor, subject)
    case 'create_merge_request_from':
    case 'admin_merge_request':
    case 'destroy_milestone':
    case 'create_wiki':
    case 'create_pipeline':
    case 'update_build':
    case 'read_pipeline_schedule':
    case 'update_environment': return level >= DEVELOPER
    case 'create_note': return canReadProject(actor, project, subject.access)
    case 'admin_build':
    case 'admin_note':
    case 'admin_snippet':
    case 'admin_wiki': return level >= MAINTAINER
    case 'create_snippet': return project.snippets_enabled === 1 && level >= REPORTER
  }
}
