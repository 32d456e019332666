// Durable background jobs kept in the metadata database and worked in-process: enqueued after the
// change that causes them commits, claimed with a lease so several processes can share the table,
// retried with exponential backoff, and recurring jobs (housekeeping) re-enqueued after each run.
import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/index.js'
import type { JobRow } from '../db/schema.js'

export type JobHandler = (payload: unknown) => Promise<void>

interface JobKind {
  handler: JobHandler
  maxAttempts: number
  /** For recurring kinds: how long after a run the next one is due. */
  everyMs: number | null
}

export interface EnqueueOptions {
  runAt?: number
  /**
   * While a job with this key waits to run, enqueuing another one does nothing. Once it runs the key
   * is free again, so a change made meanwhile gets a run of its own (recurring jobs keep theirs).
   */
  uniqueKey?: string
}

const LEASE_MS = 5 * 60 * 1000
const POLL_MS = 1000
const BATCH = 20

export class JobQueue {
  private readonly kinds = new Map<string, JobKind>()
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> | null = null

  constructor(private readonly db: Db, private readonly log: FastifyBaseLogger) {}

  define(kind: string, handler: JobHandler, options: { maxAttempts?: number } = {}): void {
    this.kinds.set(kind, { handler, maxAttempts: options.maxAttempts ?? 5, everyMs: null })
  }

  /** A job that runs every `everyMs`, once across all processes sharing the database. */
  defineRecurring(kind: string, everyMs: number, handler: () => Promise<void>): void {
    this.kinds.set(kind, { handler, maxAttempts: 1, everyMs })
  }

  /** The new job's id; null when a job with the same uniqueKey was waiting already. */
  async enqueue(kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<number | null> {
    if (!this.kinds.has(kind)) throw new Error(`unknown job kind ${kind}`)
    const inserted = await this.db.insertInto('jobs').values({
      kind,
      payload: JSON.stringify(payload ?? null),
      unique_key: options.uniqueKey ?? null,
      run_at: options.runAt ?? Date.now(),
      attempts: 0,
      created_at: Date.now(),
    }).onConflict((oc) => oc.column('unique_key').doNothing()).returning('id').executeTakeFirst()
    return inserted?.id ?? null
  }

  /** Polls for due jobs until stop(); recurring jobs are scheduled first. */
  async start(): Promise<void> {
    for (const [kind, definition] of this.kinds) {
      if (definition.everyMs !== null) await this.enqueue(kind, null, { uniqueKey: `recurring:${kind}` })
    }
    const tick = () => {
      this.running = this.runDue()
        .then(() => undefined)
        .catch((err: unknown) => this.log.error({ err }, 'job runner failed'))
        .finally(() => {
          if (this.timer !== null) this.timer = setTimeout(tick, POLL_MS).unref()
        })
    }
    this.timer = setTimeout(tick, 0).unref()
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    await this.running
  }

  /** Works every job that is due now; returns how many ran. */
  async runDue(now: number = Date.now()): Promise<number> {
    let ran = 0
    for (;;) {
      const due = await this.db.selectFrom('jobs').selectAll()
        .where('run_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('run_at').orderBy('id').limit(BATCH).execute()
      if (due.length === 0) return ran
      for (const job of due) {
        if (await this.claim(job, now)) {
          await this.work(job)
          ran += 1
        }
      }
    }
  }

  private async claim(job: JobRow, now: number): Promise<boolean> {
    const recurring = (this.kinds.get(job.kind)?.everyMs ?? null) !== null
    const result = await this.db.updateTable('jobs')
      .set({ locked_until: now + LEASE_MS, attempts: job.attempts + 1, ...(recurring ? {} : { unique_key: null }) })
      .where('id', '=', job.id).where('attempts', '=', job.attempts)
      .executeTakeFirst()
    return result.numUpdatedRows === 1n
  }

  private async work(job: JobRow): Promise<void> {
    const kind = this.kinds.get(job.kind)
    if (kind === undefined) {
      this.log.error({ job: job.kind, id: job.id }, 'dropping a job of unknown kind')
      await this.db.deleteFrom('jobs').where('id', '=', job.id).execute()
      return
    }
    const started = Date.now()
    try {
      await kind.handler(JSON.parse(job.payload))
      await this.db.deleteFrom('jobs').where('id', '=', job.id).execute()
      this.log.info({ job: job.kind, id: job.id, ms: Date.now() - started }, 'job done')
    } catch (err) {
      const attempts = job.attempts + 1
      const message = err instanceof Error ? err.message : String(err)
      if (attempts >= kind.maxAttempts) {
        this.log.error({ job: job.kind, id: job.id, attempts, err }, 'job failed for the last time')
        await this.db.deleteFrom('jobs').where('id', '=', job.id).execute()
      } else {
        const retryAt = Date.now() + 10_000 * 2 ** (attempts - 1)
        this.log.warn({ job: job.kind, id: job.id, attempts, err }, 'job failed, will retry')
        await this.db.updateTable('jobs')
          .set({ run_at: retryAt, locked_until: null, last_error: message }).where('id', '=', job.id).execute()
      }
    }
    if (kind.everyMs !== null) {
      await this.enqueue(job.kind, null, { uniqueKey: `recurring:${job.kind}`, runAt: started + kind.everyMs })
    }
  }
}
