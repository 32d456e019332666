// The job kind of sign-in sessions: daily, expired sessions are removed (a session is also removed
// when it is next presented expired, and a user's expired ones when they sign in again).
import { defineJobKind } from '../../jobs/kind.js'
import { pruneExpiredSessions } from './sign-in.js'

export const PRUNE_EXPIRED_SESSIONS = defineJobKind<null>({
  name: 'sessions.prune_expired_sessions',
  attempts: 3,
  timeLimitMs: 30 * 60_000,
  concurrency: 1,
  cron: '30 3 * * *',
  async run(ctx, _payload, job) {
    job.log.info({ removed: await pruneExpiredSessions(ctx.db) }, 'removed expired sessions')
  },
})
