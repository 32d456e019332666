// System hooks (the original's /hooks, release 11.5): list, add, test and delete the instance's
// hooks. Administrators only (401 anonymous, 403 others, before the parameters are looked at).
// GET /hooks/:id does not show the hook: it sends the original's sample event and answers with it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { WebHookRow } from '../../db/schema.js'
import { SystemHook, presentSystemHook } from '../../entities/hook.js'
import { findSystemHook, listSystemHooks } from '../../finders/hooks-finder.js'
import { SYSTEM_HOOK_EVENTS, createSystemHook, deleteHook, type SystemHookEvent } from '../../services/hooks/web-hooks.js'
import { testSystemHook } from '../../services/hooks/test-hooks.js'
import { notFound } from '../../common/errors.js'
import { requireAdmin } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { BooleanParam, Pagination } from '../params.js'

const HookParams = Type.Object({ id: Type.Integer() })
const Flag = Type.Optional(BooleanParam())
const HookBody = Type.Object({
  url: Type.String({ description: 'The URL to send the request to' }),
  token: Type.Optional(Type.String({ description: 'Sent as X-Service-Token; never returned' })),
  push_events: Flag,
  tag_push_events: Flag,
  merge_requests_events: Flag,
  repository_update_events: Flag,
  enable_ssl_verification: Flag,
})

async function findHook(req: FastifyRequest, id: number): Promise<WebHookRow> {
  const hook = await findSystemHook(req.ingot.db, id)
  if (hook === null) throw notFound('System hook')
  return hook
}

const systemHooks: FastifyPluginAsyncTypebox = async (app) => {
  const adminOnly = async (req: FastifyRequest) => requireAdmin(req)

  app.get('/hooks', {
    schema: { querystring: Pagination, response: { 200: Type.Array(SystemHook) } },
    preValidation: adminOnly,
  }, async (req, reply) => {
    const page = await listSystemHooks(req.ingot.db, req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentSystemHook)
  })

  app.post('/hooks', {
    schema: { body: HookBody, response: { 201: SystemHook } },
    preValidation: adminOnly,
  }, async (req, reply) => {
    const { url, token, enable_ssl_verification: verify } = req.body
    const events: Partial<Record<SystemHookEvent, boolean>> = {}
    for (const event of SYSTEM_HOOK_EVENTS) if (req.body[event] !== undefined) events[event] = req.body[event]
    const hook = await createSystemHook(req.ingot, {
      url, events, ...(token === undefined ? {} : { token }), ...(verify === undefined ? {} : { enable_ssl_verification: verify }),
    })
    reply.code(201)
    return presentSystemHook(hook)
  })

  app.get('/hooks/:id', {
    schema: { params: HookParams },
    preValidation: adminOnly,
  }, async (req) => testSystemHook(req.ingot, await findHook(req, req.params.id)))

  app.delete('/hooks/:id', {
    schema: { params: HookParams },
    preValidation: adminOnly,
  }, async (req, reply) => {
    await deleteHook(req.ingot.db, await findHook(req, req.params.id))
    return reply.code(204).send()
  })
}

export default systemHooks
