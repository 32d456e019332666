// The job kind of events: daily, contribution events older than two years are removed (spec: Events).
import { defineJobKind } from '../../jobs/kind.js'
import { pruneOldEvents } from './prune-old-events.js'

export const PRUNE_OLD_EVENTS = defineJobKind<null>({
  name: 'events.prune_old_events',
  attempts: 3,
  timeLimitMs: 30 * 60_000,
  concurrency: 1,
  cron: '0 3 * * *',
  async run(ctx, _payload, job) {
    job.log.info({ removed: await pruneOldEvents(ctx.db) }, 'pruned events older than two years')
  },
})
