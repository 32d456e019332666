// Deleting notes: one note (DELETE …/notes/:note_id), with its award emoji and its `commented`
// events, giving back its count on the noteable; and every note of a noteable that is itself
// being deleted (issues, merge requests and snippets call deleteNotesOf in their transaction).
import type { Db } from '../../db/index.js'
import type { NoteRow } from '../../db/schema.js'
import { touchNoteable, type Noteable } from './noteable.js'

/** Award emoji on the notes, the notes' events, then the notes; `noteIds` is never empty. */
async function deleteNoteRows(trx: Db, noteIds: readonly number[]): Promise<void> {
  await trx.deleteFrom('award_emoji').where('awardable_type', '=', 'Note').where('awardable_id', 'in', noteIds).execute()
  await trx.deleteFrom('events').where('target_type', '=', 'Note').where('target_id', 'in', noteIds).execute()
  await trx.deleteFrom('notes').where('id', 'in', noteIds).execute()
}

export async function deleteNote(db: Db, noteable: Noteable, note: NoteRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await deleteNoteRows(trx, [note.id])
    await touchNoteable(trx, noteable, Date.now(), note.system === 1 ? 0 : -1)
  })
}

/**
 * Every note of a noteable that is being deleted, with the notes' award emoji and events, and the
 * award emoji on the noteable itself; run it inside the deleting transaction.
 */
export async function deleteNotesOf(trx: Db, noteable: Pick<Noteable, 'type' | 'id'>): Promise<void> {
  const notes = await trx.selectFrom('notes').select('id')
    .where('noteable_type', '=', noteable.type).where('noteable_id', '=', noteable.id).execute()
  if (notes.length > 0) await deleteNoteRows(trx, notes.map((row) => row.id))
  await trx.deleteFrom('award_emoji').where('awardable_type', '=', noteable.type).where('awardable_id', '=', noteable.id).execute()
}
