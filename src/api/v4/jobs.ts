// Jobs (spec: Jobs), as the original 11.5 answers: the project's jobs and a pipeline's (`scope`,
// one status or several), one job, its trace (text/plain, streamed from the chunks of a running job
// or from its archive), and cancel, retry and play (Developer). Reporters read; so does whoever
// reads the project when its jobs are public. Artifacts and erase are in job-artifacts.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { CiBuildRow, CiStatus } from '../../db/schema.js'
import { Job, presentJob } from '../../entities/job.js'
import { projectFullPath } from '../../entities/project.js'
import { JOB_STATUSES, findJob, findJobPage, loadJobViews } from '../../finders/jobs-finder.js'
import { findPipeline } from '../../finders/pipelines-finder.js'
import { canRunCiFor } from '../../services/ci/ref-access.js'
import { cancelJob, playJob, retryJob } from '../../services/ci/transitions.js'
import { apiError, badRequestNotGiven, forbidden } from '../../common/errors.js'
import { authorize, loadProjectFor, requireActor, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, Pagination } from '../params.js'
import { presentCtx } from '../present.js'
import { openTrace } from '../../services/ci/trace.js'

const JobParams = Type.Composite([IdParams, Type.Object({ job_id: Type.Integer() })])
const PipelineParams = Type.Composite([IdParams, Type.Object({ pipeline_id: Type.Integer() })])

/** `scope=failed`, `scope[]=failed&scope[]=success`: one status or several. */
const ListQuery = Type.Object({
  ...Pagination.properties,
  scope: Type.Optional(Type.Array(Type.String())),
})

export const recordNotFound = () => apiError(404, '404 Not found')

function statusesOf(scope: readonly string[] | undefined): CiStatus[] {
  const statuses = scope ?? []
  if (statuses.some((status) => !JOB_STATUSES.includes(status as CiStatus))) throw apiError(400, 'Scope contains invalid value(s)')
  return statuses as CiStatus[]
}

/** A job of the project; for 'update_build', 403 too unless the caller may run CI for its pipeline's ref. */
export async function loadJob(req: FastifyRequest, id: string, jobId: number, ability: 'read_build' | 'update_build') {
  const loaded = await loadProjectFor(req, id, ability)
  const job = await findJob(req.ingot.db, loaded.project.id, jobId)
  if (job === null) throw recordNotFound()
  if (ability === 'update_build') {
    const pipeline = await findPipeline(req.ingot.db, loaded.project.id, job.pipeline_id)
    authorize(pipeline !== null && await canRunCiFor(req.ingot.db, requireActor(req), loaded, pipeline.ref, pipeline.tag === 1))
  }
  return { loaded, job }
}

async function presentJobs(req: FastifyRequest, loaded: LoadedProject, jobs: readonly CiBuildRow[]) {
  const views = await loadJobViews(req.ingot.db, req.ingot.repositories.open(loaded.project.id), jobs)
  const ctx = presentCtx(req)
  const now = Date.now()
  return views.map((view) => presentJob(view, projectFullPath(loaded), ctx, now))
}

export async function presentOne(req: FastifyRequest, loaded: LoadedProject, job: CiBuildRow) {
  const [presented] = await presentJobs(req, loaded, [job])
  return presented!
}

const jobs: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects/:id/jobs', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(Job) } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'read_build')
    const page = await findJobPage(req.ingot.db, loaded.project.id, { statuses: statusesOf(req.query.scope) }, req.query)
    setPaginationHeaders(req, reply, page)
    return presentJobs(req, loaded, page.items)
  })

  app.get('/projects/:id/pipelines/:pipeline_id/jobs', {
    config: { auth: 'optional' },
    schema: { params: PipelineParams, querystring: ListQuery, response: { 200: Type.Array(Job) } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'read_build')
    const pipeline = await findPipeline(req.ingot.db, loaded.project.id, req.params.pipeline_id)
    if (pipeline === null) throw recordNotFound()
    const page = await findJobPage(req.ingot.db, loaded.project.id, { statuses: statusesOf(req.query.scope), pipelineId: pipeline.id }, req.query)
    setPaginationHeaders(req, reply, page)
    return presentJobs(req, loaded, page.items)
  })

  app.get('/projects/:id/jobs/:job_id', {
    config: { auth: 'optional' },
    schema: { params: JobParams, response: { 200: Job } },
  }, async (req) => {
    const { loaded, job } = await loadJob(req, req.params.id, req.params.job_id, 'read_build')
    return presentOne(req, loaded, job)
  })

  app.get('/projects/:id/jobs/:job_id/trace', {
    config: { auth: 'optional' },
    schema: { params: JobParams },
  }, async (req, reply) => {
    const { job } = await loadJob(req, req.params.id, req.params.job_id, 'read_build')
    return reply.header('content-type', 'text/plain; charset=utf-8').send(await openTrace(req.ingot, job.id))
  })

  app.post('/projects/:id/jobs/:job_id/cancel', {
    schema: { params: JobParams, response: { 201: Job } },
  }, async (req, reply) => {
    const { loaded, job } = await loadJob(req, req.params.id, req.params.job_id, 'update_build')
    const current = await cancelJob(req.ingot, job.id)
    reply.code(201)
    return presentOne(req, loaded, current ?? job)
  })

  app.post('/projects/:id/jobs/:job_id/retry', {
    schema: { params: JobParams, response: { 201: Job } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const { loaded, job } = await loadJob(req, req.params.id, req.params.job_id, 'update_build')
    const outcome = await retryJob(req.ingot, job.id, actor.user.id)
    if ('refused' in outcome) throw forbidden('Job is not retryable')
    reply.code(201)
    return presentOne(req, loaded, outcome.retried)
  })

  app.post('/projects/:id/jobs/:job_id/play', {
    schema: { params: JobParams, response: { 200: Job } },
  }, async (req) => {
    const actor = requireActor(req)
    const { loaded, job } = await loadJob(req, req.params.id, req.params.job_id, 'update_build')
    const outcome = await playJob(req.ingot, job.id, actor.user.id)
    if ('refused' in outcome) throw badRequestNotGiven('Unplayable Job')
    return presentOne(req, loaded, outcome.played)
  })
}

export default jobs
