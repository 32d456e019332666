// Sessions' recurring clean-up: expired sessions are removed daily (a session is also removed when
// it is next presented expired, and a user's expired ones when they sign in again).
import type { AppContext } from '../../context.js'
import { pruneExpiredSessions } from './sign-in.js'

export const PRUNE_EXPIRED_SESSIONS_JOB = 'housekeeping.prune_expired_sessions'

const DAY_MS = 24 * 60 * 60 * 1000

export function registerSessions(ctx: AppContext): void {
  ctx.jobs.defineRecurring(PRUNE_EXPIRED_SESSIONS_JOB, DAY_MS, async () => {
    const removed = await pruneExpiredSessions(ctx.db)
    ctx.log.info({ removed }, 'removed expired sessions')
  })
}
