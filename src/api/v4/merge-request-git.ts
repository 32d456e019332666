// The repository side of merge requests (spec: Merge requests; the original's create and merge):
// POST /projects/:id/merge_requests (from the project in the path, into it or into the project it
// was forked from), PUT …/:merge_request_iid/merge (now, or when the head pipeline succeeds),
// POST …/cancel_merge_when_pipeline_succeeds, and what a merge request brings: GET …/pipelines
// (its commits' pipelines on the source branch, newest first, paginated), GET …/commits
// (newest first, paginated), GET …/changes (the merge request with its diffs) and GET …/diffs (the
// later releases' paginated diff list). Reads are open to anonymous callers on public projects.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { MergeRequestRow } from '../../db/schema.js'
import { CommitBasic, presentCommit } from '../../entities/commit.js'
import { MergeRequest, presentMergeRequest, type MergeRequestEntity } from '../../entities/merge-request.js'
import { DiffEntry, presentDiff } from '../../entities/repository.js'
import { loadMergeRequestDetails, loadMergeRequestView } from '../../finders/merge-requests-finder.js'
import { mergeRequestPipelinePage } from '../../finders/merge-request-pipelines.js'
import { PipelineBasic, presentPipelineBasic } from '../../entities/pipeline.js'
import { unauthorized } from '../../common/errors.js'
import { findProjectByIdOrPath } from '../../finders/project-lookup.js'
import { projectFullPath } from '../../entities/project.js'
import { diffCommits, type DiffCollection } from '../../git/diff.js'
import { commitIdsBetween, countCommitsBetween } from '../../git/merge.js'
import { labelTitlesOf } from '../../services/labels/issuable-labels.js'
import { createMergeRequest } from '../../services/merge-requests/create-merge-request.js'
import { canBeMergedBy, mergeMergeRequest } from '../../services/merge-requests/merge-merge-request.js'
import { cancelMergeWhenPipelineSucceeds } from '../../services/merge-requests/merge-when-pipeline-succeeds.js'
import { loadMergeRequest, loadProject, requireActor } from '../load.js'
import { sendArrayPage, setPaginationHeaders } from '../pagination.js'
import { pageParams } from '../../common/pages.js'
import { BooleanParam, IdParams, Pagination } from '../params.js'
import { presentCtx } from '../present.js'

const MergeRequestParams = Type.Composite([IdParams, Type.Object({ merge_request_iid: Type.Integer() })])

const CreateBody = Type.Object({
  title: Type.String(),
  source_branch: Type.String(),
  target_branch: Type.String(),
  target_project_id: Type.Optional(Type.Integer({ description: 'The target project (the project this one was forked from); default this one' })),
  description: Type.Optional(Type.String()),
  assignee_id: Type.Optional(Type.Integer()),
  milestone_id: Type.Optional(Type.Integer()),
  labels: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: 'Comma-separated label titles' })),
  remove_source_branch: Type.Optional(BooleanParam()),
  allow_collaboration: Type.Optional(BooleanParam()),
  allow_maintainer_to_push: Type.Optional(BooleanParam({ description: 'Deprecated: allow_collaboration' })),
  squash: Type.Optional(BooleanParam()),
})

const MergeBody = Type.Object({
  merge_commit_message: Type.Optional(Type.String()),
  should_remove_source_branch: Type.Optional(BooleanParam()),
  merge_when_pipeline_succeeds: Type.Optional(BooleanParam({ description: 'Merge when the head pipeline succeeds, while it runs; otherwise now' })),
  sha: Type.Optional(Type.String({ description: 'The source head the caller saw: 409 when the merge request shows another' })),
  squash: Type.Optional(BooleanParam()),
})

/** The original's service result, which its API shows as it is. */
const CancelOutcome = Type.Union([
  Type.Object({ status: Type.Literal('success') }),
  Type.Object({ status: Type.Literal('error'), message: Type.String(), http_status: Type.Integer() }),
])

const MergeRequestChanges = Type.Object({
  ...MergeRequest.properties,
  changes: Type.Array(DiffEntry),
  overflow: Type.Boolean({ description: 'The changes stopped at the diff limits: files after the last are left out' }),
})

async function present(req: FastifyRequest, row: MergeRequestRow): Promise<MergeRequestEntity> {
  const ctx = req.ingot
  const [view, details] = await Promise.all([loadMergeRequestView(ctx.db, row), loadMergeRequestDetails(ctx, req.actor, row)])
  return presentMergeRequest(view, details, presentCtx(req))
}

/** The merge request's diff in its target repository: from the merge base of its target and head to its head. */
async function diffsOf(req: FastifyRequest, mr: MergeRequestRow): Promise<DiffCollection> {
  if (mr.sha === null || mr.target_sha === null) return { diffs: [], overflow: false }
  const repo = req.ingot.repositories.open(mr.target_project_id)
  return diffCommits(repo, await repo.mergeBase(mr.target_sha, mr.sha), mr.sha)
}

const mergeRequestGit: FastifyPluginAsyncTypebox = async (app) => {
  const single = '/projects/:id/merge_requests/:merge_request_iid'

  app.post('/projects/:id/merge_requests', {
    schema: { params: IdParams, body: CreateBody, response: { 201: MergeRequest } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const source = await loadProject(req, req.params.id)
    const { body } = req
    const row = await createMergeRequest(req.ingot, actor, source, {
      title: body.title,
      sourceBranch: body.source_branch,
      targetBranch: body.target_branch,
      ...(body.target_project_id === undefined ? {} : { targetProjectId: body.target_project_id }),
      ...(body.description === undefined ? {} : { description: body.description }),
      ...(body.assignee_id === undefined ? {} : { assigneeId: body.assignee_id }),
      ...(body.milestone_id === undefined ? {} : { milestoneId: body.milestone_id }),
      ...(body.labels === undefined ? {} : { labels: labelTitlesOf(body.labels) }),
      ...(body.remove_source_branch === undefined ? {} : { removeSourceBranch: body.remove_source_branch }),
      allowCollaboration: body.allow_collaboration ?? body.allow_maintainer_to_push ?? false,
      ...(body.squash === undefined ? {} : { squash: body.squash }),
    })
    reply.code(201)
    return present(req, row)
  })

  app.put(`${single}/merge`, {
    schema: { params: MergeRequestParams, body: MergeBody, response: { 200: MergeRequest } },
  }, async (req) => {
    const actor = requireActor(req)
    const loaded = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid)
    const { body } = req
    const row = await mergeMergeRequest(req.ingot, actor, loaded, loaded.mergeRequest, {
      ...(body.merge_commit_message === undefined ? {} : { mergeCommitMessage: body.merge_commit_message }),
      ...(body.squash === undefined ? {} : { squash: body.squash }),
      ...(body.should_remove_source_branch === undefined ? {} : { shouldRemoveSourceBranch: body.should_remove_source_branch }),
      ...(body.sha === undefined ? {} : { sha: body.sha }),
      ...(body.merge_when_pipeline_succeeds === undefined ? {} : { whenPipelineSucceeds: body.merge_when_pipeline_succeeds }),
    })
    return present(req, row)
  })

  app.post(`${single}/cancel_merge_when_pipeline_succeeds`, {
    schema: { params: MergeRequestParams, response: { 201: CancelOutcome } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const loaded = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid)
    const mr = loaded.mergeRequest
    if (mr.author_id !== actor.user.id && !await canBeMergedBy(req.ingot, actor, loaded, mr)) throw unauthorized()
    reply.code(201)
    return cancelMergeWhenPipelineSucceeds(req.ingot, actor, mr)
  })

  app.get(`${single}/pipelines`, {
    config: { auth: 'optional' },
    schema: { params: MergeRequestParams, querystring: Pagination, response: { 200: Type.Array(PipelineBasic) } },
  }, async (req, reply) => {
    const loaded = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid, 'read_pipeline')
    const page = await mergeRequestPipelinePage(req.ingot, loaded.mergeRequest, req.query)
    setPaginationHeaders(req, reply, page)
    if (page.items.length === 0) return []
    // The pipelines are the source project's (a fork's, for a merge request from a fork).
    const source = await findProjectByIdOrPath(req.ingot.db, String(page.items[0]!.project_id))
    if (source === null) return []
    const ctx = presentCtx(req)
    return page.items.map((pipeline) => presentPipelineBasic(pipeline, projectFullPath(source), ctx))
  })

  app.get(`${single}/commits`, {
    config: { auth: 'optional' },
    schema: { params: MergeRequestParams, querystring: Pagination, response: { 200: Type.Array(CommitBasic) } },
  }, async (req, reply) => {
    const { mergeRequest: mr } = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid)
    const { page, perPage } = pageParams(req.query)
    if (mr.sha === null) {
      setPaginationHeaders(req, reply, { items: [], total: 0, page, perPage })
      return []
    }
    const repo = req.ingot.repositories.open(mr.target_project_id)
    const exclude = mr.target_sha === null ? [] : [mr.target_sha]
    const [ids, total] = await Promise.all([
      commitIdsBetween(repo, exclude, mr.sha, { offset: (page - 1) * perPage, limit: perPage }),
      countCommitsBetween(repo, exclude, mr.sha),
    ])
    const commits = await repo.readCommits(ids)
    setPaginationHeaders(req, reply, { items: commits, total, page, perPage })
    return commits.map(presentCommit)
  })

  app.get(`${single}/changes`, {
    config: { auth: 'optional' },
    schema: { params: MergeRequestParams, response: { 200: MergeRequestChanges } },
  }, async (req) => {
    const { mergeRequest: mr } = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid)
    const [entity, collection] = await Promise.all([present(req, mr), diffsOf(req, mr)])
    return { ...entity, changes: collection.diffs.map(presentDiff), overflow: collection.overflow }
  })

  app.get(`${single}/diffs`, {
    config: { auth: 'optional' },
    schema: { params: MergeRequestParams, querystring: Pagination, response: { 200: Type.Array(DiffEntry) } },
  }, async (req, reply) => {
    const { mergeRequest: mr } = await loadMergeRequest(req, req.params.id, req.params.merge_request_iid)
    return sendArrayPage(req, reply, (await diffsOf(req, mr)).diffs, req.query, presentDiff)
  })
}

export default mergeRequestGit
