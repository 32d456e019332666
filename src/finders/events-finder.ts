// Contribution events (spec: Events) of a user or of a project, with the filters of the three event
// lists: action, target_type, before and after (whole days, as the original: before = earlier than
// the start of that day, after = later than its end), ordered by created_at then id. A user's
// events show only those in projects the caller may see (or without a project), and none at all
// when the profile is private to the caller. Queries follow the (author_id | project_id,
// created_at, id) indexes.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import type { EventAction, EventRow, UserRow } from '../db/schema.js'
import { startOfDate } from '../db/values.js'
import type { Actor } from '../auth/actor.js'
import type { EventView } from '../entities/event.js'
import type { PushData } from '../services/events/record-event.js'
import { canReadUserProfile } from '../policies/user-policy.js'
import { projectVisibleTo } from './access.js'

export const EVENT_ACTIONS = [
  'created', 'updated', 'closed', 'reopened', 'pushed', 'commented', 'merged', 'joined', 'left', 'destroyed', 'expired',
] as const satisfies readonly EventAction[]

/** The `target_type` filter values and the class names events store. */
export const EVENT_TARGET_TYPES = {
  issue: 'Issue',
  milestone: 'Milestone',
  merge_request: 'MergeRequest',
  note: 'Note',
  project: 'Project',
  snippet: 'Snippet',
  user: 'User',
} as const
export type EventTargetTypeFilter = keyof typeof EVENT_TARGET_TYPES
export const EVENT_TARGET_TYPE_FILTERS = Object.keys(EVENT_TARGET_TYPES) as EventTargetTypeFilter[]

export interface EventFilters {
  action?: EventAction
  targetType?: EventTargetTypeFilter
  /** 'YYYY-MM-DD' */
  before?: string
  /** 'YYYY-MM-DD' */
  after?: string
  sort: 'asc' | 'desc'
}

const DAY_MS = 24 * 60 * 60 * 1000

function filteredEvents(db: Db, f: EventFilters) {
  return db.selectFrom('events').selectAll('events')
    .$if(f.action !== undefined, (q) => q.where('events.action', '=', f.action!))
    .$if(f.targetType !== undefined, (q) => q.where('events.target_type', '=', EVENT_TARGET_TYPES[f.targetType!]))
    .$if(f.before !== undefined, (q) => q.where('events.created_at', '<', startOfDate(f.before!)))
    .$if(f.after !== undefined, (q) => q.where('events.created_at', '>=', startOfDate(f.after!) + DAY_MS))
    .orderBy('events.created_at', f.sort)
    .orderBy('events.id', f.sort)
}

/** Events in projects the actor may see, and events outside any project. */
async function inVisibleProject(db: Db, actor: Actor | null): Promise<Expression<SqlBool>> {
  if (actor?.user.admin) return sql<SqlBool>`1 = 1`
  return sql<SqlBool>`(events.project_id is null or exists (
    select 1 from projects where projects.id = events.project_id and ${await projectVisibleTo(db, actor)}))`
}

export async function findUserEvents(db: Db, actor: Actor | null, author: UserRow, f: EventFilters) {
  return filteredEvents(db, f)
    .where('events.author_id', '=', author.id)
    .where(canReadUserProfile(actor, author) ? await inVisibleProject(db, actor) : sql<SqlBool>`1 = 0`)
}

/** Events of a project the caller has already been found to see (loadProject). */
export function findProjectEvents(db: Db, projectId: number, f: EventFilters) {
  return filteredEvents(db, f).where('events.project_id', '=', projectId)
}

export type EventsQuery = ReturnType<typeof findProjectEvents>

/** Authors and push payloads for a page of events, in one query. */
export async function loadEventViews(db: Db, events: readonly EventRow[]): Promise<EventView[]> {
  const authorIds = [...new Set(events.map((e) => e.author_id))]
  const authors = authorIds.length === 0 ? [] : await db.selectFrom('users').selectAll().where('id', 'in', authorIds).execute()
  const authorById = new Map(authors.map((u) => [u.id, u]))
  return events.map((event) => {
    const author = authorById.get(event.author_id)
    if (author === undefined) throw new Error(`event ${event.id} has no author`)
    return { event, author, pushData: event.push_data === null ? null : JSON.parse(event.push_data) as PushData }
  })
}
