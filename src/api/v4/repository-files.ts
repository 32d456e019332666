// Repository files (spec: Repository files): one file at a ref — Base64 in JSON, metadata only
// (HEAD, the nine X-Service-* headers) or raw — for anyone who may read the code, and create,
// update and delete of one file as one commit (Developer) through commitChanges, so the push rules
// apply and a branch moved meanwhile is a 400, never a lost commit. `:file_path` is URL-encoded
// (`lib%2Fclass.rb`), as the original requires.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, invalidParam, notFound } from '../../common/errors.js'
import { authorize, loadProject, loadProjectFor, requireActor } from '../load.js'
import { IdParams, OneOf } from '../params.js'
import { canOnProject } from '../../policies/project-policy.js'
import { cleanTreePath } from '../../git/tree.js'
import { sendRawBlob, sendStreamedBase64 } from '../blob-replies.js'
import type { GitRepository } from '../../git/repository.js'
import { findFileAtRef, type RepositoryFileView } from '../../services/files/file-at-ref.js'
import { commitChanges, type CommitAction } from '../../services/commits/commit-changes.js'
import { FileCommit, RepositoryFile, fileHeaders, presentFileMetadata, presentRepositoryFile } from '../../entities/repository-file.js'
import { JSON_TYPE } from '../json-type.js'

const FileParams = Type.Composite([IdParams, Type.Object({ file_path: Type.String() })])

const RefQuery = Type.Object({ ref: Type.String({ description: 'Branch, tag or commit' }) })

const CommitFields = {
  branch: Type.String({ description: 'The branch to commit to; with start_branch, a new branch' }),
  commit_message: Type.String(),
  start_branch: Type.Optional(Type.String({ description: 'The branch a new branch starts from' })),
  author_email: Type.Optional(Type.String()),
  author_name: Type.Optional(Type.String()),
}

const CreateBody = Type.Object({
  ...CommitFields,
  content: Type.String(),
  encoding: Type.Optional(OneOf(['text', 'base64'] as const, { description: 'How `content` is sent; default text' })),
})

const UpdateBody = Type.Object({
  ...CreateBody.properties,
  last_commit_id: Type.Optional(Type.String({ description: 'The last commit of the file the caller knows' })),
})

const DeleteQuery = Type.Object({
  ...CommitFields,
  last_commit_id: Type.Optional(Type.String()),
})

type CommitFieldValues = { branch: string; commit_message: string; start_branch?: string; author_email?: string; author_name?: string }

/** Grape's answer to a blank value of a parameter declared `allow_blank: false`. */
function refuseBlank(values: Record<string, string | undefined>): void {
  const blank = Object.entries(values).find(([, value]) => value !== undefined && value.trim() === '')
  if (blank !== undefined) throw new ApiError(400, { error: `${blank[0]} is empty` })
}

interface ReadableFile {
  repo: GitRepository
  file: RepositoryFileView
}

/** The file the request names: 404 for an unknown project, commit or file, 403 without code access. */
async function loadFile(req: FastifyRequest, params: { id: string; file_path: string }, ref: string): Promise<ReadableFile> {
  const loaded = await loadProject(req, params.id)
  authorize(canOnProject(req.actor, loaded, 'download_code'))
  refuseBlank({ ref })
  const path = cleanTreePath(params.file_path)
  if (path === null || path === '') throw invalidParam('file_path')
  const repo = req.ingot.repositories.open(loaded.project.id)
  const lookup = await findFileAtRef(repo, ref, path)
  if ('missing' in lookup) throw notFound(lookup.missing)
  return { repo, file: lookup.found }
}

/** Commits one action on the file; the push rules' refusal or a failed check is the service's 400. */
async function commitFileAction(
  req: FastifyRequest, projectId: string, fields: CommitFieldValues, action: CommitAction, refuseEmptyCommit: boolean,
): Promise<void> {
  refuseBlank({ branch: fields.branch, commit_message: fields.commit_message })
  const loaded = await loadProjectFor(req, projectId, 'push_code')
  await commitChanges(req.ingot, loaded, requireActor(req), {
    branch: fields.branch,
    ...(fields.start_branch === undefined ? {} : { startBranch: fields.start_branch }),
    message: fields.commit_message,
    actions: [action],
    ...(fields.author_name === undefined ? {} : { authorName: fields.author_name }),
    ...(fields.author_email === undefined ? {} : { authorEmail: fields.author_email }),
    refuseEmptyCommit,
  })
}

function sendHeadersOnly(reply: FastifyReply, file: RepositoryFileView) {
  return reply.headers(fileHeaders(file)).header('content-type', JSON_TYPE).code(200).send()
}

const repositoryFiles: FastifyPluginAsyncTypebox = async (app) => {
  const base = '/projects/:id/repository/files/:file_path'

  // HEAD routes come before their GET, which would otherwise answer HEAD by reading the content.
  app.head(base, {
    config: { auth: 'optional' },
    schema: { params: FileParams, querystring: RefQuery },
  }, async (req, reply) => sendHeadersOnly(reply, (await loadFile(req, req.params, req.query.ref)).file))

  app.head(`${base}/raw`, {
    config: { auth: 'optional' },
    schema: { params: FileParams, querystring: RefQuery },
  }, async (req, reply) => sendHeadersOnly(reply, (await loadFile(req, req.params, req.query.ref)).file))

  app.get(base, {
    config: { auth: 'optional' },
    schema: { params: FileParams, querystring: RefQuery, response: { 200: RepositoryFile } },
  }, async (req, reply) => {
    const { repo, file } = await loadFile(req, req.params, req.query.ref)
    reply.headers(fileHeaders(file))
    if (file.data !== null) return presentRepositoryFile({ ...file, data: file.data })
    // Too large to hold: the same object, its content encoded as it streams from git.
    const metadata = JSON.stringify(presentFileMetadata(file))
    return sendStreamedBase64(reply, repo, file.blobId, `${metadata.slice(0, -1)},"content":"`, '"}')
  })

  app.get(`${base}/raw`, {
    config: { auth: 'optional' },
    schema: { params: FileParams, querystring: RefQuery },
  }, async (req, reply) => {
    const { repo, file } = await loadFile(req, req.params, req.query.ref)
    return sendRawBlob(reply.headers(fileHeaders(file)).header('cache-control', 'no-cache'), repo, { oid: file.blobId, size: file.size, data: file.data })
  })

  app.post(base, {
    schema: { params: FileParams, body: CreateBody, response: { 201: FileCommit } },
  }, async (req, reply) => {
    const { body } = req
    await commitFileAction(req, req.params.id, body, {
      action: 'create', file_path: req.params.file_path, content: body.content, encoding: body.encoding ?? 'text',
    }, false)
    return reply.code(201).send({ file_path: req.params.file_path, branch: body.branch })
  })

  app.put(base, {
    schema: { params: FileParams, body: UpdateBody, response: { 200: FileCommit } },
  }, async (req) => {
    const { body } = req
    await commitFileAction(req, req.params.id, body, {
      action: 'update', file_path: req.params.file_path, content: body.content, encoding: body.encoding ?? 'text',
      ...(body.last_commit_id === undefined ? {} : { last_commit_id: body.last_commit_id }),
    }, true)
    return { file_path: req.params.file_path, branch: body.branch }
  })

  app.delete(base, {
    schema: { params: FileParams, querystring: DeleteQuery },
  }, async (req, reply) => {
    const { query } = req
    await commitFileAction(req, req.params.id, query, {
      action: 'delete', file_path: req.params.file_path,
      ...(query.last_commit_id === undefined ? {} : { last_commit_id: query.last_commit_id }),
    }, false)
    return reply.code(204).send()
  })
}

export default repositoryFiles
