// Project snippets (the original's ProjectSnippets API of release 11.5): list (newest first) and get
// the snippets the caller may see, create (Reporter; `code`, or `content` as later releases name
// it; without `visibility`, the instance's default_snippet_visibility, where 11.5 required it),
// update (its author or a Maintainer; at least one field), delete (the same; 204) and the raw
// content as text/plain. Like the original, every route needs a signed-in
// caller; a snippet the caller may not see is 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { fitsIntegerColumn } from '../../db/values.js'
import { projectFullPath } from '../../entities/project.js'
import { ProjectSnippet, presentProjectSnippet } from '../../entities/snippet.js'
import { findProjectSnippet, findProjectSnippets, loadSnippetViews } from '../../finders/snippets-finder.js'
import { visibilityLevel, VISIBILITIES } from '../../policies/access-levels.js'
import { canAdminSnippet, canCreateSnippet, canReadSnippet } from '../../services/snippets/snippet-rules.js'
import {
  createSnippet, deleteSnippet, updateSnippet, type ProjectSnippetRow, type SnippetFields,
} from '../../services/snippets/snippets.js'
import { ApiError, missingOneOf, notFound } from '../../common/errors.js'
import { authorize, loadProject, requireActor, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { paginate } from '../../common/pages.js'
import { IdParams, OneOf, Pagination } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { presentCtx } from '../present.js'
import { sendRawText } from '../blob-replies.js'

export interface LoadedSnippet extends LoadedProject {
  snippet: ProjectSnippetRow
}

/** A snippet of the project by id: 404 'Snippet' unless the caller may see it. */
export async function loadSnippet(req: FastifyRequest, idOrPath: string, snippetId: number): Promise<LoadedSnippet> {
  const loaded = await loadProject(req, idOrPath)
  const snippet = fitsIntegerColumn(snippetId)
    ? await findProjectSnippet(req.ingot.db, loaded.project.id, snippetId)
    : null
  if (snippet === null || !canReadSnippet(req.actor, loaded, snippet)) throw notFound('Snippet')
  return { ...loaded, snippet }
}

export const SnippetParams = Type.Composite([IdParams, Type.Object({ snippet_id: Type.Integer() })])

const Visibility = OneOf(VISIBILITIES, { description: 'private, internal or public' })

const CreateBody = Type.Object({
  title: Type.String(),
  file_name: Type.String(),
  code: Type.Optional(Type.String({ description: 'The content of the snippet' })),
  content: Type.Optional(Type.String({ description: 'The content of the snippet, as later releases name it' })),
  description: Type.Optional(Type.String()),
  visibility: Type.Optional(Visibility),
})

const UpdateBody = Type.Object({
  title: Type.Optional(Type.String()),
  file_name: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  content: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  visibility: Type.Optional(Visibility),
})

async function presentOne(req: FastifyRequest, loaded: LoadedProject, snippet: ProjectSnippetRow) {
  const [view] = await loadSnippetViews(req.ingot.db, [snippet], projectFullPath(loaded))
  if (view === undefined) throw notFound('Snippet')
  return presentProjectSnippet(view, presentCtx(req))
}

const snippets: FastifyPluginAsyncTypebox = async (app) => {
  const base = '/projects/:id/snippets'

  app.get(base, {
    schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(ProjectSnippet) } },
  }, async (req, reply) => {
    const loaded = await loadProject(req, req.params.id)
    const { db } = req.ingot
    const page = await paginate(db, findProjectSnippets(db, req.actor, loaded), req.query)
    setPaginationHeaders(req, reply, page)
    const ctx = presentCtx(req)
    return (await loadSnippetViews(db, page.items, projectFullPath(loaded))).map((view) => presentProjectSnippet(view, ctx))
  })

  app.get(`${base}/:snippet_id`, {
    schema: { params: SnippetParams, response: { 200: ProjectSnippet } },
  }, async (req) => {
    const loaded = await loadSnippet(req, req.params.id, req.params.snippet_id)
    return presentOne(req, loaded, loaded.snippet)
  })

  app.post(base, {
    schema: { params: IdParams, body: CreateBody, response: { 201: ProjectSnippet } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const loaded = await loadProject(req, req.params.id)
    authorize(canCreateSnippet(actor, loaded))
    const { body } = req
    const content = body.code ?? body.content
    if (content === undefined) throw new ApiError(400, { error: 'code is missing' })
    const snippet = await createSnippet(req.ingot.db, loaded.project.id, actor.user.id, {
      title: body.title,
      fileName: body.file_name,
      content,
      description: body.description ?? null,
      ...(body.visibility === undefined ? {} : { visibilityLevel: visibilityLevel(body.visibility) }),
    })
    reply.code(201)
    return presentOne(req, loaded, snippet)
  })

  app.put(`${base}/:snippet_id`, {
    schema: { params: SnippetParams, body: UpdateBody, response: { 200: ProjectSnippet } },
  }, async (req) => {
    const loaded = await loadSnippet(req, req.params.id, req.params.snippet_id)
    authorize(canAdminSnippet(req.actor, loaded, loaded.snippet))
    const { body } = req
    const changes: Partial<SnippetFields> = {}
    if (body.title !== undefined) changes.title = body.title
    if (body.file_name !== undefined) changes.fileName = body.file_name
    const content = body.code ?? body.content
    if (content !== undefined) changes.content = content
    if (body.description !== undefined) changes.description = body.description
    if (body.visibility !== undefined) changes.visibilityLevel = visibilityLevel(body.visibility)
    if (Object.keys(changes).length === 0) throw missingOneOf('title', 'file_name', 'code', 'description', 'visibility')
    return presentOne(req, loaded, await updateSnippet(req.ingot.db, loaded.snippet, changes))
  })

  app.delete(`${base}/:snippet_id`, {
    schema: { params: SnippetParams },
  }, async (req, reply) => {
    const loaded = await loadSnippet(req, req.params.id, req.params.snippet_id)
    authorize(canAdminSnippet(req.actor, loaded, loaded.snippet))
    checkUnmodifiedSince(req, loaded.snippet.updated_at)
    await deleteSnippet(req.ingot.db, loaded.snippet)
    return reply.code(204).send()
  })

  app.get(`${base}/:snippet_id/raw`, {
    schema: { params: SnippetParams },
  }, async (req, reply) => {
    const { snippet } = await loadSnippet(req, req.params.id, req.params.snippet_id)
    return sendRawText(reply, snippet.content)
  })
}

export default snippets
