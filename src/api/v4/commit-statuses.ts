// Commit statuses (the original 11.5's CommitStatuses API): outside systems set a status of a commit
// (Developer), which joins a pipeline of the commit and ref (services/ci/commit-status.ts); the
// commit's statuses — CI jobs and external statuses of every pipeline of the sha — are listed to
// whoever reads the project's jobs, only the latest of each name unless `all`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { CiBuildRow } from '../../db/schema.js'
import { CommitStatus, presentCommitStatus } from '../../entities/commit-status.js'
import { findCommitStatusPage } from '../../finders/commit-statuses-finder.js'
import { pipelinesByIds } from '../../finders/pipelines-finder.js'
import { usersById } from '../../finders/rows.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from '../../git/ref-names.js'
import type { Commit } from '../../git/repository.js'
import { COMMIT_STATUS_STATES, setCommitStatus } from '../../services/ci/commit-status.js'
import { apiError, badRequestNotGiven, notFound } from '../../common/errors.js'
import { loadProjectFor, requireActor, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { BooleanParam, IdParams, OneOf, Pagination } from '../params.js'
import { presentCtx } from '../present.js'

const ShaParams = Type.Composite([IdParams, Type.Object({ sha: Type.String({ minLength: 1 }) })])

const CreateBody = Type.Object({
  state: OneOf(COMMIT_STATUS_STATES),
  ref: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  context: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  target_url: Type.Optional(Type.String({ maxLength: 4096 })),
  description: Type.Optional(Type.String({ maxLength: 4096 })),
  coverage: Type.Optional(Type.Number()),
})

const ListQuery = Type.Object({
  ...Pagination.properties,
  ref: Type.Optional(Type.String()),
  stage: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  all: BooleanParam({ default: false }),
})

async function findCommit(req: FastifyRequest, loaded: LoadedProject, sha: string): Promise<Commit> {
  const repo = req.ingot.repositories.open(loaded.project.id)
  const id = await repo.resolveCommit(sha)
  const commit = id === null ? null : await repo.readCommit(id)
  if (commit === null) throw notFound('Commit')
  return commit
}

async function present(req: FastifyRequest, statuses: readonly CiBuildRow[]) {
  const pipelines = await pipelinesByIds(req.ingot.db, statuses.map((status) => status.pipeline_id))
  const users = await usersById(req.ingot.db, [...new Set(statuses.flatMap((status) => (status.user_id === null ? [] : [status.user_id])))])
  const ctx = presentCtx(req)
  return statuses.map((status) => presentCommitStatus(status, pipelines.get(status.pipeline_id)!, status.user_id === null ? null : users.get(status.user_id) ?? null, ctx))
}

const commitStatuses: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/projects/:id/statuses/:sha', {
    schema: { params: ShaParams, body: CreateBody, response: { 201: CommitStatus } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const loaded = await loadProjectFor(req, req.params.id, 'create_pipeline')
    const commit = await findCommit(req, loaded, req.params.sha)
    const repo = req.ingot.repositories.open(loaded.project.id)
    const { body } = req
    let ref = body.ref
    if (ref === undefined) {
      // The branch whose head is this commit, when there is exactly one.
      const heads = (await repo.refs(BRANCH_PREFIX)).filter((info) => info.commit === commit.id)
      if (heads.length !== 1) throw badRequestNotGiven('ref')
      ref = shortRefName(heads[0]!.name)
    }
    const tag = await repo.resolveCommit(`${BRANCH_PREFIX}${ref}`) === null && await repo.resolveCommit(`${TAG_PREFIX}${ref}`) !== null
    const result = await setCommitStatus(req.ingot, {
      projectId: loaded.project.id, userId: actor.user.id, commit, ref, tag,
      name: body.name ?? body.context ?? 'default', state: body.state,
      targetUrl: body.target_url ?? null, description: body.description ?? null, coverage: body.coverage ?? null,
    })
    if (!result.ok) throw apiError(400, result.message)
    reply.code(201)
    const [presented] = await present(req, [result.status])
    return presented!
  })

  app.get('/projects/:id/repository/commits/:sha/statuses', {
    config: { auth: 'optional' },
    schema: { params: ShaParams, querystring: ListQuery, response: { 200: Type.Array(CommitStatus) } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'read_build')
    const commit = await findCommit(req, loaded, req.params.sha)
    const { query } = req
    const page = await findCommitStatusPage(req.ingot.db, loaded.project.id, commit.id, { ref: query.ref, stage: query.stage, name: query.name, all: query.all }, query)
    setPaginationHeaders(req, reply, page)
    return present(req, page.items)
  })
}

export default commitStatuses
