// The runner administration API, as the original 11.5's lib/api/runners.rb: the caller's runners
// (those of projects they maintain and groups they own or maintain), every runner (admins), one
// runner, its settings, its removal and the jobs it took; a project's runners, and enabling and
// disabling a project runner on more projects (Maintainer of the project). Admins may do all of
// it; others only to their own runners (RunnerPolicy's owned_runner), and anyone signed in may
// read an instance runner. Lists page in id order; `scope`, `type` and `status` narrow them by the
// original's scopes and `tag_list` to runners with every tag given.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { CiBuildRow, CiRunnerRow } from '../../db/schema.js'
import { Runner, RunnerDetails, presentRunner, presentRunnerDetails } from '../../entities/runner.js'
import { JobBasicWithProject, presentJobBasicWithProject } from '../../entities/runner-job.js'
import { presentJob } from '../../entities/job.js'
import { loadJobViews } from '../../finders/jobs-finder.js'
import { namespacesById, projectsById } from '../../finders/rows.js'
import {
  RUNNER_JOB_STATUSES, RUNNER_SCOPES, RUNNER_STATUSES, RUNNER_TYPES,
  findRunner, findRunnerJobPage, findRunnerPage, loadRunnerAssignments, runnerProjectCount,
  type RunnerScope, type RunnerSet,
} from '../../finders/runners-finder.js'
import {
  authorizeRunnerOwner, deleteRunner, disableRunnerOnProject, enableRunnerOnProject, updateRunner,
} from '../../services/ci/runners/manage-runners.js'
import { normalizeTags } from '../../services/ci/runners/runner-attributes.js'
import { apiError, forbidden, missingOneOf } from '../../common/errors.js'
import { loadProjectFor, requireActor, requireAdmin } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { BooleanParam, IdParams, OneOf, Pagination } from '../params.js'
import { presentCtx } from '../present.js'
import { TagListParam } from './runner-registration.js'

const RunnerParams = Type.Object({ id: Type.Integer() })
const ProjectRunnerParams = Type.Composite([IdParams, Type.Object({ runner_id: Type.Integer() })])

/** A list's filters; `scope` takes what each list of the original takes. */
function listQuery(scopes: readonly RunnerScope[]) {
  return Type.Object({
    ...Pagination.properties,
    scope: Type.Optional(OneOf(scopes)),
    type: Type.Optional(OneOf(RUNNER_TYPES)),
    status: Type.Optional(OneOf(RUNNER_STATUSES)),
    tag_list: Type.Optional(TagListParam),
  })
}
const OwnedListQuery = listQuery(RUNNER_STATUSES)
const FullListQuery = listQuery(RUNNER_SCOPES)

const UpdateBody = Type.Object({
  description: Type.Optional(Type.String()),
  active: Type.Optional(BooleanParam()),
  tag_list: Type.Optional(TagListParam),
  run_untagged: Type.Optional(BooleanParam()),
  locked: Type.Optional(BooleanParam()),
  access_level: Type.Optional(OneOf(['not_protected', 'ref_protected'] as const)),
  maximum_timeout: Type.Optional(Type.Integer()),
})
/** The original's at_least_one_of (maximum_timeout alone is not enough, as there). */
const UPDATE_REQUIRES_ONE_OF = ['description', 'active', 'tag_list', 'run_untagged', 'locked', 'access_level'] as const

const JobsQuery = Type.Object({ ...Pagination.properties, status: Type.Optional(OneOf(RUNNER_JOB_STATUSES)) })

const recordNotFound = () => apiError(404, '404 Not found')

interface ListFilters { scope?: RunnerScope; type?: RunnerScope; status?: RunnerScope; tag_list?: string | string[] }

async function listRunners(req: FastifyRequest, set: RunnerSet, query: ListFilters & { page: number; per_page: number }) {
  const scopes = [query.scope, query.type, query.status].filter((scope): scope is RunnerScope => scope !== undefined)
  const page = await findRunnerPage(req.ingot.db, set, { scopes, tags: normalizeTags(query.tag_list ?? []) }, query)
  return { page, items: page.items.map((runner) => presentRunner(runner)) }
}

const isAdmin = (req: FastifyRequest) => req.actor?.user.admin === 1

/** The runner of the path; 404 as the original's Ci::Runner.find. */
async function loadRunner(req: FastifyRequest, id: number): Promise<CiRunnerRow> {
  const runner = await findRunner(req.ingot.db, id)
  if (runner === null) throw recordNotFound()
  return runner
}

/** 401 for anonymous callers, 403 unless the caller is an admin or the runner is one of theirs. */
function authorizeOwnRunner(req: FastifyRequest, runner: CiRunnerRow): Promise<void> {
  return authorizeRunnerOwner(req.ingot.db, requireActor(req), runner)
}

async function presentDetails(req: FastifyRequest, runner: CiRunnerRow) {
  const visibleTo = isAdmin(req) ? null : requireActor(req).user.id
  const assignments = (await loadRunnerAssignments(req.ingot.db, [runner.id], visibleTo)).get(runner.id)!
  return presentRunnerDetails({ runner, ...assignments }, presentCtx(req))
}

/** Jobs of several projects as JobBasicWithProject: each project's rows and views loaded once for the page. */
async function presentRunnerJobs(req: FastifyRequest, jobs: readonly CiBuildRow[]) {
  const { db } = req.ingot
  const projects = await projectsById(db, [...new Set(jobs.map((job) => job.project_id))])
  const namespaces = await namespacesById(db, [...new Set([...projects.values()].map((project) => project.namespace_id))])
  const ctx = presentCtx(req)
  const now = Date.now()
  const presented = new Map<number, ReturnType<typeof presentJobBasicWithProject>>()
  for (const [projectId, project] of projects) {
    const namespace = namespaces.get(project.namespace_id)!
    const ofProject = jobs.filter((job) => job.project_id === projectId)
    const views = await loadJobViews(db, req.ingot.repositories.open(projectId), ofProject)
    for (const view of views) {
      const job = presentJob(view, `${namespace.full_path}/${project.path}`, ctx, now)
      presented.set(view.job.id, presentJobBasicWithProject(job, project, namespace))
    }
  }
  return jobs.flatMap((job) => presented.get(job.id) ?? [])
}

const runners: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/runners', {
    schema: { querystring: OwnedListQuery, response: { 200: Type.Array(Runner) } },
  }, async (req, reply) => {
    const { page, items } = await listRunners(req, { kind: 'owned', userId: requireActor(req).user.id }, req.query)
    setPaginationHeaders(req, reply, page)
    return items
  })

  app.get('/runners/all', {
    schema: { querystring: FullListQuery, response: { 200: Type.Array(Runner) } },
  }, async (req, reply) => {
    requireAdmin(req)
    const { page, items } = await listRunners(req, { kind: 'all' }, req.query)
    setPaginationHeaders(req, reply, page)
    return items
  })

  app.get('/runners/:id', {
    schema: { params: RunnerParams, response: { 200: RunnerDetails } },
  }, async (req) => {
    const runner = await loadRunner(req, req.params.id)
    // Anyone signed in may read an instance runner, as in the original.
    if (runner.runner_type !== 'instance_type') await authorizeOwnRunner(req, runner)
    return presentDetails(req, runner)
  })

  app.put('/runners/:id', {
    schema: { params: RunnerParams, body: UpdateBody, response: { 200: RunnerDetails } },
  }, async (req) => {
    const body = req.body
    if (UPDATE_REQUIRES_ONE_OF.every((name) => body[name] === undefined)) throw missingOneOf(...UPDATE_REQUIRES_ONE_OF)
    const runner = await loadRunner(req, req.params.id)
    await authorizeOwnRunner(req, runner)
    const updated = await updateRunner(req.ingot.db, runner, {
      description: body.description,
      active: body.active,
      tags: body.tag_list === undefined ? undefined : normalizeTags(body.tag_list),
      runUntagged: body.run_untagged,
      locked: body.locked,
      accessLevel: body.access_level,
      maximumTimeout: body.maximum_timeout,
    })
    return presentDetails(req, updated)
  })

  app.delete('/runners/:id', {
    schema: { params: RunnerParams },
  }, async (req, reply) => {
    const runner = await loadRunner(req, req.params.id)
    if (!isAdmin(req)) {
      if (await runnerProjectCount(req.ingot.db, runner.id) > 1) throw forbidden('Runner associated with more than one project')
      await authorizeOwnRunner(req, runner)
    }
    checkUnmodifiedSince(req, runner.updated_at)
    await deleteRunner(req.ingot.db, runner.id)
    return reply.code(204).send()
  })

  app.get('/runners/:id/jobs', {
    schema: { params: RunnerParams, querystring: JobsQuery, response: { 200: Type.Array(JobBasicWithProject) } },
  }, async (req, reply) => {
    const runner = await loadRunner(req, req.params.id)
    await authorizeOwnRunner(req, runner)
    const page = await findRunnerJobPage(req.ingot.db, runner.id, req.query.status, req.query)
    setPaginationHeaders(req, reply, page)
    return presentRunnerJobs(req, page.items)
  })

  app.get('/projects/:id/runners', {
    schema: { params: IdParams, querystring: FullListQuery, response: { 200: Type.Array(Runner) } },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    const { page, items } = await listRunners(req, { kind: 'project', project }, req.query)
    setPaginationHeaders(req, reply, page)
    return items
  })

  app.post('/projects/:id/runners', {
    schema: { params: IdParams, body: Type.Object({ runner_id: Type.Integer() }), response: { 201: Runner } },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    const runner = await loadRunner(req, req.body.runner_id)
    const assigned = await enableRunnerOnProject(req.ingot.db, requireActor(req), runner, project.id)
    reply.code(201)
    return presentRunner(assigned)
  })

  app.delete('/projects/:id/runners/:runner_id', {
    schema: { params: ProjectRunnerParams },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    await disableRunnerOnProject(req.ingot.db, req.params.runner_id, project.id)
    return reply.code(204).send()
  })
}

export default runners
