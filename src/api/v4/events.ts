// Contribution events (spec: Events): GET /events (the caller's own), GET /users/:id/events (by id
// or username) and GET /projects/:id/events, all readable with a read_user token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import type { Scope } from '../../auth/actor.js'
import { Event, presentEvent } from '../../entities/event.js'
import {
  EVENT_ACTIONS, EVENT_TARGET_TYPE_FILTERS, findProjectEvents, findUserEvents, loadEventViews, type EventFilters, type EventsQuery,
} from '../../finders/events-finder.js'
import { loadProject, loadUser, requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { paginate } from '../../common/pages.js'
import { DateParam, IdParams, OneOf, Pagination, SortParam } from '../params.js'
import { presentCtx } from '../present.js'

const EVENT_SCOPES: readonly Scope[] = ['api', 'read_user']

const EventQuery = Type.Composite([Pagination, Type.Object({
  action: Type.Optional(OneOf(EVENT_ACTIONS)),
  target_type: Type.Optional(OneOf(EVENT_TARGET_TYPE_FILTERS)),
  before: Type.Optional(DateParam()),
  after: Type.Optional(DateParam()),
  sort: SortParam('desc'),
})])
type EventQueryParams = Static<typeof EventQuery>

const EventList = Type.Array(Event)

function eventFilters(query: EventQueryParams): EventFilters {
  return { action: query.action, targetType: query.target_type, before: query.before, after: query.after, sort: query.sort }
}

async function presentPage(req: FastifyRequest, reply: FastifyReply, query: EventsQuery, params: EventQueryParams) {
  const { db } = req.ingot
  const page = await paginate(db, query, params)
  setPaginationHeaders(req, reply, page)
  const ctx = presentCtx(req)
  return (await loadEventViews(db, page.items)).map((view) => presentEvent(view, ctx))
}

const events: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/events', {
    config: { scopes: EVENT_SCOPES },
    schema: { querystring: EventQuery, response: { 200: EventList } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    return presentPage(req, reply, await findUserEvents(req.ingot.db, actor, actor.user, eventFilters(req.query)), req.query)
  })

  app.get('/users/:id/events', {
    config: { auth: 'optional', scopes: EVENT_SCOPES },
    schema: { params: IdParams, querystring: EventQuery, response: { 200: EventList } },
  }, async (req, reply) => {
    const user = await loadUser(req, req.params.id, { byUsername: true })
    return presentPage(req, reply, await findUserEvents(req.ingot.db, req.actor, user, eventFilters(req.query)), req.query)
  })

  app.get('/projects/:id/events', {
    config: { auth: 'optional', scopes: EVENT_SCOPES },
    schema: { params: IdParams, querystring: EventQuery, response: { 200: EventList } },
  }, async (req, reply) => {
    const { project } = await loadProject(req, req.params.id)
    return presentPage(req, reply, await findProjectEvents(req.ingot.db, req.actor, project.id, eventFilters(req.query)), req.query)
  })
}

export default events
