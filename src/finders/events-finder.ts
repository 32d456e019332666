// Contribution events (spec: Events) of a user or of a project, with the filters of the three event
// lists: action, target_type, before and after (whole days, as the original: before = earlier than
// the start of that day, after = later than its end), ordered by created_at then id. A user's
// events show none at all when the profile is private to the caller. Either list shows only the
// events whose target the caller may read (eventVisibleTo), as the original's
// Event#visible_to_user? decides, as one condition of the query. Queries follow the
// (author_id | project_id, created_at, id) indexes.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import type { EventAction, EventRow, UserRow } from '../db/schema.js'
import { startOfDate } from '../db/values.js'
import type { Actor } from '../auth/actor.js'
import type { EventView } from '../entities/event.js'
import type { PushData } from '../services/events/record-event.js'
import { canReadUserProfile } from '../policies/user-policy.js'
import { codeReadableBy, projectVisibleTo } from './access.js'
import { confidentialIssueVisibleTo } from './issuable-filters.js'
import { snippetVisibleTo } from './snippets-finder.js'
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

/**
 * The condition "the caller may read what the event is about", as the original's
 * Event#visible_to_user?, in SQL so that pages and X-Total count only what is shown: a push or a
 * comment on a commit needs the repository (download_code); a project's creation and membership
 * changes, the project; an issue or a comment on one, the issue (its project's issues enabled,
 * confidentiality); a merge request or a comment on one, merge requests enabled and the repository;
 * a comment on a snippet, the snippet; a milestone, issues or merge requests enabled. Events whose
 * target is gone, or of another kind, are shown to admins only. Events outside any project carry
 * nothing but their author and action, and are shown.
 */
async function eventVisibleTo(db: Db, actor: Actor | null): Promise<Expression<SqlBool>> {
  if (actor?.user.admin) return sql<SqlBool>`1 = 1`
  const [project, code, issue, snippet] = await Promise.all([
    projectVisibleTo(db, actor, 'ep'),
    codeReadableBy(db, actor, 'ep'),
    confidentialIssueVisibleTo(db, actor, 'ci'),
    snippetVisibleTo(db, actor, 'sn'),
  ])
  const issueReadable = (id: Expression<unknown>) => sql<SqlBool>`(ep.issues_enabled = 1
    and exists (select 1 from issues ci where ci.id = ${id} and ${issue}))`
  const mergeRequestReadable = sql<SqlBool>`(ep.merge_requests_enabled = 1 and ${code})`
  const noteReadable = sql<SqlBool>`exists (select 1 from notes n where n.id = events.target_id and (
       (n.noteable_type = 'Issue' and ${issueReadable(sql.ref('n.noteable_id'))})
    or (n.noteable_type = 'MergeRequest' and ${mergeRequestReadable})
    or (n.noteable_type = 'Commit' and ${code})
    or (n.noteable_type = 'Snippet' and ep.snippets_enabled = 1
      and exists (select 1 from snippets sn where sn.id = n.noteable_id and ${snippet}))))`
  return sql<SqlBool>`((events.project_id is null and events.target_type is null) or exists (
    select 1 from projects ep where ep.id = events.project_id and ${project} and (
         (events.target_type is null and (events.action <> 'pushed' or ${code}))
      or (events.target_type = 'Issue' and ${issueReadable(sql.ref('events.target_id'))})
      or (events.target_type = 'MergeRequest' and ${mergeRequestReadable})
      or (events.target_type = 'Milestone' and (ep.issues_enabled = 1 or ep.merge_requests_enabled = 1))
      or (events.target_type = 'Note' and ${noteReadable}))))`
}

export async function findUserEvents(db: Db, actor: Actor | null, author: UserRow, f: EventFilters) {
  return filteredEvents(db, f)
    .where('events.author_id', '=', author.id)
    .where(canReadUserProfile(actor, author) ? await eventVisibleTo(db, actor) : sql<SqlBool>`1 = 0`)
}

/** Events of a project the caller has already been found to see (loadProject), those they may read. */
export async function findProjectEvents(db: Db, actor: Actor | null, projectId: number, f: EventFilters) {
  return filteredEvents(db, f).where('events.project_id', '=', projectId).where(await eventVisibleTo(db, actor))
}

export type EventsQuery = Awaited<ReturnType<typeof findProjectEvents>>

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
