// Discussion entity (spec: Discussion): the 40-hex id its notes share, whether it is a lone note
// (`individual_note`: a note posted on its own, never replied to), and its notes oldest first.
import { Type, type Static } from '@sinclair/typebox'
import type { PresentContext } from './common.js'
import { Note, presentNote, type NoteView } from './note.js'

export const Discussion = Type.Object({
  id: Type.String(),
  individual_note: Type.Boolean(),
  notes: Type.Array(Note),
})
export type DiscussionEntity = Static<typeof Discussion>

export interface DiscussionView {
  id: string
  /** Oldest first; never empty. */
  notes: NoteView[]
}

export function presentDiscussion(view: DiscussionView, ctx: PresentContext): DiscussionEntity {
  return {
    id: view.id,
    individual_note: view.notes[0]?.note.type === null,
    notes: view.notes.map((note) => presentNote(note, ctx)),
  }
}
