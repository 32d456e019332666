// Notes (spec: Notes) on issues (/projects/:id/issues/:issue_iid/notes), merge requests
// (…/merge_requests/:merge_request_iid/notes) and project snippets (…/snippets/:snippet_id/notes):
// list (`order_by` created_at|updated_at, `sort` default desc; system notes included), get,
// create (201; `created_at` honoured for admins and the project's owners only; a body that is a
// lone emoji awards it instead and answers the award), update and delete (the author or a
// Maintainer). Every route needs a signed-in caller, as the original's; a noteable the caller may
// not read is 404 (confidential issues included), a write they may not make 403.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type TObject } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { Actor } from '../../auth/actor.js'
import type { NoteRow } from '../../db/schema.js'
import { fitsIntegerColumn } from '../../db/values.js'
import { AwardEmoji, presentAwardEmoji } from '../../entities/award-emoji.js'
import { Note, presentNote, type NoteEntity } from '../../entities/note.js'
import { loadAwardViews } from '../../finders/award-emoji-finder.js'
import { findNote, findNotes, loadNoteViews } from '../../finders/notes-finder.js'
import { isProjectOwner } from '../../policies/project-policy.js'
import { postNote } from '../../services/notes/create-note.js'
import { deleteNote } from '../../services/notes/delete-note.js'
import { canAdminNote, canCreateNote } from '../../services/notes/note-rules.js'
import {
  issueNoteable, mergeRequestNoteable, snippetNoteable, type Noteable, type NoteableType,
} from '../../services/notes/noteable.js'
import { updateNote } from '../../services/notes/update-note.js'
import { notFound } from '../../common/errors.js'
import { authorize, loadIssue, loadMergeRequest, requireActor, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { paginate } from '../../common/pages.js'
import { DateTimeParam, IdParams, OneOf, Pagination, SortParam } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { presentCtx } from '../present.js'
import { loadSnippet } from './snippets.js'

/** The three kinds of noteable and the path below /api/v4 that names one of each. */
export const NOTEABLE_ROUTES = [
  { type: 'Issue', path: '/projects/:id/issues/:issue_iid', params: Type.Composite([IdParams, Type.Object({ issue_iid: Type.Integer() })]) },
  {
    type: 'MergeRequest', path: '/projects/:id/merge_requests/:merge_request_iid',
    params: Type.Composite([IdParams, Type.Object({ merge_request_iid: Type.Integer() })]),
  },
  { type: 'Snippet', path: '/projects/:id/snippets/:snippet_id', params: Type.Composite([IdParams, Type.Object({ snippet_id: Type.Integer() })]) },
] as const satisfies readonly { type: NoteableType; path: string; params: TObject }[]

interface NoteableParams {
  id: string
  issue_iid?: number
  merge_request_iid?: number
  snippet_id?: number
}

export interface LoadedNoteable extends LoadedProject {
  noteable: Noteable
}

/** The noteable the route's path names: 404 unless the caller may read it. */
export async function loadNoteable(req: FastifyRequest, type: NoteableType): Promise<LoadedNoteable> {
  const params = req.params as NoteableParams
  switch (type) {
    case 'Issue': {
      const loaded = await loadIssue(req, params.id, Number(params.issue_iid))
      return { ...loaded, noteable: issueNoteable(loaded.issue) }
    }
    case 'MergeRequest': {
      const loaded = await loadMergeRequest(req, params.id, Number(params.merge_request_iid))
      return { ...loaded, noteable: mergeRequestNoteable(loaded.mergeRequest) }
    }
    case 'Snippet': {
      const loaded = await loadSnippet(req, params.id, Number(params.snippet_id))
      return { ...loaded, noteable: snippetNoteable(loaded.snippet) }
    }
  }
}

/** A note of the noteable by id: 404 'Note' otherwise. */
export async function loadNote(req: FastifyRequest, noteable: Noteable, noteId: number): Promise<NoteRow> {
  const note = fitsIntegerColumn(noteId) ? await findNote(req.ingot.db, noteable, noteId) : null
  if (note === null) throw notFound('Note')
  return note
}

/** A creation time the caller asked for, kept only for admins and the project's owners (else now). */
export function allowedCreatedAt(actor: Actor, loaded: LoadedProject, createdAt: number | undefined): number | undefined {
  return createdAt !== undefined && (actor.user.admin === 1 || isProjectOwner(actor, loaded)) ? createdAt : undefined
}

export async function presentNoteRow(req: FastifyRequest, noteable: Noteable, note: NoteRow): Promise<NoteEntity> {
  const [view] = await loadNoteViews(req.ingot.db, [note], noteable)
  if (view === undefined) throw notFound('Note')
  return presentNote(view, presentCtx(req))
}

/** The note of the route (`:note_id`) that the caller may edit or delete: 404, then 403. */
async function loadNoteToAdmin(req: FastifyRequest, loaded: LoadedNoteable, noteId: number): Promise<NoteRow> {
  const note = await loadNote(req, loaded.noteable, noteId)
  authorize(canAdminNote(req.actor, loaded, loaded.noteable, note))
  return note
}

export const NoteIdParam = Type.Object({ note_id: Type.Integer() })

export const NoteBody = Type.Object({
  body: Type.String({ description: 'The content of the note' }),
  created_at: Type.Optional(DateTimeParam({ description: 'ISO 8601; for admins and project or group owners' })),
})

const ListQuery = Type.Composite([Pagination, Type.Object({
  order_by: OneOf(['created_at', 'updated_at'] as const, { default: 'created_at' }),
  sort: SortParam('desc'),
})])

const UpdateBody = Type.Object({ body: Type.String() })

const notes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of NOTEABLE_ROUTES) {
    const noteParams = Type.Composite([route.params, NoteIdParam])

    app.get(`${route.path}/notes`, {
      schema: { params: route.params, querystring: ListQuery, response: { 200: Type.Array(Note) } },
    }, async (req, reply) => {
      const { noteable } = await loadNoteable(req, route.type)
      const { db } = req.ingot
      const page = await paginate(db, findNotes(db, noteable, {
        orderBy: req.query.order_by === 'updated_at' ? 'updated_at' : 'created_at', sort: req.query.sort,
      }), req.query)
      setPaginationHeaders(req, reply, page)
      const ctx = presentCtx(req)
      return (await loadNoteViews(db, page.items, noteable)).map((view) => presentNote(view, ctx))
    })

    app.get(`${route.path}/notes/:note_id`, {
      schema: { params: noteParams, response: { 200: Note } },
    }, async (req) => {
      const { noteable } = await loadNoteable(req, route.type)
      return presentNoteRow(req, noteable, await loadNote(req, noteable, req.params.note_id))
    })

    app.post(`${route.path}/notes`, {
      schema: { params: route.params, body: NoteBody, response: { 201: Type.Union([Note, AwardEmoji]) } },
    }, async (req, reply) => {
      const actor = requireActor(req)
      const loaded = await loadNoteable(req, route.type)
      authorize(canCreateNote(actor, loaded, loaded.noteable))
      const result = await postNote(req.ingot, {
        noteable: loaded.noteable, authorId: actor.user.id, body: req.body.body,
        createdAt: allowedCreatedAt(actor, loaded, req.body.created_at),
      })
      switch (result.kind) {
        case 'award': {
          const [view] = await loadAwardViews(req.ingot.db, [result.award])
          if (view === undefined) throw notFound('Award Emoji')
          reply.code(201)
          return presentAwardEmoji(view, presentCtx(req))
        }
        case 'note':
          reply.code(201)
          return presentNoteRow(req, loaded.noteable, result.note)
      }
    })

    app.put(`${route.path}/notes/:note_id`, {
      schema: { params: noteParams, body: UpdateBody, response: { 200: Note } },
    }, async (req) => {
      const loaded = await loadNoteable(req, route.type)
      const note = await loadNoteToAdmin(req, loaded, req.params.note_id)
      const updated = await updateNote(req.ingot.db, loaded.noteable, note, req.body.body)
      return presentNoteRow(req, loaded.noteable, updated)
    })

    app.delete(`${route.path}/notes/:note_id`, {
      schema: { params: noteParams },
    }, async (req, reply) => {
      const loaded = await loadNoteable(req, route.type)
      const note = await loadNoteToAdmin(req, loaded, req.params.note_id)
      checkUnmodifiedSince(req, note.updated_at)
      await deleteNote(req.ingot.db, loaded.noteable, note)
      return reply.code(204).send()
    })
  }
}

export default notes
