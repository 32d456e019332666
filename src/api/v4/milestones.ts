// Milestones of projects (/projects/:id/milestones) and groups (/groups/:id/milestones): list
// (`iids[]`, `state`, `title`, `search`; newest first), get, create, update (`state_event` close or
// activate) and delete. Reading needs a caller who can see the project's issues or merge requests
// (or who sees the group); changing needs Reporter, deleting Developer, of the project or group.
// The routes listing a milestone's issues and merge requests live with issues and merge requests.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { MilestoneRow } from '../../db/schema.js'
import { Nullable } from '../../entities/common.js'
import { Milestone, presentMilestone } from '../../entities/milestone.js'
import { listMilestones, type MilestoneOwner } from '../../finders/milestones-finder.js'
import { DEVELOPER, REPORTER } from '../../policies/access-levels.js'
import { createMilestone, deleteMilestone, updateMilestone, type MilestoneChanges } from '../../services/milestones/milestones.js'
import { missingOneOf } from '../../common/errors.js'
import { authorizeGroupLevel, loadGroup, loadGroupMilestone, loadProjectFor, loadProjectMilestone, requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { DateParam, IdParams, OneOf, Pagination, SearchParam } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { presentCtx } from '../present.js'

const MilestoneParams = Type.Composite([IdParams, Type.Object({ milestone_id: Type.Integer() })])
const ListQuery = Type.Composite([Pagination, Type.Object({
  iids: Type.Optional(Type.Array(Type.Integer())),
  state: OneOf(['active', 'closed', 'all'] as const, { default: 'all' }),
  title: Type.Optional(Type.String()),
  search: Type.Optional(SearchParam({ description: 'Words in the title or in the description' })),
})])
/** A `YYYY-MM-DD` date; null or '' clears it. */
const OptionalDate = Type.Optional(Type.Union([DateParam(), Type.Null(), Type.Literal('')]))
const CreateBody = Type.Object({
  title: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  due_date: OptionalDate,
  start_date: OptionalDate,
})
const UpdateBody = Type.Object({
  title: Type.Optional(Type.String()),
  description: Type.Optional(Nullable(Type.String())),
  due_date: OptionalDate,
  start_date: OptionalDate,
  state_event: Type.Optional(OneOf(['close', 'activate'] as const)),
})

type Access = 'read' | 'admin' | 'destroy'

interface MilestoneScope {
  owner: MilestoneOwner
  /** The project's path_with_namespace or the group's full_path, for web_url. */
  ownerFullPath: string
}

interface ScopedMilestone extends MilestoneScope {
  milestone: MilestoneRow
}

interface ScopeLoader {
  owner(req: FastifyRequest, id: string, access: Access): Promise<MilestoneScope>
  milestone(req: FastifyRequest, id: string, milestoneId: number, access: Access): Promise<ScopedMilestone>
}

const PROJECT_ABILITIES = { read: 'read_milestone', admin: 'admin_milestone', destroy: 'destroy_milestone' } as const
const GROUP_LEVELS = { read: 0, admin: REPORTER, destroy: DEVELOPER } as const

const scopes: Record<'projects' | 'groups', ScopeLoader> = {
  projects: {
    async owner(req, id, access) {
      const { project, namespace } = await loadProjectFor(req, id, PROJECT_ABILITIES[access])
      return { owner: { type: 'project', id: project.id }, ownerFullPath: `${namespace.full_path}/${project.path}` }
    },
    async milestone(req, id, milestoneId, access) {
      const { project, namespace, milestone } = await loadProjectMilestone(req, id, milestoneId, PROJECT_ABILITIES[access])
      return { owner: { type: 'project', id: project.id }, ownerFullPath: `${namespace.full_path}/${project.path}`, milestone }
    },
  },
  groups: {
    async owner(req, id, access) {
      const loaded = await loadGroup(req, id)
      authorizeGroupLevel(req, loaded, GROUP_LEVELS[access])
      return { owner: { type: 'group', id: loaded.group.id }, ownerFullPath: loaded.group.full_path }
    },
    async milestone(req, id, milestoneId, access) {
      const { group, milestone } = await loadGroupMilestone(req, id, milestoneId, GROUP_LEVELS[access])
      return { owner: { type: 'group', id: group.id }, ownerFullPath: group.full_path, milestone }
    },
  },
}

/** The `YYYY-MM-DD` of a date parameter, null to clear it, undefined when not sent. */
function dateParam(value: string | null | undefined): string | null | undefined {
  return value === '' ? null : value
}

const milestones: FastifyPluginAsyncTypebox = async (app) => {
  for (const [resource, load] of Object.entries(scopes)) {
    const base = `/${resource}/:id/milestones`

    app.get(base, {
      schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(Milestone) } },
    }, async (req, reply) => {
      const scope = await load.owner(req, req.params.id, 'read')
      const { iids, state, title, search } = req.query
      const page = await listMilestones(req.ingot.db, scope.owner, {
        ...(iids === undefined ? {} : { iids }),
        ...(state === 'active' || state === 'closed' ? { state } : {}),
        ...(title === undefined ? {} : { title }),
        ...(search === undefined ? {} : { search }),
      }, req.query)
      setPaginationHeaders(req, reply, page)
      const ctx = presentCtx(req)
      return page.items.map((milestone) => presentMilestone({ milestone, ownerFullPath: scope.ownerFullPath }, ctx))
    })

    app.get(`${base}/:milestone_id`, {
      schema: { params: MilestoneParams, response: { 200: Milestone } },
    }, async (req) => {
      const { milestone, ownerFullPath } = await load.milestone(req, req.params.id, req.params.milestone_id, 'read')
      return presentMilestone({ milestone, ownerFullPath }, presentCtx(req))
    })

    app.post(base, {
      schema: { params: IdParams, body: CreateBody, response: { 201: Milestone } },
    }, async (req, reply) => {
      const scope = await load.owner(req, req.params.id, 'admin')
      const { title, description } = req.body
      const dueDate = dateParam(req.body.due_date)
      const startDate = dateParam(req.body.start_date)
      const milestone = await createMilestone(req.ingot.db, scope.owner, requireActor(req), {
        title,
        ...(description === undefined ? {} : { description }),
        ...(dueDate === undefined ? {} : { dueDate }),
        ...(startDate === undefined ? {} : { startDate }),
      })
      reply.code(201)
      return presentMilestone({ milestone, ownerFullPath: scope.ownerFullPath }, presentCtx(req))
    })

    app.put(`${base}/:milestone_id`, {
      schema: { params: MilestoneParams, body: UpdateBody, response: { 200: Milestone } },
    }, async (req) => {
      const { title, description, state_event: stateEvent } = req.body
      const dueDate = dateParam(req.body.due_date)
      const startDate = dateParam(req.body.start_date)
      if ([title, description, dueDate, startDate, stateEvent].every((value) => value === undefined)) {
        throw missingOneOf('title', 'description', 'due_date', 'start_date', 'state_event')
      }
      const scoped = await load.milestone(req, req.params.id, req.params.milestone_id, 'admin')
      const changes: MilestoneChanges = {
        ...(title === undefined ? {} : { title }),
        ...(description === undefined ? {} : { description }),
        ...(dueDate === undefined ? {} : { dueDate }),
        ...(startDate === undefined ? {} : { startDate }),
        ...(stateEvent === undefined ? {} : { stateEvent }),
      }
      const milestone = await updateMilestone(req.ingot.db, scoped.owner, requireActor(req), scoped.milestone, changes)
      return presentMilestone({ milestone, ownerFullPath: scoped.ownerFullPath }, presentCtx(req))
    })

    app.delete(`${base}/:milestone_id`, {
      schema: { params: MilestoneParams },
    }, async (req, reply) => {
      const { milestone } = await load.milestone(req, req.params.id, req.params.milestone_id, 'destroy')
      checkUnmodifiedSince(req, milestone.updated_at)
      await deleteMilestone(req.ingot.db, requireActor(req), milestone)
      return reply.code(204).send()
    })
  }
}

export default milestones
