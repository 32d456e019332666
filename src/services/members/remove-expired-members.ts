// Ends every membership whose expiry date has come (expires_at today or earlier), in batches of
// short transactions so a large backlog never holds long locks. Run daily by housekeeping.
import type { Db } from '../../db/index.js'
import { today } from '../../db/values.js'
import { endMemberships } from './remove-member.js'

const BATCH = 500

export async function removeExpiredMembers(db: Db, now: number = Date.now(), batchSize: number = BATCH): Promise<number> {
  const date = today(now)
  let removed = 0
  for (;;) {
    const ids = (await db.selectFrom('members').select('id')
      .where('expires_at', '<=', date).orderBy('id').limit(batchSize).execute()).map((m) => m.id)
    removed += await db.transaction().execute((trx) => endMemberships(trx, ids, 'expired', date))
    if (ids.length < batchSize) return removed
  }
}
