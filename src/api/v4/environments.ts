// Environments (not in the spec; python-gitlab and the CLI use them), as the original 11.5
// answers: the list, creating one (its slug made from the name; a `slug` given is refused), renaming
// one or changing its URL, deleting one with its deployments, and stopping one (its last
// deployment's on_stop job is played). Signed-in callers only; Reporters read, Developers change.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { ApiError, apiError } from '../../common/errors.js'
import { Nullable } from '../../entities/common.js'
import { Environment, presentEnvironment } from '../../entities/environment.js'
import { findEnvironment, findEnvironmentPage } from '../../finders/environments-finder.js'
import { findPipeline } from '../../finders/pipelines-finder.js'
import { createEnvironment, deleteEnvironment, updateEnvironment } from '../../services/ci/environments.js'
import { canRunCiFor } from '../../services/ci/ref-access.js'
import { stopActionOf, stopEnvironment } from '../../services/ci/stop-environment.js'
import { authorize, loadProjectFor, requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, Pagination } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { presentCtx } from '../present.js'

const EnvironmentParams = Type.Composite([IdParams, Type.Object({ environment_id: Type.Integer() })])

/** Accepted only to be refused, as the original's `absence` validator of `slug`. */
const SlugGiven = Type.Optional(Type.Unknown())
const CreateBody = Type.Object({
  name: Type.String(),
  external_url: Type.Optional(Nullable(Type.String())),
  slug: SlugGiven,
})
const UpdateBody = Type.Object({
  name: Type.Optional(Type.String()),
  external_url: Type.Optional(Nullable(Type.String())),
  slug: SlugGiven,
})

function refuseSlug(body: { slug?: unknown }): void {
  if (body.slug !== undefined) throw new ApiError(400, { error: 'slug is automatically generated and cannot be changed' })
}

const environmentNotFound = () => apiError(404, '404 Not found')

async function loadEnvironment(req: FastifyRequest, id: string, environmentId: number, ability: 'read_environment' | 'update_environment') {
  const loaded = await loadProjectFor(req, id, ability)
  const environment = await findEnvironment(req.ingot.db, loaded.project.id, environmentId)
  if (environment === null) throw environmentNotFound()
  return { loaded, environment }
}

const environments: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects/:id/environments', {
    schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(Environment) } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'read_environment')
    const page = await findEnvironmentPage(req.ingot.db, loaded.project.id, req.query)
    setPaginationHeaders(req, reply, page)
    const ctx = presentCtx(req)
    return page.items.map((environment) => presentEnvironment(environment, loaded, ctx))
  })

  app.post('/projects/:id/environments', {
    schema: { params: IdParams, body: CreateBody, response: { 201: Environment } },
  }, async (req, reply) => {
    refuseSlug(req.body)
    const loaded = await loadProjectFor(req, req.params.id, 'update_environment')
    const environment = await createEnvironment(req.ingot.db, loaded.project.id, { name: req.body.name, external_url: req.body.external_url })
    reply.code(201)
    return presentEnvironment(environment, loaded, presentCtx(req))
  })

  app.put('/projects/:id/environments/:environment_id', {
    schema: { params: EnvironmentParams, body: UpdateBody, response: { 200: Environment } },
  }, async (req) => {
    refuseSlug(req.body)
    const { loaded, environment } = await loadEnvironment(req, req.params.id, req.params.environment_id, 'update_environment')
    const { name, external_url: externalUrl } = req.body
    const updated = await updateEnvironment(req.ingot.db, environment, { name, external_url: externalUrl })
    return presentEnvironment(updated, loaded, presentCtx(req))
  })

  app.delete('/projects/:id/environments/:environment_id', {
    schema: { params: EnvironmentParams },
  }, async (req, reply) => {
    const { environment } = await loadEnvironment(req, req.params.id, req.params.environment_id, 'update_environment')
    checkUnmodifiedSince(req, environment.updated_at)
    await deleteEnvironment(req.ingot.db, environment)
    return reply.code(204).send()
  })

  app.post('/projects/:id/environments/:environment_id/stop', {
    schema: { params: EnvironmentParams, response: { 200: Environment } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const { loaded, environment } = await loadEnvironment(req, req.params.id, req.params.environment_id, 'update_environment')
    const stopAction = environment.state === 'available' ? await stopActionOf(req.ingot.db, environment) : null
    if (stopAction !== null) {
      // Playing the job needs what playing it from the jobs API needs: CI rights on its ref.
      const pipeline = await findPipeline(req.ingot.db, loaded.project.id, stopAction.pipeline_id)
      authorize(pipeline !== null && await canRunCiFor(req.ingot.db, actor, loaded, pipeline.ref, pipeline.tag === 1))
    }
    const stopped = await stopEnvironment(req.ingot, environment, stopAction, actor.user.id)
    reply.code(200)
    return presentEnvironment(stopped, loaded, presentCtx(req))
  })
}

export default environments
