// Deletes an issue or a merge request (DELETE …/issues/:iid, …/merge_requests/:iid) with what hangs
// on it by type and id rather than by foreign key: its notes (with their award emoji and events),
// its award emoji, label links and subscriptions. Assignees go by cascade; issue counts and the
// search index follow by trigger; the issuable's own events stay, as the project's history.
import type { Db } from '../../db/index.js'
import type { IssuableType } from '../../db/schema.js'
import { deleteNotesOf } from '../notes/delete-note.js'

const TABLE_OF = { Issue: 'issues', MergeRequest: 'merge_requests' } as const

export async function deleteIssuable(db: Db, issuable: { type: IssuableType; id: number }): Promise<void> {
  const { type, id } = issuable
  await db.transaction().execute(async (trx) => {
    await deleteNotesOf(trx, { type, id })
    await trx.deleteFrom('label_links').where('target_type', '=', type).where('target_id', '=', id).execute()
    await trx.deleteFrom('subscriptions').where('subscribable_type', '=', type).where('subscribable_id', '=', id).execute()
    await trx.deleteFrom(TABLE_OF[type]).where('id', '=', id).execute()
  })
}
