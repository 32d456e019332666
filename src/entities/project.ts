// Project entities (spec: Project), as the original's BasicProjectDetails, Project and
// ProjectWithAccess:
//   ProjectSimple       the simple form (simple=true, and anonymous reads of GET /projects[/:id])
//   Project             the full form (writes, star, archive, group project lists); a fork's
//                       shows the project it was forked from, in the simple form
//   ProjectWithAccess   the full form plus the caller's `permissions` (signed-in reads)
//   ProjectGroupLink    a share of a project with a group (POST /projects/:id/share)
import { Type, type Static } from '@sinclair/typebox'
import type { NamespaceRow, ProjectGroupLinkRow, ProjectRow, ProjectStatisticsRow, UserRow } from '../db/schema.js'
import { isoTime, parseJsonArray } from '../db/values.js'
import { NOTIFICATION_LEVEL_GLOBAL, visibilityName } from '../policies/access-levels.js'
import type { ProjectAccess } from '../finders/access.js'
import { CustomAttribute, IsoDateTime, Nullable, NullableDate, NullableInteger, NullableString, type CustomAttributeEntity, type PresentContext, sshUrlToRepo } from './common.js'
import { UserBasic, presentUserBasic } from './user.js'

export const ProjectSimple = Type.Object({
  id: Type.Integer(),
  description: NullableString,
  name: Type.String(),
  name_with_namespace: Type.String(),
  path: Type.String(),
  path_with_namespace: Type.String(),
  created_at: IsoDateTime,
  default_branch: NullableString,
  tag_list: Type.Array(Type.String()),
  ssh_url_to_repo: Type.String(),
  http_url_to_repo: Type.String(),
  web_url: Type.String(),
  readme_url: NullableString,
  avatar_url: NullableString,
  star_count: Type.Integer(),
  forks_count: Type.Integer(),
  last_activity_at: IsoDateTime,
  custom_attributes: Type.Optional(Type.Array(CustomAttribute)),
})
export type ProjectSimpleEntity = Static<typeof ProjectSimple>

/** The original's ProjectIdentity: a job's project, and the import and export status objects. */
export const ProjectIdentity = Type.Pick(ProjectSimple, ['id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at'])
export type ProjectIdentityEntity = Static<typeof ProjectIdentity>

export function presentProjectIdentity(project: ProjectRow, namespace: NamespaceRow): ProjectIdentityEntity {
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: `${namespace.full_name} / ${project.name}`,
    path: project.path,
    path_with_namespace: `${namespace.full_path}/${project.path}`,
    created_at: isoTime(project.created_at),
  }
}

export const NamespaceBasic = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  path: Type.String(),
  kind: Type.String(),
  full_path: Type.String(),
  parent_id: NullableInteger,
})
export type NamespaceBasicEntity = Static<typeof NamespaceBasic>

const ProjectLinks = Type.Object({
  self: Type.String(),
  issues: Type.Optional(Type.String()),
  merge_requests: Type.Optional(Type.String()),
  repo_branches: Type.String(),
  labels: Type.String(),
  events: Type.String(),
  members: Type.String(),
})

export const SharedWithGroup = Type.Object({
  group_id: Type.Integer(),
  group_name: Type.String(),
  group_access_level: Type.Integer(),
  expires_at: NullableDate,
})
export type SharedWithGroupEntity = Static<typeof SharedWithGroup>

export const ProjectStatistics = Type.Object({
  commit_count: Type.Integer(),
  storage_size: Type.Integer(),
  repository_size: Type.Integer(),
  lfs_objects_size: Type.Integer(),
  job_artifacts_size: Type.Integer(),
})

/** The owner of a personal project: the spec's `id`, `name`, `created_at` and the brief user fields. */
const ProjectOwner = Type.Composite([UserBasic, Type.Object({ created_at: IsoDateTime })])

export const Project = Type.Composite([ProjectSimple, Type.Object({
  visibility: Type.String(),
  owner: Type.Optional(ProjectOwner),
  namespace: NamespaceBasic,
  _links: ProjectLinks,
  /** Later releases' field, which bots read: the repository has no branch yet (stored, not read from git). */
  empty_repo: Type.Boolean(),
  archived: Type.Boolean(),
  resolve_outdated_diff_discussions: Type.Boolean(),
  container_registry_enabled: Type.Boolean(),
  issues_enabled: Type.Boolean(),
  merge_requests_enabled: Type.Boolean(),
  wiki_enabled: Type.Boolean(),
  jobs_enabled: Type.Boolean(),
  snippets_enabled: Type.Boolean(),
  shared_runners_enabled: Type.Boolean(),
  lfs_enabled: Type.Boolean(),
  creator_id: Type.Integer(),
  /** Only on forks, and only when the caller may see the project forked from. */
  forked_from_project: Type.Optional(ProjectSimple),
  import_status: Type.String(),
  import_error: Type.Optional(NullableString),
  open_issues_count: Type.Optional(Type.Integer()),
  runners_token: Type.Optional(Type.String()),
  public_jobs: Type.Boolean(),
  ci_config_path: NullableString,
  shared_with_groups: Type.Array(SharedWithGroup),
  only_allow_merge_if_pipeline_succeeds: Type.Boolean(),
  request_access_enabled: Type.Boolean(),
  only_allow_merge_if_all_discussions_are_resolved: Type.Boolean(),
  printing_merge_request_link_enabled: Type.Boolean(),
  merge_method: Type.String(),
  statistics: Type.Optional(ProjectStatistics),
})])
export type ProjectEntity = Static<typeof Project>

const AccessEntry = Nullable(Type.Object({ access_level: Type.Integer(), notification_level: Type.Integer() }))

export const ProjectWithAccess = Type.Composite([Project, Type.Object({
  permissions: Type.Object({ project_access: AccessEntry, group_access: AccessEntry }),
})])
export type ProjectWithAccessEntity = Static<typeof ProjectWithAccess>

export const ProjectGroupLink = Type.Object({
  id: Type.Integer(),
  project_id: Type.Integer(),
  group_id: Type.Integer(),
  group_access: Type.Integer(),
  expires_at: NullableDate,
})
export type ProjectGroupLinkEntity = Static<typeof ProjectGroupLink>

/** A project with everything its entities show, loaded in bulk by finders/project-views.ts. */
export interface ProjectView {
  project: ProjectRow
  namespace: NamespaceRow
  /** The user owning the namespace of a personal project; null for group projects. */
  owner: UserRow | null
  /** The caller's access; null for anonymous callers. */
  access: ProjectAccess | null
  sharedWithGroups: SharedWithGroupEntity[]
  /** Loaded only when the caller asked for statistics and may read them. */
  statistics: ProjectStatisticsRow | null
  /** Loaded only for with_custom_attributes from an admin. */
  customAttributes: CustomAttributeEntity[] | null
  /** The project this one was forked from, when it is a fork the caller may see the source of. */
  forkedFrom: ForkSourceView | null
}

/** What the simple form of a fork's source is made of. */
export interface ForkSourceView {
  project: ProjectRow
  namespace: NamespaceRow
}

export function projectFullPath(view: Pick<ProjectView, 'project' | 'namespace'>): string {
  return `${view.namespace.full_path}/${view.project.path}`
}

export function presentNamespaceBasic(namespace: NamespaceRow): NamespaceBasicEntity {
  return {
    id: namespace.id,
    name: namespace.name,
    path: namespace.path,
    kind: namespace.kind,
    full_path: namespace.full_path,
    parent_id: namespace.parent_id,
  }
}

// The presenters build each answer as one object literal of a fixed shape (fields a form leaves out
// are undefined, which the serializer skips): a list presents many projects per request, and
// literals assembled from spreads cost several times more.

/** The simple form: the full form's first fields (the serializer of ProjectSimple writes only those). */
export function presentProjectSimple(view: ProjectView, ctx: PresentContext): ProjectSimpleEntity {
  return presentFull(view, ctx, {}, false)
}

function presentForkSource(source: ForkSourceView, ctx: PresentContext): ProjectSimpleEntity {
  return presentProjectSimple({
    ...source, owner: null, access: null, sharedWithGroups: [], statistics: null, customAttributes: null, forkedFrom: null,
  }, ctx)
}

/**
 * The original's readme_url: the blob page of the default branch's README (kept in readme_path by
 * the statistics job); null for an empty repository or one without a README.
 */
function readmeUrl(project: ProjectRow, webUrl: string): string | null {
  if (project.readme_path === null || project.default_branch === null) return null
  const segments = [...project.default_branch.split('/'), project.readme_path].map(encodeURIComponent)
  return `${webUrl}/blob/${segments.join('/')}`
}

export interface ProjectPresentOptions {
  /**
   * The caller may administer the project and the answer is about this one project (GET, create,
   * update): the original shows `runners_token` and `import_error` only then, never in lists.
   */
  userCanAdminProject?: boolean
}

type AccessEntryEntity = { access_level: number; notification_level: number } | null

function accessEntry(level: number | null | undefined): AccessEntryEntity {
  return level === null || level === undefined ? null : { access_level: level, notification_level: NOTIFICATION_LEVEL_GLOBAL }
}

type FullForm = Omit<ProjectWithAccessEntity, 'permissions'> & { permissions: ProjectWithAccessEntity['permissions'] | undefined }

function presentFull(view: ProjectView, ctx: PresentContext, options: ProjectPresentOptions, withPermissions: boolean): FullForm {
  const { project, statistics } = view
  const fullPath = projectFullPath(view)
  const self = `${ctx.apiUrl}/projects/${project.id}`
  const webUrl = `${ctx.baseUrl}/${fullPath}`
  const adminFields = options.userCanAdminProject === true
  const issuesEnabled = project.issues_enabled === 1
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: `${view.namespace.full_name} / ${project.name}`,
    path: project.path,
    path_with_namespace: fullPath,
    created_at: isoTime(project.created_at),
    default_branch: project.default_branch,
    tag_list: parseJsonArray(project.tag_list).sort(),
    ssh_url_to_repo: sshUrlToRepo(ctx, fullPath),
    http_url_to_repo: `${ctx.baseUrl}/${fullPath}.git`,
    web_url: webUrl,
    readme_url: readmeUrl(project, webUrl),
    avatar_url: project.avatar_path === null ? null : `${ctx.baseUrl}/uploads/${project.avatar_path}`,
    star_count: project.star_count,
    forks_count: project.forks_count,
    last_activity_at: isoTime(project.last_activity_at),
    custom_attributes: view.customAttributes ?? undefined,
    visibility: visibilityName(project.visibility_level),
    owner: view.owner === null ? undefined : presentProjectOwner(view.owner, ctx),
    namespace: presentNamespaceBasic(view.namespace),
    _links: {
      self,
      issues: issuesEnabled ? `${self}/issues` : undefined,
      merge_requests: project.merge_requests_enabled === 1 ? `${self}/merge_requests` : undefined,
      repo_branches: `${self}/repository/branches`,
      labels: `${self}/labels`,
      events: `${self}/events`,
      members: `${self}/members`,
    },
    empty_repo: project.empty_repo === 1,
    archived: project.archived === 1,
    resolve_outdated_diff_discussions: project.resolve_outdated_diff_discussions === 1,
    container_registry_enabled: project.container_registry_enabled === 1,
    issues_enabled: issuesEnabled,
    merge_requests_enabled: project.merge_requests_enabled === 1,
    wiki_enabled: project.wiki_enabled === 1,
    jobs_enabled: project.jobs_enabled === 1,
    snippets_enabled: project.snippets_enabled === 1,
    shared_runners_enabled: project.shared_runners_enabled === 1,
    lfs_enabled: ctx.lfsEnabled && project.lfs_enabled === 1,
    creator_id: project.creator_id,
    forked_from_project: view.forkedFrom === null ? undefined : presentForkSource(view.forkedFrom, ctx),
    import_status: project.import_status,
    import_error: adminFields ? project.import_error : undefined,
    open_issues_count: issuesEnabled ? project.open_issues_count : undefined,
    runners_token: adminFields ? project.runners_token : undefined,
    public_jobs: project.public_jobs === 1,
    ci_config_path: project.ci_config_path,
    shared_with_groups: view.sharedWithGroups,
    only_allow_merge_if_pipeline_succeeds: project.only_allow_merge_if_pipeline_succeeds === 1,
    request_access_enabled: project.request_access_enabled === 1,
    only_allow_merge_if_all_discussions_are_resolved: project.only_allow_merge_if_all_discussions_are_resolved === 1,
    printing_merge_request_link_enabled: project.printing_merge_request_link_enabled === 1,
    merge_method: project.merge_method,
    statistics: statistics === null ? undefined : {
      commit_count: statistics.commit_count,
      storage_size: statistics.storage_size,
      repository_size: statistics.repository_size,
      lfs_objects_size: statistics.lfs_objects_size,
      job_artifacts_size: statistics.job_artifacts_size,
    },
    permissions: withPermissions
      ? { project_access: accessEntry(view.access?.projectAccess), group_access: accessEntry(view.access?.groupAccess) }
      : undefined,
  }
}

function presentProjectOwner(owner: UserRow, ctx: PresentContext) {
  const basic = presentUserBasic(owner, ctx)
  return {
    id: basic.id, name: basic.name, username: basic.username, state: basic.state,
    avatar_url: basic.avatar_url, web_url: basic.web_url, created_at: isoTime(owner.created_at),
  }
}

export function presentProject(view: ProjectView, ctx: PresentContext, options: ProjectPresentOptions = {}): ProjectEntity {
  return presentFull(view, ctx, options, false)
}

export function presentProjectWithAccess(view: ProjectView, ctx: PresentContext, options: ProjectPresentOptions = {}): ProjectWithAccessEntity {
  return presentFull(view, ctx, options, true) as ProjectWithAccessEntity
}

export function presentProjectGroupLink(link: ProjectGroupLinkRow): ProjectGroupLinkEntity {
  return {
    id: link.id,
    project_id: link.project_id,
    group_id: link.group_id,
    group_access: link.group_access,
    expires_at: link.expires_at,
  }
}
