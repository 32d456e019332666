// Commit comment entity (spec: Commit comment): the note, where it sits in the commit's diff
// (`path`, `line`, `line_type`; all null for a comment on the commit as a whole), its author and
// creation time, as the original's CommitNote shows them.
import { Type, type Static } from '@sinclair/typebox'
import type { NoteRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, NullableInteger, NullableString, type PresentContext } from './common.js'
import { UserBasic, presentUserBasic } from './user.js'

export const CommitComment = Type.Object({
  note: Type.String(),
  path: NullableString,
  line: NullableInteger,
  line_type: Type.Union([Type.Literal('new'), Type.Literal('old'), Type.Null()]),
  author: UserBasic,
  created_at: IsoDateTime,
})
export type CommitCommentEntity = Static<typeof CommitComment>

/** A comment with its author, loaded together by the caller. */
export interface CommitCommentView {
  note: NoteRow
  author: UserRow
}

export function presentCommitComment(view: CommitCommentView, ctx: PresentContext): CommitCommentEntity {
  const { note } = view
  return {
    note: note.body,
    path: note.path,
    line: note.line,
    line_type: note.line_type,
    author: presentUserBasic(view.author, ctx),
    created_at: isoTime(note.created_at),
  }
}
