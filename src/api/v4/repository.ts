// Repository reads (spec: Repository): tree, blobs (Base64 info and raw), archive, compare,
// contributors and merge_base. Anyone who may read a project's code may call them, anonymous
// callers included on public projects; large answers (archives, big blobs) stream from git.
import { attachmentDisposition } from '../attachment.js'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ApiError, apiError, invalidParam, notFound } from '../../common/errors.js'
import { defaultRevision, loadRepository } from '../load.js'
import { sendArrayPage } from '../pagination.js'
import { BooleanParam, IdParams, OneOf, Pagination, SortParam } from '../params.js'
import { cleanTreePath, readTree } from '../../git/tree.js'
import { openBlob } from '../../git/blob.js'
import { sendRawBlob, sendStreamedBase64 } from '../blob-replies.js'
import {
  ARCHIVE_SUFFIXES, ArchiverMissingError, archiveContentType, archiveExtension, archivePrefix, streamArchive,
} from '../../git/archive.js'
import { compareCommits } from '../../git/compare.js'
import { contributorsOf, sortContributors, type ContributorOrder } from '../../git/contributors.js'
import { CommitBasic, presentCommit } from '../../entities/commit.js'
import {
  BlobInfo, CompareResult, Contributor, TreeEntry, presentBlobInfo, presentCompare, presentContributor, presentTreeEntry,
} from '../../entities/repository.js'

const BlobParams = Type.Composite([IdParams, Type.Object({ sha: Type.String() })])

const TreeQuery = Type.Composite([Type.Object({
  ref: Type.Optional(Type.String({ description: 'Branch, tag or commit; default the default branch' })),
  path: Type.Optional(Type.String({ description: 'A directory inside the repository' })),
  recursive: BooleanParam({ default: false }),
}), Pagination])

const ArchiveQuery = Type.Object({
  sha: Type.Optional(Type.String({ description: 'Commit, branch or tag; default the tip of the default branch' })),
  format: Type.Optional(Type.String({ description: 'tar.gz (default), tar.bz2, tbz, tbz2, tb2, bz2, tar or zip' })),
})

const ArchiveSuffixParams = Type.Composite([IdParams, Type.Object({ format: OneOf(ARCHIVE_SUFFIXES) })])

const CompareQuery = Type.Object({
  from: Type.String(),
  to: Type.String(),
  straight: BooleanParam({ default: false }),
})

const ContributorsQuery = Type.Composite([Type.Object({
  order_by: OneOf<ContributorOrder>(['name', 'email', 'commits'], { default: 'commits' }),
  sort: SortParam('asc'),
}), Pagination])

const MergeBaseQuery = Type.Object({ refs: Type.Array(Type.String()) })

async function sendArchive(req: FastifyRequest, reply: FastifyReply, id: string, sha: string | undefined, format: string | undefined) {
  const loaded = await loadRepository(req, id)
  const ref = sha ?? loaded.project.default_branch ?? await loaded.repo.headBranch() ?? 'HEAD'
  const commit = await loaded.repo.resolveCommit(ref)
  if (commit === null) throw notFound('File')
  const extension = archiveExtension(format)
  const prefix = archivePrefix(loaded.project.path, ref, commit)
  let archive
  try {
    archive = streamArchive(loaded.repo, commit, prefix, extension)
  } catch (err) {
    if (err instanceof ArchiverMissingError) {
      throw new ApiError(501, { message: `${extension} archives are not available: the ${err.program} program is not installed on this server` })
    }
    throw err
  }
  return reply
    .header('content-type', archiveContentType(extension))
    .header('content-disposition', attachmentDisposition(`${prefix}.${extension}`))
    .header('content-transfer-encoding', 'binary')
    .send(archive)
}

const repository: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects/:id/repository/tree', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: TreeQuery, response: { 200: Type.Array(TreeEntry) } },
  }, async (req, reply) => {
    const loaded = await loadRepository(req, req.params.id)
    const path = cleanTreePath(req.query.path ?? '')
    if (path === null) throw invalidParam('path')
    const commit = await loaded.repo.resolveCommit(req.query.ref ?? defaultRevision(loaded))
    const entries = commit === null ? null : await readTree(loaded.repo, commit, path, req.query.recursive)
    if (entries === null) throw notFound('Tree')
    return sendArrayPage(req, reply, entries, req.query, presentTreeEntry)
  })

  app.get('/projects/:id/repository/blobs/:sha', {
    config: { auth: 'optional' },
    schema: { params: BlobParams, response: { 200: BlobInfo } },
  }, async (req, reply) => {
    const { repo } = await loadRepository(req, req.params.id)
    const blob = await openBlob(repo, req.params.sha)
    if (blob === null) throw notFound('Blob')
    if (blob.data !== null) return presentBlobInfo(blob)
    // Too large to hold: the same object, its content encoded as it streams from git.
    return sendStreamedBase64(reply, repo, blob.oid, `{"size":${blob.size},"encoding":"base64","content":"`, `","sha":"${blob.oid}"}`)
  })

  app.get('/projects/:id/repository/blobs/:sha/raw', {
    config: { auth: 'optional' },
    schema: { params: BlobParams },
  }, async (req, reply) => {
    const { repo } = await loadRepository(req, req.params.id)
    const blob = await openBlob(repo, req.params.sha)
    if (blob === null) throw notFound('Blob')
    return sendRawBlob(reply, repo, blob)
  })

  app.get('/projects/:id/repository/archive', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: ArchiveQuery },
  }, async (req, reply) => sendArchive(req, reply, req.params.id, req.query.sha, req.query.format))

  // The format as a suffix of the path (`archive.zip`), as the original also takes it.
  app.get('/projects/:id/repository/archive.:format', {
    config: { auth: 'optional' },
    schema: { params: ArchiveSuffixParams, querystring: ArchiveQuery },
  }, async (req, reply) => sendArchive(req, reply, req.params.id, req.query.sha, req.params.format))

  app.get('/projects/:id/repository/compare', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: CompareQuery, response: { 200: CompareResult } },
  }, async (req) => {
    const { repo } = await loadRepository(req, req.params.id)
    const [from, to] = await Promise.all([repo.resolveCommit(req.query.from), repo.resolveCommit(req.query.to)])
    if (from === null || to === null) throw notFound('Ref')
    return presentCompare(await compareCommits(repo, from, to, req.query.straight))
  })

  app.get('/projects/:id/repository/contributors', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: ContributorsQuery, response: { 200: Type.Array(Contributor) } },
  }, async (req, reply) => {
    const loaded = await loadRepository(req, req.params.id)
    const commit = await loaded.repo.resolveCommit(defaultRevision(loaded))
    const contributors = commit === null ? [] : await contributorsOf(loaded.repo, commit)
    return sendArrayPage(req, reply, sortContributors(contributors, req.query.order_by, req.query.sort), req.query, presentContributor)
  })

  app.get('/projects/:id/repository/merge_base', {
    config: { auth: 'optional' },
    schema: { params: IdParams, querystring: MergeBaseQuery, response: { 200: CommitBasic } },
  }, async (req) => {
    const { repo } = await loadRepository(req, req.params.id)
    const refs = req.query.refs
    if (refs.length < 2) throw apiError(400, 'Provide at least 2 refs')
    const commits = await Promise.all(refs.map((ref) => repo.resolveCommit(ref)))
    const unknown = refs.filter((_ref, i) => commits[i] === null)
    if (unknown.length > 0) throw apiError(400, `Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`)
    const base = await repo.mergeBase(...commits.filter((id): id is string => id !== null))
    const commit = base === null ? null : await repo.readCommit(base)
    if (commit === null) throw notFound('Merge Base')
    return presentCommit(commit)
  })
}

export default repository
