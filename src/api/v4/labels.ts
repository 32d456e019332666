// Labels of projects (/projects/:id/labels, as 11.5) and of groups (/groups/:id/labels, as later
// releases added them, so that group boards have labels to list): list (the owner's labels and its
// groups', by title), get one, create (409 for a title the owner can use already), update and
// delete (the owner's own labels, named by `name` or `label_id`, or in the path as later releases
// and python-gitlab do), and subscribe/unsubscribe (201, or 304 when nothing changes). Reading
// needs a caller who can see the project's issues or merge requests (or the group); writing needs
// Reporter. No events are recorded for labels.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { LabelRow } from '../../db/schema.js'
import { MAX_INTEGER } from '../../db/values.js'
import { Nullable } from '../../entities/common.js'
import { Label, presentLabel } from '../../entities/label.js'
import {
  findAvailableLabel, findOwnLabel, findOwnLabelByIdOrTitle, listAvailableLabels, loadLabelViews, type LabelOwner,
} from '../../finders/labels-finder.js'
import { REPORTER } from '../../policies/access-levels.js'
import { createLabel, deleteLabel, updateLabel, type LabelChanges } from '../../services/labels/labels.js'
import { setLabelSubscription } from '../../services/labels/subscriptions.js'
import { ApiError, apiError, missingOneOf, notFound, notModified } from '../../common/errors.js'
import { authorizeGroupLevel, loadGroup, loadProjectFor, requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, Pagination } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'

const LabelParams = Type.Composite([IdParams, Type.Object({ label_id: Type.String({ minLength: 1 }) })])
const CreateBody = Type.Object({
  name: Type.String(),
  color: Type.String({ description: "'#RRGGBB', '#RGB' or a CSS color name" }),
  description: Type.Optional(Nullable(Type.String())),
  priority: Type.Optional(Nullable(Type.Integer({ maximum: MAX_INTEGER }))),
})
const changeFields = {
  new_name: Type.Optional(Type.String()),
  color: Type.Optional(Type.String()),
  description: Type.Optional(Nullable(Type.String())),
  priority: Type.Optional(Nullable(Type.Integer({ maximum: MAX_INTEGER, description: 'null removes the priority' }))),
}
const LabelChoice = { label_id: Type.Optional(Type.Integer()), name: Type.Optional(Type.String()) }
const UpdateBody = Type.Object({ ...LabelChoice, ...changeFields })
const UpdateInPathBody = Type.Object(changeFields)
const DeleteQuery = Type.Object(LabelChoice)

type Access = 'read' | 'admin'

interface LabelScope {
  owner: LabelOwner
  /** Label subscriptions are per project; null on group routes. */
  subscriptionProjectId: number | null
}

/** How each kind of owner is loaded: 404 unless the caller sees it, 403 unless they may `access` its labels. */
const scopes: Record<'projects' | 'groups', (req: FastifyRequest, id: string, access: Access) => Promise<LabelScope>> = {
  async projects(req, id, access) {
    const { project } = await loadProjectFor(req, id, access === 'read' ? 'read_milestone' : 'admin_milestone')
    return { owner: { type: 'project', id: project.id }, subscriptionProjectId: project.id }
  },
  async groups(req, id, access) {
    const loaded = await loadGroup(req, id)
    authorizeGroupLevel(req, loaded, access === 'read' ? 0 : REPORTER)
    return { owner: { type: 'group', id: loaded.group.id }, subscriptionProjectId: null }
  },
}

/** Grape's exactly_one_of for `label_id` and `name`. */
function labelChoice(query: { label_id?: number; name?: string }): { id: number } | { title: string } {
  if (query.label_id !== undefined && query.name !== undefined) throw new ApiError(400, { error: 'label_id, name are mutually exclusive' })
  if (query.label_id !== undefined) return { id: query.label_id }
  if (query.name !== undefined) return { title: query.name }
  throw new ApiError(400, { error: 'label_id, name are missing, exactly one parameter must be provided' })
}

/** The changes of a PUT: at least one of them (Grape's at_least_one_of). */
function labelChanges(body: { new_name?: string; color?: string; description?: string | null; priority?: number | null }): LabelChanges {
  const { new_name: title, color, description, priority } = body
  if (title === undefined && color === undefined && description === undefined && priority === undefined) {
    throw missingOneOf('new_name', 'color', 'description', 'priority')
  }
  return {
    ...(title === undefined ? {} : { title }),
    ...(color === undefined ? {} : { color }),
    ...(description === undefined ? {} : { description }),
    ...(priority === undefined ? {} : { priority }),
  }
}

const labels: FastifyPluginAsyncTypebox = async (app) => {
  for (const [resource, loadScope] of Object.entries(scopes)) {
    const base = `/${resource}/:id/labels`

    async function present(req: FastifyRequest, scope: LabelScope, label: LabelRow) {
      const [view] = await loadLabelViews(req.ingot.db, req.actor, scope.subscriptionProjectId, [label])
      if (view === undefined) throw notFound('Label')
      return presentLabel(view)
    }

    async function ownLabel(req: FastifyRequest, scope: LabelScope, by: { id: number } | { title: string } | string, message: string) {
      const { db } = req.ingot
      const label = typeof by === 'string' ? await findOwnLabelByIdOrTitle(db, scope.owner, by) : await findOwnLabel(db, scope.owner, by)
      if (label === null) throw apiError(404, message)
      return label
    }

    app.get(base, {
      schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(Label) } },
    }, async (req, reply) => {
      const { db } = req.ingot
      const scope = await loadScope(req, req.params.id, 'read')
      const page = await listAvailableLabels(db, scope.owner, req.query)
      setPaginationHeaders(req, reply, page)
      return (await loadLabelViews(db, req.actor, scope.subscriptionProjectId, page.items)).map(presentLabel)
    })

    app.get(`${base}/:label_id`, {
      schema: { params: LabelParams, response: { 200: Label } },
    }, async (req) => {
      const scope = await loadScope(req, req.params.id, 'read')
      const label = await findAvailableLabel(req.ingot.db, scope.owner, req.params.label_id)
      if (label === null) throw notFound('Label')
      return present(req, scope, label)
    })

    app.post(base, {
      schema: { params: IdParams, body: CreateBody, response: { 201: Label } },
    }, async (req, reply) => {
      const scope = await loadScope(req, req.params.id, 'admin')
      const { name, color, description, priority } = req.body
      const label = await createLabel(req.ingot.db, scope.owner, {
        title: name, color, ...(description === undefined ? {} : { description }), ...(priority === undefined ? {} : { priority }),
      })
      reply.code(201)
      return present(req, scope, label)
    })

    app.put(base, {
      schema: { params: IdParams, body: UpdateBody, response: { 200: Label } },
    }, async (req) => {
      const choice = labelChoice(req.body)
      const changes = labelChanges(req.body)
      const scope = await loadScope(req, req.params.id, 'admin')
      const label = await ownLabel(req, scope, choice, 'Label not found')
      return present(req, scope, await updateLabel(req.ingot.db, label, changes))
    })

    app.put(`${base}/:label_id`, {
      schema: { params: LabelParams, body: UpdateInPathBody, response: { 200: Label } },
    }, async (req) => {
      const changes = labelChanges(req.body)
      const scope = await loadScope(req, req.params.id, 'admin')
      const label = await ownLabel(req, scope, req.params.label_id, 'Label not found')
      return present(req, scope, await updateLabel(req.ingot.db, label, changes))
    })

    app.delete(base, {
      schema: { params: IdParams, querystring: DeleteQuery },
    }, async (req, reply) => {
      const choice = labelChoice(req.query)
      const scope = await loadScope(req, req.params.id, 'admin')
      const label = await ownLabel(req, scope, choice, '404 Label Not Found')
      checkUnmodifiedSince(req, label.updated_at)
      await deleteLabel(req.ingot.db, label)
      return reply.code(204).send()
    })

    app.delete(`${base}/:label_id`, {
      schema: { params: LabelParams },
    }, async (req, reply) => {
      const scope = await loadScope(req, req.params.id, 'admin')
      const label = await ownLabel(req, scope, req.params.label_id, '404 Label Not Found')
      checkUnmodifiedSince(req, label.updated_at)
      await deleteLabel(req.ingot.db, label)
      return reply.code(204).send()
    })

    for (const action of ['subscribe', 'unsubscribe'] as const) {
      app.post(`${base}/:label_id/${action}`, {
        schema: { params: LabelParams, response: { 201: Label } },
      }, async (req, reply) => {
        const scope = await loadScope(req, req.params.id, 'read')
        const label = await findAvailableLabel(req.ingot.db, scope.owner, req.params.label_id)
        if (label === null) throw notFound('Label')
        const changed = await setLabelSubscription(req.ingot.db, {
          userId: requireActor(req).user.id, labelId: label.id, projectId: scope.subscriptionProjectId,
        }, action === 'subscribe')
        if (!changed) throw notModified()
        reply.code(201)
        return present(req, scope, label)
      })
    }
  }
}

export default labels
