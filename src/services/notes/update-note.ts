// Editing a note's body (PUT …/notes/:note_id and …/discussions/:id/notes/:note_id), which moves
// the note's and its noteable's updated_at, as the original's Notes::UpdateService.
import type { Db } from '../../db/index.js'
import type { NoteRow } from '../../db/schema.js'
import { badRequestNotGiven } from '../../common/errors.js'
import { noteBodyErrors } from './create-note.js'
import { touchNoteable, type Noteable } from './noteable.js'

export async function updateNote(db: Db, noteable: Noteable, note: NoteRow, body: string): Promise<NoteRow> {
  const errors = noteBodyErrors(body)
  if (errors !== null) throw badRequestNotGiven(`Failed to save note ${errors}`)
  const now = Date.now()
  const updated = await db.transaction().execute(async (trx) => {
    const row = await trx.updateTable('notes').set({ body, updated_at: now })
      .where('id', '=', note.id).returningAll().executeTakeFirstOrThrow()
    await touchNoteable(trx, noteable, now)
    return row
  })
  return updated
}
