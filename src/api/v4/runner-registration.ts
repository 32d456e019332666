// The runner protocol's first calls (the original 11.5's lib/api/runner.rb, `resource :runners`):
// a runner registers with a registration token (POST /runners → 201 {id, token}), checks that its
// token still works (POST /runners/verify) and unregisters (DELETE /runners). No user is involved:
// the tokens are the credentials, in the body (`token`, as every runner sends it), the query, or
// the RUNNER-TOKEN header newer runners add. Newer runners send `paused` where older ones send
// `active`, and tags as "a,b" where the API documents a list; all are honoured.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { ApiError, forbidden } from '../../common/errors.js'
import { RunnerRegistrationDetails } from '../../entities/runner.js'
import { registerRunner } from '../../services/ci/runners/register-runner.js'
import { recordRunnerContact, type RunnerInfo } from '../../services/ci/runners/runner-contact.js'
import { normalizeTags } from '../../services/ci/runners/runner-attributes.js'
import { findRunnerByToken } from '../../services/ci/runners/runner-token.js'
import { deleteRunner } from '../../services/ci/runners/manage-runners.js'
import { BooleanParam, OneOf } from '../params.js'

const RunnerInfoParam = Type.Object({
  name: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  revision: Type.Optional(Type.String()),
  platform: Type.Optional(Type.String()),
  architecture: Type.Optional(Type.String()),
})

/** Tags as a list, or as one comma-separated string. */
export const TagListParam = Type.Union([Type.Array(Type.String()), Type.String()])

const RegisterBody = Type.Object({
  token: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  info: Type.Optional(RunnerInfoParam),
  active: Type.Optional(BooleanParam()),
  paused: Type.Optional(BooleanParam()),
  locked: Type.Optional(BooleanParam()),
  run_untagged: Type.Optional(BooleanParam()),
  tag_list: Type.Optional(TagListParam),
  access_level: Type.Optional(OneOf(['not_protected', 'ref_protected'] as const)),
  maximum_timeout: Type.Optional(Type.Integer()),
})

const RunnerTokenBody = Type.Object({ token: Type.Optional(Type.String()), info: Type.Optional(RunnerInfoParam) })
const TokenQuery = Type.Object({ token: Type.Optional(Type.String()) })

/** The token of the request: `token` in the body or the query, else the RUNNER-TOKEN header. 400 when none. */
function tokenOf(req: FastifyRequest): string {
  for (const source of [req.body, req.query]) {
    const token = (source as { token?: unknown } | null | undefined)?.token
    if (typeof token === 'string' && token !== '') return token
  }
  const header = req.headers['runner-token']
  if (typeof header === 'string' && header !== '') return header
  throw new ApiError(400, { error: 'token is missing' })
}

/** The runner whose token the request carries, now recorded as heard from; 403 for an unknown token. */
async function authenticateRunner(req: FastifyRequest) {
  const token = tokenOf(req)
  const runner = await findRunnerByToken(req.ingot.db, token)
  if (runner === null) throw forbidden()
  await recordRunnerContact(req.ingot.db, runner, { info: (req.body as { info?: RunnerInfo } | undefined)?.info, ipAddress: req.ip })
  return { runner, token }
}

const runnerRegistration: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/runners', {
    config: { auth: 'none' },
    schema: { body: RegisterBody, querystring: TokenQuery, response: { 201: RunnerRegistrationDetails } },
  }, async (req, reply) => {
    const body = req.body
    const registered = await registerRunner(req.ingot.db, tokenOf(req), {
      description: body.description ?? null,
      active: body.paused !== undefined ? !body.paused : body.active ?? true,
      locked: body.locked ?? false,
      runUntagged: body.run_untagged ?? true,
      tags: normalizeTags(body.tag_list ?? []),
      accessLevel: body.access_level ?? 'not_protected',
      maximumTimeout: body.maximum_timeout ?? null,
      info: body.info ?? {},
      ipAddress: req.ip,
    })
    if (registered === null) throw forbidden()
    reply.code(201)
    return { id: registered.runner.id, token: registered.token, token_expires_at: null }
  })

  app.delete('/runners', {
    config: { auth: 'none' },
    schema: { body: Type.Optional(RunnerTokenBody), querystring: TokenQuery },
  }, async (req, reply) => {
    const { runner } = await authenticateRunner(req)
    await deleteRunner(req.ingot.db, runner.id)
    return reply.code(204).send()
  })

  app.post('/runners/verify', {
    config: { auth: 'none' },
    schema: { body: Type.Optional(RunnerTokenBody), querystring: TokenQuery, response: { 200: RunnerRegistrationDetails } },
  }, async (req) => {
    const { runner, token } = await authenticateRunner(req)
    // Older runners read nothing of it; newer ones read it as JSON when it is.
    return { id: runner.id, token, token_expires_at: null }
  })
}

export default runnerRegistration
