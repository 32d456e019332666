// The job kind of memberships: daily, shortly after midnight UTC (when expiry dates come), the
// memberships whose expiry date has come are ended, recording `expired` events.
import { defineJobKind } from '../../jobs/kind.js'
import { removeExpiredMembers } from './remove-expired-members.js'

export const END_EXPIRED_MEMBERSHIPS = defineJobKind<null>({
  name: 'members.end_expired_memberships',
  attempts: 3,
  timeLimitMs: 30 * 60_000,
  concurrency: 1,
  cron: '10 0 * * *',
  async run(ctx, _payload, job) {
    job.log.info({ removed: await removeExpiredMembers(ctx.db) }, 'ended expired memberships')
  },
})
