// Event entity (spec: Event): a contribution event with its brief author, `push_data` on push events,
// `note` (the note entity) on events whose target is a note, and `action_name` worded exactly as
// the original's Event#action_name words it.
import { Type, type Static } from '@sinclair/typebox'
import type { EventRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import type { PushData } from '../services/events/record-event.js'
import { IsoDateTime, NullableInteger, NullableString, type PresentContext } from './common.js'
import { Note, presentNote, type NoteView } from './note.js'
import { UserBasic, presentUserBasic } from './user.js'

export const PushEventPayload = Type.Object({
  commit_count: Type.Integer(),
  action: Type.String(),
  ref_type: Type.String(),
  commit_from: NullableString,
  commit_to: NullableString,
  ref: Type.String(),
  commit_title: NullableString,
})

export const Event = Type.Object({
  title: Type.Null(),
  project_id: NullableInteger,
  action_name: Type.String(),
  target_id: NullableInteger,
  target_iid: NullableInteger,
  target_type: NullableString,
  author_id: Type.Integer(),
  target_title: NullableString,
  created_at: IsoDateTime,
  author: UserBasic,
  author_username: Type.String(),
  data: Type.Null(),
  push_data: Type.Optional(PushEventPayload),
  /** On events whose target is a note that still exists, as the original's Event#note?. */
  note: Type.Optional(Note),
})
export type EventEntity = Static<typeof Event>

export interface EventView {
  event: EventRow
  author: UserRow
  /** The parsed push payload of a `pushed` event. */
  pushData: PushData | null
  /** The target of an event whose target_type is 'Note'; null for other events, or once the note is gone. */
  note: NoteView | null
}

/** The original's wording: pushes by what they did to the ref, a project's creation as `created`. */
export function eventActionName(event: Pick<EventRow, 'action' | 'target_type'>, pushData: PushData | null): string {
  switch (event.action) {
    case 'pushed':
      if (pushData?.action === 'created') return 'pushed new'
      if (pushData?.action === 'removed') return 'deleted'
      return 'pushed to'
    case 'closed': return 'closed'
    case 'merged': return 'accepted'
    case 'joined': return 'joined'
    case 'left': return 'left'
    case 'expired': return 'removed due to membership expiration from'
    case 'destroyed': return 'destroyed'
    case 'commented': return 'commented on'
    case 'created': return event.target_type === null ? 'created' : 'opened'
    case 'updated':
    case 'reopened': return 'opened'
  }
}

export function presentEvent(view: EventView, ctx: PresentContext): EventEntity {
  const { event, author, pushData } = view
  return {
    title: null,
    project_id: event.project_id,
    action_name: eventActionName(event, pushData),
    target_id: event.target_id,
    // As the original: the target's iid where it has one, otherwise its id.
    target_iid: event.target_iid ?? event.target_id,
    target_type: event.target_type,
    author_id: event.author_id,
    target_title: event.target_title,
    created_at: isoTime(event.created_at),
    author: presentUserBasic(author, ctx),
    author_username: author.username,
    data: null,
    push_data: event.action === 'pushed' && pushData !== null ? pushData : undefined,
    note: view.note === null ? undefined : presentNote(view.note, ctx),
  }
}
