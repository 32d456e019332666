// Award emoji (the original's AwardEmoji API of release 11.5) on issues, merge requests and project
// snippets (…/award_emoji) and on their notes (…/notes/:note_id/award_emoji): list, get
// (`:award_id`), award (`name` without colons; 201) and take back (its awarder or an admin; 204).
// As the original: an unknown emoji or a repeated award is 404 `Award Emoji {:name=>[…]}`, and a
// thumbsup or thumbsdown on what the caller wrote is 404 `Award Emoji`. Readers of the awardable
// see its awards; signed-in readers award, except on archived projects (403).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { AwardEmojiRow } from '../../db/schema.js'
import { fitsIntegerColumn } from '../../db/values.js'
import { AwardEmoji, presentAwardEmoji, type AwardEmojiEntity } from '../../entities/award-emoji.js'
import { findAward, findAwards, loadAwardViews } from '../../finders/award-emoji-finder.js'
import { awardEmoji, removeAwardEmoji, type Awardable } from '../../services/award-emoji/award-emoji.js'
import type { NoteableType } from '../../services/notes/noteable.js'
import { notFound } from '../../common/errors.js'
import { authorize, requireActor, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { paginate } from '../../common/pages.js'
import { Pagination } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { presentCtx } from '../present.js'
import { NOTEABLE_ROUTES, NoteIdParam, loadNote, loadNoteable } from './notes.js'

interface LoadedAwardable extends LoadedProject {
  awardable: Awardable
}

/** The issue, merge request or snippet of the route, or its note `:note_id`: 404 unless readable. */
async function loadAwardable(req: FastifyRequest, type: NoteableType, onNote: boolean): Promise<LoadedAwardable> {
  const loaded = await loadNoteable(req, type)
  const { noteable } = loaded
  if (!onNote) return { ...loaded, awardable: { type: noteable.type, id: noteable.id, authorId: noteable.authorId } }
  const note = await loadNote(req, noteable, (req.params as { note_id: number }).note_id)
  return { ...loaded, awardable: { type: 'Note', id: note.id, authorId: note.author_id } }
}

async function loadAward(req: FastifyRequest, awardable: Awardable, awardId: number): Promise<AwardEmojiRow> {
  const award = fitsIntegerColumn(awardId) ? await findAward(req.ingot.db, awardable, awardId) : null
  if (award === null) throw notFound('Award Emoji')
  return award
}

async function presentAward(req: FastifyRequest, award: AwardEmojiRow): Promise<AwardEmojiEntity> {
  const [view] = await loadAwardViews(req.ingot.db, [award])
  if (view === undefined) throw notFound('Award Emoji')
  return presentAwardEmoji(view, presentCtx(req))
}

const AwardIdParam = Type.Object({ award_id: Type.Integer() })
const AwardBody = Type.Object({ name: Type.String({ description: 'The name of the emoji, without colons' }) })

const awardEmojiRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const route of NOTEABLE_ROUTES) {
    const targets = [
      { path: `${route.path}/award_emoji`, params: route.params, onNote: false },
      { path: `${route.path}/notes/:note_id/award_emoji`, params: Type.Composite([route.params, NoteIdParam]), onNote: true },
    ]
    for (const target of targets) {
      const awardParams = Type.Composite([target.params, AwardIdParam])

      app.get(target.path, {
        schema: { params: target.params, querystring: Pagination, response: { 200: Type.Array(AwardEmoji) } },
      }, async (req, reply) => {
        const { awardable } = await loadAwardable(req, route.type, target.onNote)
        const { db } = req.ingot
        const page = await paginate(db, findAwards(db, awardable), req.query)
        setPaginationHeaders(req, reply, page)
        const ctx = presentCtx(req)
        return (await loadAwardViews(db, page.items)).map((view) => presentAwardEmoji(view, ctx))
      })

      app.get(`${target.path}/:award_id`, {
        schema: { params: awardParams, response: { 200: AwardEmoji } },
      }, async (req) => {
        const { awardable } = await loadAwardable(req, route.type, target.onNote)
        return presentAward(req, await loadAward(req, awardable, req.params.award_id))
      })

      app.post(target.path, {
        schema: { params: target.params, body: AwardBody, response: { 201: AwardEmoji } },
      }, async (req, reply) => {
        const actor = requireActor(req)
        const loaded = await loadAwardable(req, route.type, target.onNote)
        authorize(loaded.project.archived === 0)
        const award = await awardEmoji(req.ingot.db, loaded.awardable, actor.user.id, req.body.name)
        reply.code(201)
        return presentAward(req, award)
      })

      app.delete(`${target.path}/:award_id`, {
        schema: { params: awardParams },
      }, async (req, reply) => {
        const actor = requireActor(req)
        const { awardable } = await loadAwardable(req, route.type, target.onNote)
        const award = await loadAward(req, awardable, req.params.award_id)
        authorize(award.user_id === actor.user.id || actor.user.admin === 1)
        checkUnmodifiedSince(req, award.updated_at)
        await removeAwardEmoji(req.ingot.db, awardable, award)
        return reply.code(204).send()
      })
    }
  }
}

export default awardEmojiRoutes
