// The contribution-event recorder (spec: Events). Every capability records its events here, inside
// the transaction of the change they describe, so an event exists exactly when its change does.
import type { Db } from '../../db/index.js'
import type { EventAction } from '../../db/schema.js'

export interface EventTarget {
  /** The class name the API shows: 'Issue', 'MergeRequest', 'Milestone', 'Note', 'Snippet', … */
  type: string
  id: number
  iid?: number | null
  title?: string | null
}

export interface NewEvent {
  action: EventAction
  authorId: number
  projectId: number | null
  target?: EventTarget
  /** For `pushed`: the push payload shown as `push_data`. */
  pushData?: Record<string, unknown>
  createdAt?: number
}

export async function recordEvent(db: Db, event: NewEvent): Promise<void> {
  await db.insertInto('events').values({
    action: event.action,
    author_id: event.authorId,
    project_id: event.projectId,
    target_type: event.target?.type ?? null,
    target_id: event.target?.id ?? null,
    target_iid: event.target?.iid ?? null,
    target_title: event.target?.title ?? null,
    push_data: event.pushData === undefined ? null : JSON.stringify(event.pushData),
    created_at: event.createdAt ?? Date.now(),
  }).execute()
}
