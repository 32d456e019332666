// Groups (spec: Groups): list and subgroups, details, create, update, delete, and the admin's
// transfer of a project into a group. Group projects, members and custom attributes live in
// projects.ts, members.ts and custom-attributes.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { NamespaceRow } from '../../db/schema.js'
import { Group, GroupDetail, presentGroup, presentGroupDetail } from '../../entities/group.js'
import { MessageBody, Nullable } from '../../entities/common.js'
import { ProjectWithAccess, presentProjectWithAccess } from '../../entities/project.js'
import { findGroups, loadGroupDetailView, loadGroupView, loadGroupViews, type GroupFilters, type GroupOrder } from '../../finders/groups-finder.js'
import { loadProjectView } from '../../finders/project-views.js'
import { GROUP_ACCESS_LEVELS, VISIBILITIES } from '../../policies/access-levels.js'
import { canCreateGroup, canOnGroup } from '../../policies/group-policy.js'
import { createGroup } from '../../services/groups/create-group.js'
import { updateGroup } from '../../services/groups/update-group.js'
import { deleteGroup } from '../../services/groups/delete-group.js'
import { transferProjectToGroup } from '../../services/groups/transfer-project.js'
import { authorize, loadGroup, loadProject, requireActor, requireAdmin } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { paginate } from '../../common/pages.js'
import { BooleanParam, CustomAttributesFilter, IdParams, OneOf, Pagination, SearchParam, SortParam } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { presentCtx } from '../present.js'

const GroupListQuery = Type.Object({
  ...Pagination.properties,
  skip_groups: Type.Optional(Type.Array(Type.Integer())),
  all_available: Type.Optional(BooleanParam()),
  search: Type.Optional(SearchParam()),
  order_by: OneOf<GroupOrder>(['name', 'path', 'id'], { default: 'name' }),
  sort: SortParam('asc'),
  statistics: BooleanParam({ default: false }),
  with_custom_attributes: BooleanParam({ default: false }),
  owned: BooleanParam({ default: false }),
  min_access_level: Type.Optional(Type.Unsafe<number>({ type: 'integer', enum: [...GROUP_ACCESS_LEVELS] })),
  custom_attributes: CustomAttributesFilter,
})
type GroupListQueryType = Static<typeof GroupListQuery>

const GroupDetailQuery = Type.Object({
  with_custom_attributes: BooleanParam({ default: false }),
  with_projects: BooleanParam({ default: true }),
})

const Visibility = OneOf(VISIBILITIES)

const GroupSettings = {
  description: Type.Optional(Type.String()),
  visibility: Type.Optional(Visibility),
  lfs_enabled: Type.Optional(BooleanParam()),
  request_access_enabled: Type.Optional(BooleanParam()),
}

const CreateGroupBody = Type.Object({
  name: Type.String(),
  path: Type.String(),
  ...GroupSettings,
  parent_id: Type.Optional(Nullable(Type.Integer())),
})

const UpdateGroupBody = Type.Object({
  name: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  ...GroupSettings,
})

const TransferParams = Type.Object({ id: Type.String({ minLength: 1 }), project_id: Type.String({ minLength: 1 }) })

function groupFilters(query: GroupListQueryType, parentId?: number): GroupFilters {
  return {
    allAvailable: query.all_available,
    owned: query.owned,
    minAccessLevel: query.min_access_level,
    skipGroups: query.skip_groups,
    search: query.search,
    orderBy: query.order_by,
    sort: query.sort,
    customAttributes: query.custom_attributes,
    parentId,
  }
}

/** One page of groups under the list rules, with its pagination headers (GET /groups and subgroups). */
async function listGroups(req: FastifyRequest, reply: FastifyReply, query: GroupListQueryType, parent: NamespaceRow | null) {
  const { db } = req.ingot
  const page = await paginate(db, findGroups(db, req.actor, groupFilters(query, parent?.id)), query)
  setPaginationHeaders(req, reply, page)
  const views = await loadGroupViews(db, req.actor, page.items, {
    statistics: query.statistics,
    customAttributes: query.with_custom_attributes,
  })
  const ctx = presentCtx(req)
  return views.map((view) => presentGroup(view, ctx))
}

const groups: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/groups', {
    config: { auth: 'optional' },
    schema: { querystring: GroupListQuery, response: { 200: Type.Array(Group) } },
  }, async (req, reply) => listGroups(req, reply, req.query, null))

  app.get('/groups/:id/subgroups', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: GroupListQuery, response: { 200: Type.Array(Group) } },
  }, async (req, reply) => {
    const { group } = await loadGroup(req, req.params.id)
    return listGroups(req, reply, req.query, group)
  })

  app.get('/groups/:id', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: GroupDetailQuery, response: { 200: GroupDetail } },
  }, async (req) => {
    const { group } = await loadGroup(req, req.params.id)
    const view = await loadGroupDetailView(req.ingot.db, req.actor, group, {
      withProjects: req.query.with_projects,
      customAttributes: req.query.with_custom_attributes,
    })
    return presentGroupDetail(view, presentCtx(req))
  })

  app.post('/groups', {
    schema: { body: CreateGroupBody, response: { 201: Group } },
  }, async (req, reply) => {
    const { db } = req.ingot
    const actor = requireActor(req)
    const { parent_id: parentId, ...input } = req.body
    let parent: NamespaceRow | null = null
    if (parentId !== undefined && parentId !== null) {
      const loaded = await loadGroup(req, String(parentId))
      authorize(canCreateGroup(actor, loaded.accessLevel))
      parent = loaded.group
    } else {
      authorize(canCreateGroup(actor, null))
    }
    const group = await createGroup(req.ingot, actor, { ...input, parent })
    reply.code(201)
    return presentGroup(await loadGroupView(db, actor, group), presentCtx(req))
  })

  app.put('/groups/:id', {
    schema: { params: IdParams, body: UpdateGroupBody, response: { 200: GroupDetail } },
  }, async (req) => {
    const { db } = req.ingot
    const actor = requireActor(req)
    const { group, accessLevel } = await loadGroup(req, req.params.id)
    authorize(canOnGroup(actor, accessLevel, 'admin_group'))
    const updated = await updateGroup(db, actor, group, req.body)
    return presentGroupDetail(await loadGroupDetailView(db, actor, updated, { withProjects: true }), presentCtx(req))
  })

  app.delete('/groups/:id', {
    schema: { params: IdParams, response: { 202: MessageBody } },
  }, async (req, reply) => {
    const { group, accessLevel } = await loadGroup(req, req.params.id)
    authorize(canOnGroup(req.actor, accessLevel, 'admin_group'))
    checkUnmodifiedSince(req, group.updated_at)
    await deleteGroup(req.ingot, group)
    return reply.code(202).send({ message: '202 Accepted' })
  })

  app.post('/groups/:id/projects/:project_id', {
    schema: { params: TransferParams, response: { 201: ProjectWithAccess } },
  }, async (req, reply) => {
    const { db } = req.ingot
    requireAdmin(req)
    const { group } = await loadGroup(req, req.params.id)
    const { project } = await loadProject(req, req.params.project_id)
    const transferred = await transferProjectToGroup(db, project, group)
    reply.code(201)
    // An answer about one project to an admin: the administrator's fields are shown.
    return presentProjectWithAccess(await loadProjectView(db, req.actor, transferred), presentCtx(req), { userCanAdminProject: true })
  })
}

export default groups
