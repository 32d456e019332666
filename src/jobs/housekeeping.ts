// Recurring maintenance, daily: contribution events older than two years are removed (spec:
// Events), and memberships whose expiry date has come are ended (recording `expired` events).
import type { AppContext } from '../context.js'
import { pruneOldEvents } from '../services/events/prune-old-events.js'
import { removeExpiredMembers } from '../services/members/remove-expired-members.js'

const DAY_MS = 24 * 60 * 60 * 1000

export const PRUNE_OLD_EVENTS_JOB = 'housekeeping.prune_old_events'
export const REMOVE_EXPIRED_MEMBERS_JOB = 'housekeeping.remove_expired_members'

export function defineHousekeeping(ctx: AppContext): void {
  ctx.jobs.defineRecurring(PRUNE_OLD_EVENTS_JOB, DAY_MS, async () => {
    const removed = await pruneOldEvents(ctx.db)
    ctx.log.info({ removed }, 'pruned events older than two years')
  })
  ctx.jobs.defineRecurring(REMOVE_EXPIRED_MEMBERS_JOB, DAY_MS, async () => {
    const removed = await removeExpiredMembers(ctx.db)
    ctx.log.info({ removed }, 'ended expired memberships')
  })
}
