// Commits (spec: Commits): the history list (`ref_name`, `since`, `until`, `path`, `all`,
// `with_stats`, paginated), one commit with stats, its refs, diff and comments — anonymous callers
// included on public projects — and the writes: a commit of file actions, cherry-pick and revert
// onto a branch (Developer, and the branch's push rules), and posting a comment (any signed-in
// caller who may read the code).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import {
  CommitBasic, CommitDetail, CommitRef, CommitWithStats, presentCommit, presentCommitDetail, presentCommitWithStats,
  type CommitRefEntity,
} from '../../entities/commit.js'
import { CommitComment, presentCommitComment } from '../../entities/commit-comment.js'
import { DiffEntry, presentDiff } from '../../entities/repository.js'
import { findBranchTip } from '../../git/branches.js'
import { latestPipelineOfCommit } from '../../finders/pipelines-finder.js'
import { protectedBranchesOf } from '../../finders/protected-refs.js'
import { diffCommits } from '../../git/diff.js'
import { commitStats, refsContaining, type HistorySelection } from '../../git/log.js'
import type { Commit, GitRepository } from '../../git/repository.js'
import { cleanTreePath } from '../../git/tree.js'
import { canPushToBranch } from '../../policies/protected-refs.js'
import { commitChanges } from '../../services/commits/commit-changes.js'
import { createCommitComment, listCommitComments, placeComment } from '../../services/commits/commit-comments.js'
import { listCommits } from '../../services/commits/list-commits.js'
import { pickCommit } from '../../services/commits/pick-commit.js'
import { ApiError, apiError, invalidParam, notFound } from '../../common/errors.js'
import { authorize, defaultRevision, loadRepository, requireActor, type LoadedRepository } from '../load.js'
import { sendArrayPage, setPaginationHeaders } from '../pagination.js'
import { BooleanParam, DateTimeParam, IdParams, OneOf, Pagination } from '../params.js'
import { presentCtx } from '../present.js'

/**
 * The project for a write onto `branch`: 403 unless the caller may push to the project and to that
 * branch under its protection rules, as the original checks before anything else.
 */
async function loadBranchWriter(req: FastifyRequest, id: string, branch: string): Promise<LoadedRepository> {
  const loaded = await loadRepository(req, id, 'push_code')
  const rules = await protectedBranchesOf(req.ingot.db, loaded.project.id)
  const admin = req.actor?.user.admin === 1
  authorize(canPushToBranch(rules, branch, loaded.access.level, admin), 'You are not allowed to push into this branch')
  return loaded
}

/** The commit a `:sha` (id, branch or tag) names; 404 Commit Not Found otherwise. */
async function findCommit(repo: GitRepository, sha: string): Promise<Commit> {
  const id = await repo.resolveCommit(sha)
  const commit = id === null ? null : await repo.readCommit(id)
  if (commit === null) throw notFound('Commit')
  return commit
}

/** What `ref_name`/`all` select: null when the project has no commit to start from yet. */
async function historyStart(loaded: LoadedRepository, refName: string | undefined, all: boolean): Promise<string | null> {
  if (all) return null
  if (refName !== undefined && refName !== '') {
    const commit = await loaded.repo.resolveCommit(refName)
    if (commit === null) throw notFound('Ref')
    return commit
  }
  return loaded.repo.resolveCommit(defaultRevision(loaded))
}

const CommitParams = Type.Composite([IdParams, Type.Object({ sha: Type.String({ minLength: 1 }) })])

const ListQuery = Type.Composite([Pagination, Type.Object({
  ref_name: Type.Optional(Type.String({ description: 'A branch or tag; default the default branch' })),
  since: Type.Optional(DateTimeParam({ description: 'Only commits committed at or after this time' })),
  until: Type.Optional(DateTimeParam({ description: 'Only commits committed at or before this time' })),
  path: Type.Optional(Type.String({ description: 'Only commits touching this path' })),
  all: BooleanParam({ default: false, description: 'Every commit of every ref' }),
  with_stats: BooleanParam({ default: false, description: 'Add each commit\'s stats' }),
})])

const StatsQuery = Type.Object({ stats: BooleanParam({ default: true }) })

const RefsQuery = Type.Composite([Pagination, Type.Object({
  type: OneOf(['branch', 'tag', 'all'] as const, { default: 'all' }),
})])

const CommitAction = Type.Object({
  action: OneOf(['create', 'delete', 'move', 'update', 'chmod'] as const),
  file_path: Type.String(),
  previous_path: Type.Optional(Type.String()),
  content: Type.Optional(Type.String()),
  encoding: Type.Optional(OneOf(['text', 'base64'] as const)),
  last_commit_id: Type.Optional(Type.String()),
  execute_filemode: Type.Optional(BooleanParam()),
})

const CreateBody = Type.Object({
  branch: Type.String({ minLength: 1, description: 'The branch to commit to; with start_branch, a new branch' }),
  commit_message: Type.String(),
  start_branch: Type.Optional(Type.String({ description: 'The branch to start a new branch from' })),
  actions: Type.Array(CommitAction),
  author_email: Type.Optional(Type.String()),
  author_name: Type.Optional(Type.String()),
  stats: BooleanParam({ default: true }),
})

const PickBody = Type.Object({ branch: Type.String({ minLength: 1, description: 'The target branch' }) })

const CommentBody = Type.Object({
  note: Type.String(),
  path: Type.Optional(Type.String()),
  line: Type.Optional(Type.Integer()),
  line_type: OneOf<'new' | 'old'>(['new', 'old'], { default: 'new' }),
})

const commits: FastifyPluginAsyncTypebox = async (app) => {
  const base = '/projects/:id/repository/commits'

  app.get(base, {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(CommitWithStats) } },
  }, async (req, reply) => {
    const loaded = await loadRepository(req, req.params.id)
    const { query } = req
    const path = query.path === undefined ? '' : cleanTreePath(query.path)
    if (path === null) throw invalidParam('path')
    const selection: HistorySelection = {
      from: await historyStart(loaded, query.ref_name, query.all),
      all: query.all,
      path: path === '' ? null : path,
      since: query.since ?? null,
      until: query.until ?? null,
    }
    const { page, stats } = await listCommits(loaded.repo, selection, query, query.with_stats)
    setPaginationHeaders(req, reply, page)
    return page.items.map((commit) => presentCommitWithStats(commit, stats?.get(commit.id) ?? null))
  })

  app.post(base, {
    schema: { params: IdParams, body: CreateBody, response: { 201: CommitDetail } },
  }, async (req, reply) => {
    const { body } = req
    const loaded = await loadBranchWriter(req, req.params.id, body.branch)
    const commitId = await commitChanges(req.ingot, loaded, requireActor(req), {
      branch: body.branch,
      ...(body.start_branch === undefined ? {} : { startBranch: body.start_branch }),
      message: body.commit_message,
      actions: body.actions,
      ...(body.author_name === undefined ? {} : { authorName: body.author_name }),
      ...(body.author_email === undefined ? {} : { authorEmail: body.author_email }),
    })
    const commit = await findCommit(loaded.repo, commitId)
    const stats = body.stats ? (await commitStats(loaded.repo, [commit])).get(commit.id) ?? null : null
    reply.code(201)
    return presentCommitDetail(commit, stats, await latestPipelineOfCommit(req.ingot.db, loaded.project.id, commit.id))
  })

  app.get(`${base}/:sha`, {
    config: { auth: 'optional' },
    schema: { params: CommitParams, querystring: StatsQuery, response: { 200: CommitDetail } },
  }, async (req) => {
    const { repo, project } = await loadRepository(req, req.params.id)
    const commit = await findCommit(repo, req.params.sha)
    const stats = req.query.stats ? (await commitStats(repo, [commit])).get(commit.id) ?? null : null
    return presentCommitDetail(commit, stats, await latestPipelineOfCommit(req.ingot.db, project.id, commit.id))
  })

  app.get(`${base}/:sha/refs`, {
    config: { auth: 'optional' },
    schema: { params: CommitParams, querystring: RefsQuery, response: { 200: Type.Array(CommitRef) } },
  }, async (req, reply) => {
    const { repo } = await loadRepository(req, req.params.id)
    const commit = await findCommit(repo, req.params.sha)
    const { type } = req.query
    const refs = await refsContaining(repo, commit.id, { branches: type !== 'tag', tags: type !== 'branch' })
    const entries: CommitRefEntity[] = [
      ...refs.branches.map((name) => ({ type: 'branch' as const, name })),
      ...refs.tags.map((name) => ({ type: 'tag' as const, name })),
    ]
    return sendArrayPage(req, reply, entries, req.query, (entry) => entry)
  })

  app.get(`${base}/:sha/diff`, {
    config: { auth: 'optional' },
    schema: { params: CommitParams, querystring: Pagination, response: { 200: Type.Array(DiffEntry) } },
  }, async (req, reply) => {
    const { repo } = await loadRepository(req, req.params.id)
    const commit = await findCommit(repo, req.params.sha)
    const { diffs } = await diffCommits(repo, commit.parents[0] ?? null, commit.id)
    return sendArrayPage(req, reply, diffs, req.query, presentDiff)
  })

  app.get(`${base}/:sha/comments`, {
    config: { auth: 'optional' },
    schema: { params: CommitParams, querystring: Pagination, response: { 200: Type.Array(CommitComment) } },
  }, async (req, reply) => {
    const loaded = await loadRepository(req, req.params.id)
    const commit = await findCommit(loaded.repo, req.params.sha)
    const page = await listCommitComments(req.ingot.db, loaded.project.id, commit.id, req.query)
    setPaginationHeaders(req, reply, page)
    const ctx = presentCtx(req)
    return page.items.map((view) => presentCommitComment(view, ctx))
  })

  app.post(`${base}/:sha/comments`, {
    schema: { params: CommitParams, body: CommentBody, response: { 201: CommitComment } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const loaded = await loadRepository(req, req.params.id)
    const { body } = req
    // As the original: a path needs its line (line_type defaults to `new`).
    if (body.path !== undefined && body.line === undefined) throw new ApiError(400, { error: 'line is missing' })
    if (body.note.trim() === '') throw apiError(400, 'Failed to save note {:note=>["can\'t be blank"]}')
    const commit = await findCommit(loaded.repo, req.params.sha)
    const placement = body.path === undefined || body.line === undefined
      ? null
      : await placeComment(loaded.repo, commit, { path: body.path, line: body.line, lineType: body.line_type })
    const view = await createCommitComment(req.ingot.db, {
      projectId: loaded.project.id, authorId: actor.user.id, commit, note: body.note, placement,
    })
    reply.code(201)
    return presentCommitComment(view, presentCtx(req))
  })

  for (const [action, mode] of [['cherry_pick', 'cherry-pick'], ['revert', 'revert']] as const) {
    app.post(`${base}/:sha/${action}`, {
      schema: { params: CommitParams, body: PickBody, response: { 201: CommitBasic } },
    }, async (req, reply) => {
      const loaded = await loadBranchWriter(req, req.params.id, req.body.branch)
      const commit = await findCommit(loaded.repo, req.params.sha)
      const branch = await findBranchTip(loaded.repo, req.body.branch)
      if (branch === null) throw notFound('Branch')
      const picked = await pickCommit(req.ingot, loaded, requireActor(req), commit, branch, mode)
      reply.code(201)
      return presentCommit(picked)
    })
  }
}

export default commits
