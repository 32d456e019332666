// Pipeline triggers, as the original 11.5: the list, one, create, update, take ownership and delete
// (Maintainers; only the owner may update one, and only the owner sees its whole token), and
// triggering a pipeline with a trigger's token (or a running job's token) and variables, which
// needs no other credentials: the token is the key. A token of nothing answers 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { CiTriggerRow } from '../../db/schema.js'
import { Pipeline, presentPipeline } from '../../entities/pipeline.js'
import { projectFullPath } from '../../entities/project.js'
import { Trigger, presentTrigger } from '../../entities/trigger.js'
import { findProjectByIdOrPath } from '../../finders/project-lookup.js'
import { usersById } from '../../finders/rows.js'
import { isVariableKey } from '../../services/ci/variable-keys.js'
import {
  createTrigger, deleteTrigger, findTrigger, findTriggerPage, openTriggerToken, shortTriggerToken, triggerPipeline, updateTrigger,
} from '../../services/ci/triggers.js'
import { ApiError, apiError, forbidden, invalidParam, notFound, validationFailed } from '../../common/errors.js'
import { loadProjectFor, requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, Pagination } from '../params.js'
import { presentCtx } from '../present.js'

const TriggerParams = Type.Composite([IdParams, Type.Object({ trigger_id: Type.Integer() })])

/** Given in the query or the body (form or JSON), as Grape merges them. */
const TriggerPipelineParams = Type.Object({
  ref: Type.Optional(Type.String()),
  token: Type.Optional(Type.String()),
  variables: Type.Optional(Type.Unknown()),
})

const triggerNotFound = () => apiError(404, '404 Not found')

/** A trigger of the project, for a Maintainer (404 for an id of none). */
async function loadTrigger(req: FastifyRequest, id: string, triggerId: number) {
  const loaded = await loadProjectFor(req, id, 'admin_build')
  const trigger = await findTrigger(req.ingot.db, loaded.project.id, triggerId)
  if (trigger === null) throw triggerNotFound()
  return { loaded, trigger }
}

/** Whether the caller may use and change the trigger: its owner (a Maintainer, as loadTrigger checked). */
function ownsTrigger(req: FastifyRequest, trigger: CiTriggerRow): boolean {
  return trigger.owner_id === requireActor(req).user.id
}

async function presentTriggers(req: FastifyRequest, triggers: readonly CiTriggerRow[]) {
  const owners = await usersById(req.ingot.db, [...new Set(triggers.map((trigger) => trigger.owner_id))])
  const ctx = presentCtx(req)
  return triggers.map((trigger) => {
    const token = openTriggerToken(req.ingot, trigger)
    return presentTrigger({
      trigger, owner: owners.get(trigger.owner_id) ?? null, token: ownsTrigger(req, trigger) ? token : shortTriggerToken(token),
    }, ctx)
  })
}

async function presentOne(req: FastifyRequest, trigger: CiTriggerRow) {
  const [entity] = await presentTriggers(req, [trigger])
  return entity!
}

/** The variables as a map of strings, or the original's 400. */
function triggerVariables(value: unknown): Record<string, string> {
  if (value === undefined || value === null || value === '') return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParam('variables')
  const entries = Object.entries(value)
  if (!entries.every(([, item]) => typeof item === 'string')) throw apiError(400, 'variables needs to be a map of key-valued strings')
  // The original's pipeline variables refuse such a key when the pipeline is saved.
  if (!entries.every(([key]) => isVariableKey(key))) {
    throw validationFailed({ base: ['Failed to persist the pipeline: Validation failed: Variables is invalid'] })
  }
  return Object.fromEntries(entries) as Record<string, string>
}

function requiredParams(params: { ref?: string | undefined; token?: string | undefined }): { ref: string; token: string } {
  const missing = (['ref', 'token'] as const).filter((name) => params[name] === undefined)
  if (missing.length > 0) throw new ApiError(400, { error: missing.map((name) => `${name} is missing`).join(', ') })
  if (params.ref === '') throw new ApiError(400, { error: 'ref is empty' })
  return { ref: params.ref!, token: params.token! }
}

const triggers: FastifyPluginAsyncTypebox = async (app) => {
  async function runTrigger(req: FastifyRequest, idOrPath: string, params: Static<typeof TriggerPipelineParams>) {
    const { ref, token } = requiredParams(params)
    const variables = triggerVariables(params.variables)
    const found = await findProjectByIdOrPath(req.ingot.db, idOrPath)
    if (found === null) throw notFound()
    const result = await triggerPipeline(req.ingot, { ...found, token, ref, variables })
    if (result === null) throw notFound()
    if (!result.ok) throw validationFailed({ base: result.errors })
    const { pipeline } = result
    const user = pipeline.user_id === null ? null : (await usersById(req.ingot.db, [pipeline.user_id])).get(pipeline.user_id) ?? null
    return presentPipeline({ pipeline, user }, projectFullPath(found), presentCtx(req))
  }

  app.post('/projects/:id/trigger/pipeline', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: TriggerPipelineParams, body: Type.Optional(TriggerPipelineParams), response: { 201: Pipeline } },
  }, async (req, reply) => {
    const entity = await runTrigger(req, req.params.id, { ...req.query, ...req.body })
    reply.code(201)
    return entity
  })

  // The ref may hold slashes, as the original's `ref: /.+/`.
  app.post('/projects/:id/ref/*', {
    config: { auth: 'optional' },
    schema: {
      params: Type.Composite([IdParams, Type.Object({ '*': Type.String() })]),
      querystring: TriggerPipelineParams, body: Type.Optional(TriggerPipelineParams), response: { 201: Pipeline },
    },
  }, async (req, reply) => {
    const ref = /^(.+)\/trigger\/pipeline$/.exec(req.params['*'])?.[1]
    if (ref === undefined) throw notFound()
    const entity = await runTrigger(req, req.params.id, { ...req.query, ...req.body, ref })
    reply.code(201)
    return entity
  })

  app.get('/projects/:id/triggers', {
    schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(Trigger) } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'admin_build')
    const page = await findTriggerPage(req.ingot.db, loaded.project.id, req.query)
    setPaginationHeaders(req, reply, page)
    return presentTriggers(req, page.items)
  })

  app.get('/projects/:id/triggers/:trigger_id', {
    schema: { params: TriggerParams, response: { 200: Trigger } },
  }, async (req) => {
    const { trigger } = await loadTrigger(req, req.params.id, req.params.trigger_id)
    return presentOne(req, trigger)
  })

  app.post('/projects/:id/triggers', {
    schema: { params: IdParams, body: Type.Object({ description: Type.String() }), response: { 201: Trigger } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'admin_build')
    const trigger = await createTrigger(req.ingot, loaded.project.id, requireActor(req).user.id, req.body.description)
    reply.code(201)
    return presentOne(req, trigger)
  })

  app.put('/projects/:id/triggers/:trigger_id', {
    schema: { params: TriggerParams, body: Type.Object({ description: Type.Optional(Type.String()) }), response: { 200: Trigger } },
  }, async (req) => {
    const { trigger } = await loadTrigger(req, req.params.id, req.params.trigger_id)
    if (!ownsTrigger(req, trigger)) throw forbidden()
    const { description } = req.body
    return presentOne(req, await updateTrigger(req.ingot.db, trigger, description === undefined ? {} : { description }))
  })

  app.post('/projects/:id/triggers/:trigger_id/take_ownership', {
    schema: { params: TriggerParams, response: { 200: Trigger } },
  }, async (req) => {
    const { trigger } = await loadTrigger(req, req.params.id, req.params.trigger_id)
    return presentOne(req, await updateTrigger(req.ingot.db, trigger, { owner_id: requireActor(req).user.id }))
  })

  app.delete('/projects/:id/triggers/:trigger_id', {
    schema: { params: TriggerParams },
  }, async (req, reply) => {
    const { trigger } = await loadTrigger(req, req.params.id, req.params.trigger_id)
    await deleteTrigger(req.ingot.db, trigger)
    return reply.code(204).send()
  })
}

export default triggers
