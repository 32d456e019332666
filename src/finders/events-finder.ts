// Contribution events (spec: Events) of a user or of a project, with the filters of the three event
// lists: action, target_type, before and after (whole days, as the original: before = earlier than
// the start of that day, after = later than its end), ordered by created_at then id. A user's
// events show only those in projects the caller may see (or without a project), and none at all
// when the profile is private to the caller. Queries follow the (author_id | project_id,
// created_at, id) indexes. Events about a confidential issue — the issue's own and those of notes on
// it — are shown only to those who may read the issue (its author and assignees, Reporters of its
// project, admins), as the original's Event#visible_to_user? decides.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import type { EventAction, EventRow, UserRow } from '../db/schema.js'
import { startOfDate } from '../db/values.js'
import type { Actor } from '../auth/actor.js'
import type { EventView } from '../entities/event.js'
import type { PushData } from '../services/events/record-event.js'
import { REPORTER } from '../policies/access-levels.js'
import { canReadUserProfile } from '../policies/user-policy.js'
import { grantedProject, projectVisibleTo } from './access.js'
import { loadNoteViews } from './notes-finder.js'

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

/**
 * "The event is not about a confidential issue the reader may not read": the issue is the event's
 * target, or the issue a target note is on. `readsAll` says, of the issue `ci`, that the reader
 * reads every confidential issue of its project.
 */
function notAboutHiddenIssue(userId: number | null, readsAll: Expression<SqlBool>): Expression<SqlBool> {
  const reads = userId === null
    ? readsAll
    : sql<SqlBool>`(ci.author_id = ${userId} or ${readsAll}
        or exists (select 1 from issue_assignees a where a.issue_id = ci.id and a.user_id = ${userId}))`
  return sql<SqlBool>`(events.target_type is null or events.target_type not in ('Issue', 'Note') or not exists (
    select 1 from issues ci where ci.confidential = 1
      and ci.id = (case when events.target_type = 'Issue' then events.target_id
        else (select n.noteable_id from notes n where n.id = events.target_id and n.noteable_type = 'Issue') end)
      and not ${reads}))`
}

export async function findUserEvents(db: Db, actor: Actor | null, author: UserRow, f: EventFilters) {
  const query = filteredEvents(db, f)
    .where('events.author_id', '=', author.id)
    .where(canReadUserProfile(actor, author) ? await inVisibleProject(db, actor) : sql<SqlBool>`1 = 0`)
  if (actor?.user.admin) return query
  const readsAll = actor === null ? sql<SqlBool>`1 = 0` : await grantedProject(db, actor.user.id, 'ci.project_id', REPORTER)
  return query.where(notAboutHiddenIssue(actor?.user.id ?? null, readsAll))
}

/** Who reads a project's events: the caller, and whether they read all its confidential issues (Reporter, admin). */
export interface ProjectEventsReader {
  userId: number | null
  readsConfidentialIssues: boolean
}

const ANONYMOUS_READER: ProjectEventsReader = { userId: null, readsConfidentialIssues: false }

/** Events of a project the caller has already been found to see (loadProject). */
export function findProjectEvents(db: Db, projectId: number, f: EventFilters, reader: ProjectEventsReader = ANONYMOUS_READER) {
  const query = filteredEvents(db, f).where('events.project_id', '=', projectId)
  return reader.readsConfidentialIssues ? query : query.where(notAboutHiddenIssue(reader.userId, sql<SqlBool>`1 = 0`))
}

export type EventsQuery = ReturnType<typeof findProjectEvents>

/** The notes events target, with what their entities show, in a few queries for the whole page. */
async function targetNotes(db: Db, events: readonly EventRow[]) {
  const noteIds = [...new Set(events.flatMap((e) => (e.target_type === 'Note' && e.target_id !== null ? [e.target_id] : [])))]
  const notes = noteIds.length === 0 ? [] : await db.selectFrom('notes').selectAll().where('id', 'in', noteIds).execute()
  return new Map((await loadNoteViews(db, notes)).map((view) => [view.note.id, view]))
}

/** Authors, push payloads and target notes for a page of events, in a fixed number of queries. */
export async function loadEventViews(db: Db, events: readonly EventRow[]): Promise<EventView[]> {
  const authorIds = [...new Set(events.map((e) => e.author_id))]
  const [authors, notes] = await Promise.all([
    authorIds.length === 0 ? [] : db.selectFrom('users').selectAll().where('id', 'in', authorIds).execute(),
    targetNotes(db, events),
  ])
  const authorById = new Map(authors.map((u) => [u.id, u]))
  return events.map((event) => {
    const author = authorById.get(event.author_id)
    if (author === undefined) throw new Error(`event ${event.id} has no author`)
    const note = event.target_type === 'Note' && event.target_id !== null ? notes.get(event.target_id) ?? null : null
    return { event, author, pushData: event.push_data === null ? null : JSON.parse(event.push_data) as PushData, note }
  })
}
