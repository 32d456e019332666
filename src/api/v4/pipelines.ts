// Pipelines (not in the spec; every client uses them), as the original 11.5 answers: the list
// (PipelineBasic; scope, status, ref, sha, yaml_errors, username, name, order_by, sort), one pipeline,
// creating one for a branch or tag with variables, retrying and canceling one (Developer), and
// deleting one (Owner). Reporters read; so does whoever reads the project when its jobs are public.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { CiPipelineRow } from '../../db/schema.js'
import { Pipeline, PipelineBasic, presentPipeline, presentPipelineBasic } from '../../entities/pipeline.js'
import { projectFullPath } from '../../entities/project.js'
import { JOB_STATUSES } from '../../finders/jobs-finder.js'
import { PIPELINE_ORDERS, PIPELINE_SCOPES, findPipeline, findPipelinePage } from '../../finders/pipelines-finder.js'
import { usersById } from '../../finders/rows.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from '../../git/ref-names.js'
import { createPipeline, resolvePipelineRef } from '../../services/ci/create-pipeline.js'
import { isVariableKey } from '../../services/ci/variable-keys.js'
import { canRunCiFor } from '../../services/ci/ref-access.js'
import { deletePipeline } from '../../services/ci/delete-pipeline.js'
import { cancelPipeline, retryPipeline } from '../../services/ci/transitions.js'
import { apiError, validationFailed } from '../../common/errors.js'
import { authorize, loadProjectFor, requireActor, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { BooleanParam, IdParams, OneOf, Pagination, SortParam } from '../params.js'
import { presentCtx } from '../present.js'

const PipelineParams = Type.Composite([IdParams, Type.Object({ pipeline_id: Type.Integer() })])

const ListQuery = Type.Object({
  ...Pagination.properties,
  scope: Type.Optional(OneOf(PIPELINE_SCOPES)),
  status: Type.Optional(OneOf(JOB_STATUSES)),
  ref: Type.Optional(Type.String()),
  sha: Type.Optional(Type.String()),
  yaml_errors: Type.Optional(BooleanParam()),
  username: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  order_by: OneOf<typeof PIPELINE_ORDERS[number]>(PIPELINE_ORDERS, { default: 'id' }),
  sort: SortParam('desc'),
})

const CreateBody = Type.Object({
  ref: Type.String({ minLength: 1, description: 'A branch or tag' }),
  variables: Type.Optional(Type.Array(Type.Object({ key: Type.String(), value: Type.String() }))),
})

const pipelineNotFound = () => apiError(404, '404 Not found')

/** A pipeline of the project; for 'update_build', 403 too unless the caller may run CI for its ref. */
async function loadPipeline(req: FastifyRequest, id: string, pipelineId: number, ability: 'read_pipeline' | 'update_build' | 'destroy_pipeline') {
  const loaded = await loadProjectFor(req, id, ability)
  const pipeline = await findPipeline(req.ingot.db, loaded.project.id, pipelineId)
  if (pipeline === null) throw pipelineNotFound()
  if (ability === 'update_build') authorize(await canRunCiFor(req.ingot.db, requireActor(req), loaded, pipeline.ref, pipeline.tag === 1))
  return { loaded, pipeline }
}

/** The full entity of a pipeline as it is now. */
async function presentCurrent(req: FastifyRequest, loaded: LoadedProject, pipelineId: number) {
  const pipeline = await findPipeline(req.ingot.db, loaded.project.id, pipelineId)
  if (pipeline === null) throw pipelineNotFound()
  return presentView(req, loaded, pipeline)
}

async function presentView(req: FastifyRequest, loaded: LoadedProject, pipeline: CiPipelineRow) {
  const user = pipeline.user_id === null ? null : (await usersById(req.ingot.db, [pipeline.user_id])).get(pipeline.user_id) ?? null
  return presentPipeline({ pipeline, user }, projectFullPath(loaded), presentCtx(req))
}

const pipelines: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects/:id/pipelines', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(PipelineBasic) } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'read_pipeline')
    const { query } = req
    const scopeRefs = query.scope === 'branches' || query.scope === 'tags'
      ? (await req.ingot.repositories.open(loaded.project.id).refNames(query.scope === 'tags' ? TAG_PREFIX : BRANCH_PREFIX)).map(shortRefName)
      : undefined
    const page = await findPipelinePage(req.ingot.db, loaded.project.id, {
      scope: query.scope, scopeRefs, status: query.status, ref: query.ref, sha: query.sha, yamlErrors: query.yaml_errors,
      username: query.username, name: query.name, orderBy: query.order_by, sort: query.sort,
    }, query)
    setPaginationHeaders(req, reply, page)
    const ctx = presentCtx(req)
    return page.items.map((pipeline) => presentPipelineBasic(pipeline, projectFullPath(loaded), ctx))
  })

  app.get('/projects/:id/pipelines/:pipeline_id', {
    config: { auth: 'optional' },
    schema: { params: PipelineParams, response: { 200: Pipeline } },
  }, async (req) => {
    const { loaded, pipeline } = await loadPipeline(req, req.params.id, req.params.pipeline_id, 'read_pipeline')
    return presentView(req, loaded, pipeline)
  })

  app.post('/projects/:id/pipeline', {
    schema: { params: IdParams, body: CreateBody, response: { 201: Pipeline } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const loaded = await loadProjectFor(req, req.params.id, 'create_pipeline')
    const { ref, variables } = req.body
    if (variables?.some((variable) => !isVariableKey(variable.key))) {
      throw validationFailed({ 'variables.key': ['can contain only letters, digits and \'_\'.'] })
    }
    const target = await resolvePipelineRef(req.ingot, loaded.project.id, ref)
    if (target === null) throw validationFailed({ base: ['Reference not found'] })
    if (!await canRunCiFor(req.ingot.db, actor, loaded, ref, target.tag)) throw validationFailed({ base: ['Insufficient permissions for protected ref'] })
    const result = await createPipeline(req.ingot, {
      project: loaded.project, namespace: loaded.namespace, userId: actor.user.id, source: 'api', ref, tag: target.tag,
      sha: target.sha, beforeSha: null, variables, saveOnConfigError: false,
    })
    if (!result.ok) throw validationFailed({ base: result.errors })
    reply.code(201)
    return presentView(req, loaded, result.pipeline)
  })

  app.post('/projects/:id/pipelines/:pipeline_id/retry', {
    schema: { params: PipelineParams, response: { 201: Pipeline } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const { loaded, pipeline } = await loadPipeline(req, req.params.id, req.params.pipeline_id, 'update_build')
    await retryPipeline(req.ingot, pipeline, actor.user.id)
    reply.code(201)
    return presentCurrent(req, loaded, pipeline.id)
  })

  app.post('/projects/:id/pipelines/:pipeline_id/cancel', {
    schema: { params: PipelineParams, response: { 200: Pipeline } },
  }, async (req) => {
    const { loaded, pipeline } = await loadPipeline(req, req.params.id, req.params.pipeline_id, 'update_build')
    await cancelPipeline(req.ingot, pipeline)
    return presentCurrent(req, loaded, pipeline.id)
  })

  app.delete('/projects/:id/pipelines/:pipeline_id', {
    schema: { params: PipelineParams },
  }, async (req, reply) => {
    const { pipeline } = await loadPipeline(req, req.params.id, req.params.pipeline_id, 'destroy_pipeline')
    await deletePipeline(req.ingot, pipeline)
    return reply.code(204).send()
  })
}

export default pipelines
