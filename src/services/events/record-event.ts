// The contribution-event recorder (spec: Events). Every capability records its events here, inside
// the transaction of the change they describe, so an event exists exactly when its change does.
// As in the original, an event also marks its project active (last_activity_at), at most hourly.
import type { Db } from '../../db/index.js'
import type { EventAction } from '../../db/schema.js'

export interface EventTarget {
  /** The class name the API shows: 'Issue', 'MergeRequest', 'Milestone', 'Note', 'Snippet', … */
  type: string
  id: number
  /** Only for targets numbered per project (issues, merge requests, milestones). */
  iid?: number | null
  title?: string | null
}

/** What a `pushed` event shows as `push_data`, stored as is. */
export interface PushData {
  commit_count: number
  /** 'created' for a new ref, 'removed' for a deleted one, 'pushed' otherwise. */
  action: 'created' | 'removed' | 'pushed'
  ref_type: 'branch' | 'tag'
  /** Null for a new ref. */
  commit_from: string | null
  /** Null for a deleted ref. */
  commit_to: string | null
  /** The short ref name ('main', 'v1.0'). */
  ref: string
  /** First line of the newest pushed commit's message, truncated to 70 characters; null without commits. */
  commit_title: string | null
}

export interface NewEvent {
  action: EventAction
  authorId: number
  projectId: number | null
  target?: EventTarget
  /** For `pushed`: the push payload shown as `push_data`. */
  pushData?: PushData
  createdAt?: number
}

const ACTIVITY_RESOLUTION_MS = 60 * 60 * 1000

export async function recordEvent(db: Db, event: NewEvent): Promise<void> {
  await recordEvents(db, [event])
}

/** Several events in one insert (housekeeping ends memberships in batches). */
export async function recordEvents(db: Db, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return
  const now = Date.now()
  const rows = events.map((event) => ({
    action: event.action,
    author_id: event.authorId,
    project_id: event.projectId,
    target_type: event.target?.type ?? null,
    target_id: event.target?.id ?? null,
    target_iid: event.target?.iid ?? null,
    target_title: event.target?.title ?? null,
    push_data: event.pushData === undefined ? null : JSON.stringify(event.pushData),
    created_at: event.createdAt ?? now,
  }))
  await db.insertInto('events').values(rows).execute()
  const latestByProject = new Map<number, number>()
  for (const row of rows) {
    if (row.project_id !== null) latestByProject.set(row.project_id, Math.max(latestByProject.get(row.project_id) ?? 0, row.created_at))
  }
  for (const [projectId, at] of latestByProject) await markProjectActive(db, projectId, at)
}

/**
 * What recording an event at `at` does to its project (last_activity_at, at most hourly), for a
 * writer that inserts its event row itself (issue creation on PostgreSQL, in one statement).
 */
export async function markProjectActive(db: Db, projectId: number, at: number): Promise<void> {
  await db.updateTable('projects').set({ last_activity_at: at })
    .where('id', '=', projectId).where('last_activity_at', '<=', at - ACTIVITY_RESOLUTION_MS).execute()
}
