// Projects (spec: Project; endpoints: Projects, GET /users/:user_id/projects,
// GET /groups/:id/projects), as the original v4 API of release 11.5 answers them: the lists, one
// project, create (also for another user, optionally with a README), update, delete, star, archive,
// sharing with groups, forks and the fork relation.
// Forms: anonymous reads of /projects get the simple form; signed-in reads the full form with
// `permissions`; writes, star and archive the full form; group project lists the full form.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Actor } from '../../auth/actor.js'
import { isAdmin } from '../../auth/actor.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import {
  Project, ProjectGroupLink, ProjectSimple, ProjectWithAccess, presentProject, presentProjectGroupLink,
  presentProjectSimple, presentProjectWithAccess, type ProjectView,
} from '../../entities/project.js'
import { MessageBody } from '../../entities/common.js'
import { projectsById, withRows } from '../../finders/rows.js'
import { loadProjectView, loadProjectViews, type ProjectViewOptions } from '../../finders/project-views.js'
import type { ProjectAccess } from '../../finders/access.js'
import { PROJECT_ORDERS, findProjectShare, findProjects, maintainedProjectTotal, type ProjectFilters, type ProjectScope } from '../../finders/projects-finder.js'
import { canOnProject } from '../../policies/project-policy.js'
import { GROUP_ACCESS_LEVELS, PROJECT_ACCESS_LEVELS, VISIBILITIES } from '../../policies/access-levels.js'
import { MERGE_METHODS, createProjectIn, type ProjectSettingsInput } from '../../services/projects/create-project.js'
import { forkProject, linkFork, unlinkFork } from '../../services/projects/fork-project.js'
import { updateProject } from '../../services/projects/update-project.js'
import { deleteProject } from '../../services/projects/delete-project.js'
import { setProjectArchived } from '../../services/projects/archive-project.js'
import { starProject, unstarProject } from '../../services/projects/star-project.js'
import { shareProject, unshareProject } from '../../services/projects/share-project.js'
import { ApiError, missingOneOf, notFound, notModified, type FieldErrors } from '../../common/errors.js'
import { jsonArrayOf, sendCachedList, sendJsonItem } from '../list-cache.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { authorize, loadGroup, loadProject, loadUser, requireActor, requireAdmin, type LoadedProject } from '../load.js'
import { paginationHeaders } from '../pagination.js'
import { paginate, type Page } from '../../common/pages.js'
import { BooleanParam, CustomAttributesFilter, DateParam, IdParams, OneOf, Pagination, SearchParam, SortParam } from '../params.js'
import { presentCtx } from '../present.js'
import { JSON_TYPE } from '../json-type.js'

const IntegerOneOf = (values: readonly number[]) => Type.Unsafe<number>({ type: 'integer', enum: [...values] })

const SortAndOrder = {
  order_by: OneOf(PROJECT_ORDERS, { default: 'created_at' }),
  sort: SortParam('desc'),
}

/** The filters every project list takes. */
const CommonListQuery = {
  ...Pagination.properties,
  ...SortAndOrder,
  visibility: Type.Optional(OneOf(VISIBILITIES)),
  search: Type.Optional(SearchParam()),
  simple: BooleanParam({ default: false }),
  owned: BooleanParam({ default: false }),
  starred: BooleanParam({ default: false }),
  with_issues_enabled: BooleanParam({ default: false }),
  with_merge_requests_enabled: BooleanParam({ default: false }),
  with_custom_attributes: BooleanParam({ default: false }),
}

const GroupProjectsQuery = Type.Object({
  ...CommonListQuery,
  // The original lists only unarchived projects of a group unless asked otherwise.
  archived: BooleanParam({ default: false }),
})

const UserProjectsQuery = Type.Object({
  ...CommonListQuery,
  archived: Type.Optional(BooleanParam()),
  membership: BooleanParam({ default: false }),
  statistics: BooleanParam({ default: false }),
  min_access_level: Type.Optional(IntegerOneOf(GROUP_ACCESS_LEVELS)),
  custom_attributes: CustomAttributesFilter,
})

const ProjectsQuery = Type.Object({
  ...UserProjectsQuery.properties,
  wiki_checksum_failed: BooleanParam({ default: false }),
  repository_checksum_failed: BooleanParam({ default: false }),
})

const SingleProjectQuery = Type.Object({
  statistics: BooleanParam({ default: false }),
  with_custom_attributes: BooleanParam({ default: false }),
})

/** The settings of POST /projects, POST /projects/user/:user_id and PUT /projects/:id. */
const ProjectSettings = {
  description: Type.Optional(Type.String()),
  ci_config_path: Type.Optional(Type.String()),
  issues_enabled: Type.Optional(BooleanParam()),
  merge_requests_enabled: Type.Optional(BooleanParam()),
  wiki_enabled: Type.Optional(BooleanParam()),
  jobs_enabled: Type.Optional(BooleanParam()),
  snippets_enabled: Type.Optional(BooleanParam()),
  shared_runners_enabled: Type.Optional(BooleanParam()),
  resolve_outdated_diff_discussions: Type.Optional(BooleanParam()),
  container_registry_enabled: Type.Optional(BooleanParam()),
  lfs_enabled: Type.Optional(BooleanParam()),
  visibility: Type.Optional(OneOf(VISIBILITIES)),
  // The original's parameter is public_builds; the entity calls it public_jobs, so both are taken.
  public_builds: Type.Optional(BooleanParam()),
  public_jobs: Type.Optional(BooleanParam()),
  request_access_enabled: Type.Optional(BooleanParam()),
  only_allow_merge_if_pipeline_succeeds: Type.Optional(BooleanParam()),
  only_allow_merge_if_all_discussions_are_resolved: Type.Optional(BooleanParam()),
  printing_merge_request_link_enabled: Type.Optional(BooleanParam()),
  merge_method: Type.Optional(OneOf(MERGE_METHODS)),
  tag_list: Type.Optional(Type.Array(Type.String())),
  default_branch: Type.Optional(Type.String()),
}

const CreateProjectBody = Type.Object({
  name: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  /** A namespace id or full path; the caller's personal namespace when omitted. */
  namespace_id: Type.Optional(Type.String({ minLength: 1 })),
  /** A first commit with README.md on the default branch. */
  initialize_with_readme: BooleanParam({ default: false }),
  ...ProjectSettings,
})

const CreateUserProjectBody = Type.Object({
  ...CreateProjectBody.properties,
  name: Type.String(),
})

const UpdateProjectBody = Type.Object({
  name: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  ...ProjectSettings,
})

/** PUT /projects/:id needs at least one of these (the original's list, without avatar uploads). */
const UPDATE_PARAMS = [
  'jobs_enabled', 'resolve_outdated_diff_discussions', 'ci_config_path', 'container_registry_enabled', 'default_branch',
  'description', 'issues_enabled', 'lfs_enabled', 'merge_requests_enabled', 'merge_method', 'name',
  'only_allow_merge_if_all_discussions_are_resolved', 'only_allow_merge_if_pipeline_succeeds', 'path',
  'printing_merge_request_link_enabled', 'public_builds', 'request_access_enabled', 'shared_runners_enabled',
  'snippets_enabled', 'tag_list', 'visibility', 'wiki_enabled', 'public_jobs',
] as const

const ShareBody = Type.Object({
  group_id: Type.Integer(),
  group_access: IntegerOneOf(PROJECT_ACCESS_LEVELS),
  expires_at: Type.Optional(DateParam()),
})

const ProjectForms = Type.Union([ProjectWithAccess, Project, ProjectSimple])

type Form = 'simple' | 'full' | 'withAccess'
type CreateBody = Static<typeof CreateProjectBody>

/**
 * Serializes with the schema of the form actually presented; the route's schema lists them all.
 * (With a serializer of its own, a reply gets no JSON content type unless given one.)
 */
function sendAs(reply: FastifyReply, schema: TSchema, body: unknown) {
  return reply.type(JSON_TYPE).serializer(reply.compileSerializationSchema(schema)).send(body)
}

function presentForm(view: ProjectView, req: FastifyRequest, form: Form, userCanAdminProject = false) {
  const ctx = presentCtx(req)
  if (form === 'simple') return presentProjectSimple(view, ctx)
  if (form === 'full') return presentProject(view, ctx, { userCanAdminProject })
  return presentProjectWithAccess(view, ctx, { userCanAdminProject })
}

/** What a project list's pages are read from (the caller's grants and stars included). */
const PROJECT_LIST_TABLES = ['projects', 'namespaces', 'members', 'project_group_links', 'stars', 'custom_attributes', 'users']
/** What a project's JSON is made of, besides the caller's access that its key carries (settings: ssh_url_to_repo follows enabled_git_access_protocol). */
const PROJECT_JSON_TABLES = ['projects', 'namespaces', 'users', 'project_group_links', 'application_settings']

/**
 * What a project's cached JSON depends on beyond PROJECT_JSON_TABLES: form, caller's access, admin
 * fields, and for a fork whether the caller may see its source (`forked_from_project`).
 */
function projectJsonKey(form: Form, projectId: number, access: ProjectAccess | null, userCanAdminProject: boolean, showsForkSource = false): string {
  return `${form}:${projectId}:${access?.projectAccess ?? '-'}:${access?.groupAccess ?? '-'}:${userCanAdminProject ? 'admin' : ''}${showsForkSource ? ':fork' : ''}`
}

/** One page of a project list: the whole answer cached per caller and URL, each project's JSON too. */
async function sendList(
  req: FastifyRequest, reply: FastifyReply, list: string, loadPage: () => Promise<Page<{ id: number }>>, form: Form, options: ProjectViewOptions,
) {
  const { db } = req.ingot
  const itemSchema = form === 'simple' ? ProjectSimple : form === 'full' ? Project : ProjectWithAccess
  // Statistics and custom attributes come from tables the JSON cache does not watch.
  const cacheable = options.statistics !== true && options.customAttributes !== true
  return sendCachedList(req, reply, { name: list, tables: [...PROJECT_LIST_TABLES, ...PROJECT_JSON_TABLES, 'project_statistics'] }, async () => {
    const page = await withRows(await loadPage(), (some) => projectsById(db, some))
    const body = await jsonArrayOf(req, reply, itemSchema, {
      name: 'projects',
      tables: PROJECT_JSON_TABLES,
      keyOf: (view) => (cacheable ? projectJsonKey(form, view.project.id, view.access, false, view.forkedFrom !== null) : null),
    }, () => loadProjectViews(db, req.actor, page.items, options), (view) => presentForm(view, req, form))
    return { headers: paginationHeaders(req, page), body }
  })
}

/** A write's answer: the full form, with the fields for those who administer the project. */
async function sendProject(req: FastifyRequest, reply: FastifyReply, status: number, project: ProjectRow, namespace: NamespaceRow) {
  const { db } = req.ingot
  const view = await loadProjectView(db, req.actor, project)
  const userCanAdminProject = view.access !== null && canOnProject(req.actor, { project, namespace, access: view.access }, 'admin_project')
  return sendAs(reply.code(status), Project, presentForm(view, req, 'full', userCanAdminProject))
}

function listFilters(query: Partial<Static<typeof ProjectsQuery>> & Pick<Static<typeof ProjectsQuery>, 'order_by' | 'sort'>): ProjectFilters {
  return {
    archived: query.archived,
    visibility: query.visibility,
    search: query.search,
    owned: query.owned,
    membership: query.membership,
    starred: query.starred,
    minAccessLevel: query.min_access_level,
    withIssuesEnabled: query.with_issues_enabled,
    withMergeRequestsEnabled: query.with_merge_requests_enabled,
    customAttributes: query.custom_attributes,
    checksumFailed: query.wiki_checksum_failed === true || query.repository_checksum_failed === true,
    orderBy: query.order_by,
    sort: query.sort,
  }
}

async function listProjects(req: FastifyRequest, reply: FastifyReply, scope: ProjectScope, query: Static<typeof ProjectsQuery> | Static<typeof UserProjectsQuery>) {
  const { db } = req.ingot
  const filters = listFilters(query)
  const loadPage = async () => {
    const ids = (await findProjects(db, req.actor, scope, filters)).clearSelect().select('projects.id')
    return paginate(db, ids, query, { total: maintainedProjectTotal(db, req.actor, scope, filters) })
  }
  const form: Form = req.actor === null || query.simple ? 'simple' : 'withAccess'
  return sendList(req, reply, `projects:${scope.kind}`, loadPage, form, {
    statistics: query.statistics,
    customAttributes: query.with_custom_attributes && isAdmin(req.actor),
  })
}

function settingsOf(body: Partial<Static<typeof UpdateProjectBody>> & { namespace_id?: string; initialize_with_readme?: boolean }): ProjectSettingsInput {
  const {
    name: _name, path: _path, namespace_id: _namespace, initialize_with_readme: _readme, public_builds: publicBuilds, public_jobs: publicJobs,
    ...settings
  } = body
  const publicJobsValue = publicJobs ?? publicBuilds
  return { ...settings, ...(publicJobsValue === undefined ? {} : { public_jobs: publicJobsValue }) }
}

function create(req: FastifyRequest, creator: Actor, body: CreateBody): Promise<{ project: ProjectRow; namespace: NamespaceRow }> {
  return createProjectIn(req.ingot, creator, {
    ...settingsOf(body),
    ...(body.name === undefined ? {} : { name: body.name }),
    ...(body.path === undefined ? {} : { path: body.path }),
    namespaceIdOrPath: body.namespace_id,
    withReadme: body.initialize_with_readme === true,
  })
}

/** The original refuses a reached project limit on POST /projects with 403 and the messages alone. */
function limitReachedAsForbidden(err: unknown): never {
  if (err instanceof ApiError && err.statusCode === 400) {
    const limit = (err.body.message as FieldErrors | undefined)?.limit_reached
    if (Array.isArray(limit)) throw new ApiError(403, { message: limit })
  }
  throw err
}

const IdWithGroupParams = Type.Object({ id: Type.String({ minLength: 1 }), group_id: Type.Integer() })

const ForkBody = Type.Object({
  /** The target namespace's id or full path; the caller's personal namespace when omitted. */
  namespace: Type.Optional(Type.String()),
})

const projects: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects', {
    config: { auth: 'optional' },
    schema: { querystring: ProjectsQuery, response: { 200: Type.Array(ProjectForms) } },
  }, async (req, reply) => listProjects(req, reply, { kind: 'all' }, req.query))

  app.get('/users/:user_id/projects', {
    config: { auth: 'optional' },
    schema: { params: Type.Object({ user_id: Type.String({ minLength: 1 }) }), querystring: UserProjectsQuery, response: { 200: Type.Array(ProjectForms) } },
  }, async (req, reply) => {
    const user = await loadUser(req, req.params.user_id, { byUsername: true })
    return listProjects(req, reply, { kind: 'personal', userId: user.id }, req.query)
  })

  app.get('/groups/:id/projects', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: GroupProjectsQuery, response: { 200: Type.Array(ProjectForms) } },
  }, async (req, reply) => {
    const { db } = req.ingot
    const { group } = await loadGroup(req, req.params.id)
    const query = req.query
    const loadPage = async () => {
      const ids = (await findProjects(db, req.actor, { kind: 'group', groupId: group.id }, listFilters(query))).clearSelect().select('projects.id')
      return paginate(db, ids, query)
    }
    return sendList(req, reply, 'projects:group', loadPage, query.simple ? 'simple' : 'full', {
      customAttributes: query.with_custom_attributes && isAdmin(req.actor),
    })
  })

  app.get('/projects/:id', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: SingleProjectQuery, response: { 200: ProjectForms } },
  }, async (req, reply) => {
    const loaded = await loadProject(req, req.params.id)
    const options = { statistics: req.query.statistics, customAttributes: req.query.with_custom_attributes && isAdmin(req.actor) }
    const form: Form = req.actor === null ? 'simple' : 'withAccess'
    const admin = canOnProject(req.actor, loaded, 'admin_project')
    // Whether a fork's answer shows its source is known only once loaded: forks' full forms are not cached here.
    const forkSourceUnknown = form !== 'simple' && loaded.project.forked_from_project_id !== null
    const key = options.statistics || options.customAttributes || forkSourceUnknown ? null : projectJsonKey(form, loaded.project.id, loaded.access, admin)
    return sendJsonItem(req, reply, form === 'simple' ? ProjectSimple : ProjectWithAccess, { name: 'projects', tables: PROJECT_JSON_TABLES }, key,
      () => loadProjectView(req.ingot.db, req.actor, loaded.project, options, loaded),
      (view) => presentForm(view, req, form, admin))
  })

  app.get('/projects/:id/forks', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: UserProjectsQuery, response: { 200: Type.Array(ProjectForms) } },
  }, async (req, reply) => {
    const { project } = await loadProject(req, req.params.id)
    return listProjects(req, reply, { kind: 'forks', projectId: project.id }, req.query)
  })

  app.post('/projects/:id/fork', {
    schema: { params: IdParams, body: ForkBody, response: { 201: Project } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const source = await loadProject(req, req.params.id)
    const { project, namespace } = await forkProject(req.ingot, actor, source, { namespace: req.body.namespace })
    return sendProject(req, reply, 201, project, namespace)
  })

  // The fork relation alone, set by administrators (for projects imported separately) and removed
  // by owners; no repository changes.
  app.post('/projects/:id/fork/:forked_from_id', {
    schema: { params: Type.Object({ id: Type.String({ minLength: 1 }), forked_from_id: Type.String({ minLength: 1 }) }), response: { 201: Project } },
  }, async (req, reply) => {
    requireAdmin(req)
    const source = await loadProject(req, req.params.forked_from_id)
    const { project } = await loadProject(req, req.params.id)
    const { db } = req.ingot
    const linked = await linkFork(db, project, source.project)
    return sendAs(reply.code(201), Project, presentForm(await loadProjectView(db, req.actor, linked), req, 'full'))
  })

  app.delete('/projects/:id/fork', {
    schema: { params: IdParams },
  }, async (req, reply) => {
    // The original's remove_fork_project: the project's owners (and admins), as remove_project.
    const { project } = await authorizedProject(req, req.params.id, 'remove_project')
    checkUnmodifiedSince(req, project.updated_at)
    if (!await unlinkFork(req.ingot.db, project)) throw notModified()
    return reply.code(204).send()
  })

  app.post('/projects', {
    schema: { body: CreateProjectBody, response: { 201: Project } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    if (req.body.name === undefined && req.body.path === undefined) throw missingOneOf('name', 'path')
    const { project, namespace } = await create(req, actor, req.body).catch(limitReachedAsForbidden)
    return sendProject(req, reply, 201, project, namespace)
  })

  // The project is created by the user, not by the administrator asking: as in the original, the
  // user is its creator (creator_id), the author of its `created` event, and the one whose rights
  // and project limit decide the namespace and visibility.
  app.post('/projects/user/:user_id', {
    schema: { params: Type.Object({ user_id: Type.Integer() }), body: CreateUserProjectBody, response: { 201: Project } },
  }, async (req, reply) => {
    requireAdmin(req)
    const admin = requireActor(req)
    const user = await loadUser(req, req.params.user_id)
    const { project, namespace } = await create(req, { user, token: admin.token, sudoFrom: admin.user }, req.body)
    return sendProject(req, reply, 201, project, namespace)
  })

  app.put('/projects/:id', {
    schema: { params: IdParams, body: UpdateProjectBody, response: { 200: Project } },
  }, async (req, reply) => {
    const body = req.body
    if (!UPDATE_PARAMS.some((name) => body[name] !== undefined)) throw missingOneOf(...UPDATE_PARAMS)
    const loaded = await loadProject(req, req.params.id)
    authorize(canOnProject(req.actor, loaded, 'admin_project'))
    if (body.name !== undefined) authorize(canOnProject(req.actor, loaded, 'rename_project'))
    if (body.visibility !== undefined) authorize(canOnProject(req.actor, loaded, 'change_visibility_level'))
    const project = await updateProject(req.ingot, requireActor(req), loaded, {
      ...settingsOf(body),
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.path === undefined ? {} : { path: body.path }),
    })
    return sendProject(req, reply, 200, project, loaded.namespace)
  })

  app.delete('/projects/:id', {
    schema: { params: IdParams, response: { 202: MessageBody } },
  }, async (req, reply) => {
    const { project } = await authorizedProject(req, req.params.id, 'remove_project')
    checkUnmodifiedSince(req, project.updated_at)
    await deleteProject(req.ingot, project)
    return reply.code(202).send({ message: '202 Accepted' })
  })

  for (const [action, starred] of [['star', true], ['unstar', false]] as const) {
    app.post(`/projects/:id/${action}`, {
      schema: { params: IdParams, response: { 201: Project } },
    }, async (req, reply) => {
      const { project } = await loadProject(req, req.params.id)
      const { db } = req.ingot
      const userId = requireActor(req).user.id
      const current = starred ? await starProject(db, userId, project.id) : await unstarProject(db, userId, project.id)
      if (current === null) throw notModified()
      return sendAs(reply.code(201), Project, presentForm(await loadProjectView(db, req.actor, current), req, 'full'))
    })
  }

  for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
    app.post(`/projects/:id/${action}`, {
      schema: { params: IdParams, response: { 201: Project } },
    }, async (req, reply) => {
      const { project } = await authorizedProject(req, req.params.id, 'archive_project')
      const { db } = req.ingot
      const updated = await setProjectArchived(db, project, archived)
      return sendAs(reply.code(201), Project, presentForm(await loadProjectView(db, req.actor, updated), req, 'full'))
    })
  }

  app.post('/projects/:id/share', {
    schema: { params: IdParams, body: ShareBody, response: { 201: ProjectGroupLink } },
  }, async (req, reply) => {
    const { project } = await authorizedProject(req, req.params.id, 'admin_project')
    const { group } = await loadGroup(req, String(req.body.group_id))
    const link = await shareProject(req.ingot.db, project, { group, groupAccess: req.body.group_access, expiresAt: req.body.expires_at ?? null })
    return reply.code(201).send(presentProjectGroupLink(link))
  })

  app.delete('/projects/:id/share/:group_id', {
    schema: { params: IdWithGroupParams },
  }, async (req, reply) => {
    const { project } = await authorizedProject(req, req.params.id, 'admin_project')
    const { db } = req.ingot
    const link = await findProjectShare(db, project.id, req.params.group_id)
    if (link === undefined) throw notFound('Group Link')
    checkUnmodifiedSince(req, link.created_at)
    await unshareProject(db, link)
    return reply.code(204).send()
  })
}

/** loadProject, then 403 unless the caller may do `ability` on it. */
async function authorizedProject(
  req: FastifyRequest, idOrPath: string, ability: 'admin_project' | 'remove_project' | 'archive_project',
): Promise<LoadedProject> {
  const loaded = await loadProject(req, idOrPath)
  authorize(canOnProject(req.actor, loaded, ability))
  return loaded
}

export default projects
