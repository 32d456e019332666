// Events are kept for two years (spec: Events, Limits); older ones are deleted in batches so a
// large backlog never holds a long lock.
import type { Db } from '../../db/index.js'

export const EVENT_RETENTION_MS = 2 * 365 * 24 * 60 * 60 * 1000
const BATCH = 10_000

export async function pruneOldEvents(db: Db, now: number = Date.now()): Promise<number> {
  const cutoff = now - EVENT_RETENTION_MS
  let removed = 0
  for (;;) {
    const batch = db.selectFrom('events').select('id').where('created_at', '<', cutoff).limit(BATCH)
    const result = await db.deleteFrom('events').where('id', 'in', batch).executeTakeFirst()
    const count = Number(result.numDeletedRows)
    removed += count
    if (count < BATCH) return removed
  }
}
