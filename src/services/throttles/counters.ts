// Fixed-window counters in the database, shared by every process on it: the request throttles'
// store and the count of failed sign-ins. Windows are aligned to the epoch (a window of 60 s runs
// from one whole minute to the next), as Rack::Attack's cache keys them, so every process agrees
// on which window a request falls in. One row per key, moved on to the new window by the same
// atomic upsert that counts, so a count is one statement however many processes count at once.
import type { Db } from '../../db/index.js'

export interface WindowCount {
  /** Counted in the current window, this request included. */
  current: number
  /** Milliseconds until the window ends. */
  ttl: number
}

/** How often a process removes the rows of windows that ended (keys never counted again). */
const PRUNE_INTERVAL_MS = 60_000

export class ThrottleCounters {
  private nextPruneAt = 0

  constructor(private readonly db: Db) {}

  /** Adds one to `key`'s count in the window of `windowMs` that now falls in. */
  async increment(key: string, windowMs: number): Promise<WindowCount> {
    const now = Date.now()
    const windowEnd = (Math.floor(now / windowMs) + 1) * windowMs
    const row = await this.db.insertInto('throttle_counters')
      .values({ key, count: 1, expires_at: windowEnd })
      .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({
        // Still the same window: one more; a row from an earlier window (or another length) starts over.
        count: eb.case().when('throttle_counters.expires_at', '=', eb.ref('excluded.expires_at'))
          .then(eb('throttle_counters.count', '+', 1)).else(1).end(),
        expires_at: eb.ref('excluded.expires_at'),
      })))
      .returning(['count', 'expires_at'])
      .executeTakeFirstOrThrow()
    this.pruneNowAndThen(now)
    return { current: Number(row.count), ttl: Number(row.expires_at) - now }
  }

  async reset(keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.db.deleteFrom('throttle_counters').where('key', 'in', keys).execute()
  }

  /** Removes the rows of ended windows, at most once a minute per process, off the request's path. */
  private pruneNowAndThen(now: number): void {
    if (now < this.nextPruneAt) return
    this.nextPruneAt = now + PRUNE_INTERVAL_MS
    this.db.deleteFrom('throttle_counters').where('expires_at', '<=', now).execute().catch(() => {
      // Left for the next prune: a failed clean-up changes no count.
    })
  }
}
