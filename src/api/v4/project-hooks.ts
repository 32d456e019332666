// Project hooks (the original's /projects/:id/hooks, release 11.5): list, get, add, edit, delete,
// and test with a sample of one event. Maintainers and up; the caller is checked before the
// parameters, as the original's `before` blocks do, so a Developer gets 403 whatever they send.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { WebHookRow } from '../../db/schema.js'
import { ProjectHook, presentProjectHook } from '../../entities/hook.js'
import { findProjectHook, listProjectHooks } from '../../finders/hooks-finder.js'
import {
  PROJECT_HOOK_EVENTS, createProjectHook, deleteHook, updateProjectHook, type ProjectHookEvent, type ProjectHookInput,
} from '../../services/hooks/web-hooks.js'
import { testProjectHook } from '../../services/hooks/test-hooks.js'
import { MessageBody } from '../../entities/common.js'
import { apiError } from '../../common/errors.js'
import { loadProjectFor, requireActor, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { BooleanParam, IdParams, OneOf, Pagination } from '../params.js'

const HookParams = Type.Composite([IdParams, Type.Object({ hook_id: Type.Integer() })])
const TestParams = Type.Composite([HookParams, Type.Object({ trigger: OneOf(PROJECT_HOOK_EVENTS) })])

const Flag = Type.Optional(BooleanParam())
const HookBody = Type.Object({
  url: Type.String({ description: 'The URL to send the request to' }),
  token: Type.Optional(Type.String({ description: 'Sent as X-Service-Token; never returned' })),
  enable_ssl_verification: Flag,
  push_events_branch_filter: Type.Optional(Type.String({ description: 'A branch name or wildcard; push events of other branches are not sent' })),
  push_events: Flag,
  tag_push_events: Flag,
  issues_events: Flag,
  confidential_issues_events: Flag,
  merge_requests_events: Flag,
  note_events: Flag,
  job_events: Flag,
  pipeline_events: Flag,
  wiki_page_events: Flag,
})
type HookBodyParams = Static<typeof HookBody>

function hookInput(body: HookBodyParams): ProjectHookInput {
  const events: Partial<Record<ProjectHookEvent, boolean>> = {}
  for (const event of PROJECT_HOOK_EVENTS) if (body[event] !== undefined) events[event] = body[event]
  return {
    url: body.url,
    ...(body.token === undefined ? {} : { token: body.token }),
    ...(body.enable_ssl_verification === undefined ? {} : { enable_ssl_verification: body.enable_ssl_verification }),
    ...(body.push_events_branch_filter === undefined ? {} : { push_events_branch_filter: body.push_events_branch_filter }),
    events,
  }
}

/** The project each request was authorized on (before its parameters were validated). */
const authorized = new WeakMap<FastifyRequest, LoadedProject>()

async function authorizeMaintainer(req: FastifyRequest): Promise<void> {
  authorized.set(req, await loadProjectFor(req, (req.params as { id: string }).id, 'admin_project'))
}

function projectOf(req: FastifyRequest): LoadedProject {
  const loaded = authorized.get(req)
  if (loaded === undefined) throw new Error('project hooks route without authorization')
  return loaded
}

/** One of the project's hooks; the original's 404 for any other id. */
async function findHook(req: FastifyRequest, projectId: number, hookId: number): Promise<WebHookRow> {
  const hook = await findProjectHook(req.ingot.db, projectId, hookId)
  if (hook === null) throw apiError(404, '404 Not found')
  return hook
}

const projectHooks: FastifyPluginAsyncTypebox = async (app) => {
  const base = '/projects/:id/hooks'

  app.get(base, {
    schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(ProjectHook) } },
    preValidation: authorizeMaintainer,
  }, async (req, reply) => {
    const page = await listProjectHooks(req.ingot.db, projectOf(req).project.id, req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentProjectHook)
  })

  app.get(`${base}/:hook_id`, {
    schema: { params: HookParams, response: { 200: ProjectHook } },
    preValidation: authorizeMaintainer,
  }, async (req) => presentProjectHook(await findHook(req, projectOf(req).project.id, req.params.hook_id)))

  app.post(base, {
    schema: { params: IdParams, body: HookBody, response: { 201: ProjectHook } },
    preValidation: authorizeMaintainer,
  }, async (req, reply) => {
    const hook = await createProjectHook(req.ingot, projectOf(req).project.id, hookInput(req.body))
    reply.code(201)
    return presentProjectHook(hook)
  })

  app.put(`${base}/:hook_id`, {
    schema: { params: HookParams, body: HookBody, response: { 200: ProjectHook } },
    preValidation: authorizeMaintainer,
  }, async (req) => {
    const hook = await findHook(req, projectOf(req).project.id, req.params.hook_id)
    return presentProjectHook(await updateProjectHook(req.ingot, hook, hookInput(req.body)))
  })

  app.delete(`${base}/:hook_id`, {
    schema: { params: HookParams },
    preValidation: authorizeMaintainer,
  }, async (req, reply) => {
    await deleteHook(req.ingot.db, await findHook(req, projectOf(req).project.id, req.params.hook_id))
    return reply.code(204).send()
  })

  app.post(`${base}/:hook_id/test/:trigger`, {
    schema: { params: TestParams, response: { 201: MessageBody } },
    preValidation: authorizeMaintainer,
  }, async (req, reply) => {
    const loaded = projectOf(req)
    const hook = await findHook(req, loaded.project.id, req.params.hook_id)
    await testProjectHook(req.ingot, hook, loaded, requireActor(req).user, req.params.trigger)
    reply.code(201)
    return { message: '201 Created' }
  })
}

export default projectHooks
