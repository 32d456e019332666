// Discussions (spec: Discussions) of issues, project snippets and merge requests: list (by their
// first notes, paginated by discussion), get (`:discussion_id`, the 40-hex id), start one (201, the
// discussion; resolvable on merge requests, and on a line of a merge request's diff with
// `position`), reply (201, the note; replying to a note posted on its own makes it a discussion), edit a note's body or — on resolvable notes — `resolved`
// (exactly one of the two), delete a note (204), and on merge requests resolve or unresolve a
// whole discussion (PUT …/discussions/:discussion_id with `resolved`: its author or a Developer).
// Permissions as for notes (see notes.ts): 404 for what the caller may not read, 403 for writes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { NoteRow } from '../../db/schema.js'
import { Discussion, presentDiscussion, type DiscussionEntity } from '../../entities/discussion.js'
import { Note } from '../../entities/note.js'
import { findDiscussion, findDiscussionNotes, findDiscussionPage } from '../../finders/notes-finder.js'
import { diffPositionOf, replyToDiscussion, startDiscussion } from '../../services/notes/create-note.js'
import { deleteNote } from '../../services/notes/delete-note.js'
import { canAdminNote, canCreateNote, canResolveDiscussion, canResolveNote } from '../../services/notes/note-rules.js'
import type { Noteable } from '../../services/notes/noteable.js'
import { setDiscussionResolved, setNoteResolved } from '../../services/notes/resolve-notes.js'
import { updateNote } from '../../services/notes/update-note.js'
import { ApiError, badRequestNotGiven, notFound } from '../../common/errors.js'
import { authorize, requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { BooleanParam, Pagination } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { presentCtx } from '../present.js'
import {
  NOTEABLE_ROUTES, NoteBody, NoteIdParam, allowedCreatedAt, loadNote, loadNoteable,
  presentNoteRow, type LoadedNoteable,
} from './notes.js'

const DiscussionIdParam = Type.Object({ discussion_id: Type.String({ minLength: 1 }) })

const UpdateNoteBody = Type.Object({
  body: Type.Optional(Type.String()),
  resolved: Type.Optional(BooleanParam({ description: 'Resolve or unresolve a resolvable note' })),
})

const ResolveBody = Type.Object({ resolved: BooleanParam() })

// A merge request discussion may start on a line of its diff (spec: Discussions, "Create new merge
// request thread"): the sha fields are taken as given (the diff a note sits on is the current one).
const DiscussionBody = Type.Composite([NoteBody, Type.Object({
  position: Type.Optional(Type.Object({
    base_sha: Type.Optional(Type.String()),
    start_sha: Type.Optional(Type.String()),
    head_sha: Type.Optional(Type.String()),
    position_type: Type.Optional(Type.Literal('text')),
    new_path: Type.Optional(Type.String()),
    old_path: Type.Optional(Type.String()),
    new_line: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    old_line: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  })),
})])

async function presentDiscussionOf(req: FastifyRequest, noteable: Noteable, discussionId: string): Promise<DiscussionEntity> {
  const discussion = await findDiscussion(req.ingot.db, noteable, discussionId)
  if (discussion === null) throw notFound('Discussion')
  return presentDiscussion(discussion, presentCtx(req))
}

/** The notes of the route's discussion, oldest first: 404 'Discussion' when it has none. */
async function loadDiscussionNotes(req: FastifyRequest, noteable: Noteable, discussionId: string): Promise<NoteRow[]> {
  const notes = await findDiscussionNotes(req.ingot.db, noteable, discussionId)
  if (notes.length === 0) throw notFound('Discussion')
  return notes
}

/** A note of the route's discussion: 404 'Note' when the discussion does not hold it. */
async function loadDiscussionNote(req: FastifyRequest, loaded: LoadedNoteable, discussionId: string, noteId: number): Promise<NoteRow> {
  await loadDiscussionNotes(req, loaded.noteable, discussionId)
  const note = await loadNote(req, loaded.noteable, noteId)
  if (note.discussion_id !== discussionId) throw notFound('Note')
  return note
}

const discussions: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of NOTEABLE_ROUTES) {
    const base = `${route.path}/discussions`
    const discussionParams = Type.Composite([route.params, DiscussionIdParam])
    const noteParams = Type.Composite([route.params, DiscussionIdParam, NoteIdParam])

    app.get(base, {
      schema: { params: route.params, querystring: Pagination, response: { 200: Type.Array(Discussion) } },
    }, async (req, reply) => {
      const { noteable } = await loadNoteable(req, route.type)
      const page = await findDiscussionPage(req.ingot.db, noteable, req.query)
      setPaginationHeaders(req, reply, page)
      const ctx = presentCtx(req)
      return page.items.map((view) => presentDiscussion(view, ctx))
    })

    app.get(`${base}/:discussion_id`, {
      schema: { params: discussionParams, response: { 200: Discussion } },
    }, async (req) => {
      const { noteable } = await loadNoteable(req, route.type)
      return presentDiscussionOf(req, noteable, req.params.discussion_id)
    })

    app.post(base, {
      schema: { params: route.params, body: DiscussionBody, response: { 201: Discussion } },
    }, async (req, reply) => {
      const actor = requireActor(req)
      const loaded = await loadNoteable(req, route.type)
      authorize(canCreateNote(actor, loaded, loaded.noteable))
      const { position } = req.body
      const note = await startDiscussion(req.ingot, {
        noteable: loaded.noteable, authorId: actor.user.id, body: req.body.body,
        createdAt: allowedCreatedAt(actor, loaded, req.body.created_at),
      }, route.type === 'MergeRequest' && position !== undefined ? diffPositionOf(position) : undefined)
      reply.code(201)
      return presentDiscussionOf(req, loaded.noteable, note.discussion_id ?? '')
    })

    app.post(`${base}/:discussion_id/notes`, {
      schema: { params: discussionParams, body: NoteBody, response: { 201: Note } },
    }, async (req, reply) => {
      const actor = requireActor(req)
      const loaded = await loadNoteable(req, route.type)
      const discussion = await loadDiscussionNotes(req, loaded.noteable, req.params.discussion_id)
      authorize(canCreateNote(actor, loaded, loaded.noteable))
      const note = await replyToDiscussion(req.ingot, {
        noteable: loaded.noteable, authorId: actor.user.id, body: req.body.body,
        createdAt: allowedCreatedAt(actor, loaded, req.body.created_at),
      }, discussion)
      reply.code(201)
      return presentNoteRow(req, loaded.noteable, note)
    })

    app.put(`${base}/:discussion_id/notes/:note_id`, {
      schema: { params: noteParams, body: UpdateNoteBody, response: { 200: Note } },
    }, async (req) => {
      const { body, resolved } = req.body
      if (body === undefined && resolved === undefined) {
        throw new ApiError(400, { error: 'body, resolved are missing, exactly one parameter must be provided' })
      }
      if (body !== undefined && resolved !== undefined) throw new ApiError(400, { error: 'body, resolved are mutually exclusive' })
      const loaded = await loadNoteable(req, route.type)
      const { db } = req.ingot
      if (resolved !== undefined) {
        const actor = requireActor(req)
        const note = await loadDiscussionNote(req, loaded, req.params.discussion_id, req.params.note_id)
        authorize(canResolveNote(actor, loaded, loaded.noteable, note))
        if (note.resolvable !== 1) throw badRequestNotGiven('Note is not resolvable')
        return presentNoteRow(req, loaded.noteable, await setNoteResolved(db, note, actor.user.id, resolved))
      }
      const note = await loadDiscussionNote(req, loaded, req.params.discussion_id, req.params.note_id)
      authorize(canAdminNote(req.actor, loaded, loaded.noteable, note))
      return presentNoteRow(req, loaded.noteable, await updateNote(db, loaded.noteable, note, body ?? ''))
    })

    app.delete(`${base}/:discussion_id/notes/:note_id`, {
      schema: { params: noteParams },
    }, async (req, reply) => {
      const loaded = await loadNoteable(req, route.type)
      const note = await loadDiscussionNote(req, loaded, req.params.discussion_id, req.params.note_id)
      authorize(canAdminNote(req.actor, loaded, loaded.noteable, note))
      checkUnmodifiedSince(req, note.updated_at)
      await deleteNote(req.ingot.db, loaded.noteable, note)
      return reply.code(204).send()
    })

    if (route.type === 'MergeRequest') {
      app.put(`${base}/:discussion_id`, {
        schema: { params: discussionParams, body: ResolveBody, response: { 200: Discussion } },
      }, async (req) => {
        const actor = requireActor(req)
        const loaded = await loadNoteable(req, route.type)
        const notes = await loadDiscussionNotes(req, loaded.noteable, req.params.discussion_id)
        // As the original: a discussion without resolvable notes cannot be resolved by anyone.
        authorize(notes.some((note) => note.resolvable === 1) && canResolveDiscussion(actor, loaded, loaded.noteable))
        await setDiscussionResolved(req.ingot.db, loaded.noteable.id, req.params.discussion_id, actor.user.id, req.body.resolved)
        return presentDiscussionOf(req, loaded.noteable, req.params.discussion_id)
      })
    }
  }
}

export default discussions
