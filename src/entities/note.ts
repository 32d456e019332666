// Note entity (spec: Note), the original's Entities::Note of release 11.5: the body, its brief
// author, whether the service wrote it (`system`), what it is on (`noteable_iid` for issues and
// merge requests only), its `type` (DiscussionNote in a started discussion, else null) and, on
// resolvable notes only, `resolved` and `resolved_by`. Attachments are not supported: always null.
import { Type, type Static } from '@sinclair/typebox'
import type { NoteRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, Nullable, NullableInteger, NullableString, type PresentContext } from './common.js'
import { UserBasic, presentUserBasic } from './user.js'

export const Note = Type.Object({
  id: Type.Integer(),
  type: NullableString,
  body: Type.String(),
  attachment: Type.Null(),
  author: UserBasic,
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  system: Type.Boolean(),
  noteable_id: NullableInteger,
  noteable_type: Type.String(),
  resolvable: Type.Boolean(),
  resolved: Type.Optional(Type.Boolean()),
  resolved_by: Type.Optional(Nullable(UserBasic)),
  noteable_iid: NullableInteger,
})
export type NoteEntity = Static<typeof Note>

/** A note with the rows its entity shows, loaded in bulk by the finder. */
export interface NoteView {
  note: NoteRow
  author: UserRow
  resolvedBy: UserRow | null
  /** The iid of the issue or merge request it is on; null on other noteables. */
  noteableIid: number | null
}

export function presentNote(view: NoteView, ctx: PresentContext): NoteEntity {
  const { note } = view
  const resolvable = note.resolvable === 1
  return {
    id: note.id,
    type: note.type,
    body: note.body,
    attachment: null,
    author: presentUserBasic(view.author, ctx),
    created_at: isoTime(note.created_at),
    updated_at: isoTime(note.updated_at),
    system: note.system === 1,
    noteable_id: note.noteable_id,
    noteable_type: note.noteable_type,
    resolvable,
    resolved: resolvable ? note.resolved_at !== null : undefined,
    resolved_by: resolvable ? (view.resolvedBy === null ? null : presentUserBasic(view.resolvedBy, ctx)) : undefined,
    noteable_iid: view.noteableIid,
  }
}
