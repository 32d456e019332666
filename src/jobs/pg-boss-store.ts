// The PostgreSQL job engine: pg-boss (its schema `pgboss`, created and migrated at start under its
// own advisory lock) keeps the jobs, claims them with SKIP LOCKED, retries them with backoff,
// expires the attempts of processes that died, keeps dead jobs (state `failed`) and runs the cron
// schedules of recurring kinds. Our runner drives it through its public calls (fetch, complete,
// fail, retry, …) rather than its polling work() loops. Each kind is one pg-boss queue: `short`
// (one waiting job per unique key) or, for exclusive kinds, `stately` (one waiting and one running
// per key). pg-boss 10 only polls, so an enqueue also NOTIFYs a channel the working processes
// LISTEN on.
import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import pg from 'pg'
import PgBoss from 'pg-boss'
import type { Config } from '../config.js'
import { timeLimitOf, type AnyJobKind } from './kind.js'
import type { ClaimedJob, DueKinds, EnqueueRequest, JobCount, JobListFilter, JobState, JobStore, JobSummary } from './store.js'

export interface PgBossStoreOptions {
  config: Config
  log: FastifyBaseLogger
  kinds: readonly AnyJobKind[]
  /**
   * How long past its time limit a running job counts as abandoned by a process that died (pg-boss's
   * expiry is the time limit plus this); also how often expired jobs are looked for.
   */
  leaseMs: number
  /** Seconds between pg-boss's looks at the cron schedules (by one of the working processes) and at the runs they owe. */
  cronPollSeconds: number
}

const SCHEMA = 'pgboss'
const WAKE_CHANNEL = 'ingot_jobs'
const QUEUES_LOCK = 'ingot: pg-boss queues'
/** pg-boss's own queues (cron) share its tables; they are none of ours to count or list. */
const OURS = `NOT starts_with(name, '__pgboss__')`
/** A waiting job is dropped after this long without running; dead jobs are kept as long. */
const RETENTION_DAYS = 30
/** Done jobs leave the job table after an hour and the archive after a day. */
const ARCHIVE_DONE_AFTER_SECONDS = 60 * 60
const DELETE_ARCHIVED_AFTER_DAYS = 1
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** What a pg-boss job's data holds. */
interface Envelope {
  payload: unknown
  requestId: string | null
}

interface JobRecord {
  id: string
  name: string
  data: Partial<Envelope> | null
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed'
  retry_count: number
  retry_limit: number
  singleton_key: string | null
  start_after: Date
  started_on: Date | null
  created_on: Date
  completed_on: Date | null
  output: { message?: string; value?: { message?: string } } | null
}

const STATES: Record<JobRecord['state'], JobState | null> = {
  created: 'waiting', retry: 'waiting', active: 'running', failed: 'dead', completed: null, cancelled: null,
}

export class PgBossStore implements JobStore {
  readonly renewEveryMs = null
  private readonly kinds: Map<string, AnyJobKind>
  /** pg-boss's background duties (expiry, archiving, cron), run only where jobs are worked. */
  private duties: PgBoss | null = null
  private listener: pg.Client | null = null
  private listening = false
  private notifyPending = false

  private constructor(private readonly pool: pg.Pool, private readonly boss: PgBoss, private readonly options: PgBossStoreOptions) {
    this.kinds = new Map(options.kinds.map((kind) => [kind.name, kind]))
  }

  static async open(options: PgBossStoreOptions): Promise<PgBossStore> {
    // Enqueues, claims and outcomes are single short statements: a few connections carry them.
    const pool = new pg.Pool({ connectionString: options.config.databaseUrl, max: 5, application_name: 'ingot-jobs' })
    pool.on('error', (err) => options.log.error({ err }, 'job database connection failed'))
    const boss = new PgBoss({ db: dbOf(pool), schema: SCHEMA, migrate: true, supervise: false, schedule: false })
    boss.on('error', (err) => options.log.error({ err }, 'pg-boss failed'))
    try {
      await boss.start()
      const store = new PgBossStore(pool, boss, options)
      await store.createQueues()
      await store.adoptTableJobs()
      return store
    } catch (err) {
      await pool.end()
      throw err
    }
  }

  /**
   * One queue per kind, brought in line with the kind's definition when that changed. Creating
   * queues at once from several processes deadlocks inside pg-boss (each attaches a partition to
   * its job table), so that is done under an advisory lock of ours.
   */
  private async createQueues(): Promise<void> {
    if ((await this.queueChanges()).length === 0) return
    const client = await this.pool.connect()
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [QUEUES_LOCK])
      for (const { queue, wanted } of await this.queueChanges()) {
        if (queue === undefined) await this.boss.createQueue(wanted.name, wanted)
        else await this.boss.updateQueue(wanted.name, wanted)
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [QUEUES_LOCK]).finally(() => client.release())
    }
  }

  /** The kinds whose queue is missing or set otherwise than the kind says. */
  private async queueChanges(): Promise<{ queue: PgBoss.QueueResult | undefined; wanted: PgBoss.Queue & { name: string } }[]> {
    const existing = new Map((await this.boss.getQueues()).map((queue) => [queue.name, queue]))
    const changes = []
    for (const kind of this.kinds.values()) {
      const wanted = {
        name: kind.name,
        policy: kind.exclusive ? 'stately' as const : 'short' as const,
        retryLimit: kind.attempts - 1,
        retryDelay: Math.max(1, Math.round(kind.retryDelayMs / 1000)),
        retryBackoff: true,
        expireInSeconds: Math.ceil((timeLimitOf(kind, this.options.config) + this.options.leaseMs) / 1000),
        retentionMinutes: RETENTION_DAYS * 24 * 60,
      }
      const queue = existing.get(kind.name)
      if (queue === undefined || (Object.keys(wanted) as (keyof typeof wanted)[]).some((key) => queue[key] !== wanted[key])) {
        changes.push({ queue, wanted })
      }
    }
    return changes
  }

  /**
   * Jobs left waiting in our own `jobs` table (where every job was kept before pg-boss) move into
   * pg-boss in one transaction, so that several processes starting at once move each job once.
   * They start afresh there: attempts made before are not carried over.
   */
  private async adoptTableJobs(): Promise<void> {
    const client = await this.pool.connect()
    try {
      await client.query('BEGIN')
      const { rows } = await client.query<{ kind: string; payload: string; unique_key: string | null; run_at: string; request_id: string | null }>(
        `DELETE FROM jobs WHERE state <> 'dead' AND kind = ANY($1) RETURNING kind, payload, unique_key, run_at, request_id`,
        [[...this.kinds.keys()]],
      )
      for (const row of rows) {
        // The table holds keys prefixed with their kind (table-store.ts); pg-boss keys them per queue.
        const uniqueKey = row.unique_key?.slice(row.kind.length + 1) ?? null
        await this.send({
          kind: this.kinds.get(row.kind)!, payload: JSON.parse(row.payload) as unknown, uniqueKey,
          runAt: Number(row.run_at), requestId: row.request_id,
        }, dbOf(client))
      }
      await client.query('COMMIT')
      if (rows.length > 0) this.options.log.info({ jobs: rows.length }, 'jobs moved from the jobs table into pg-boss')
    } catch (err) {
      await client.query('ROLLBACK')
      throw err
    } finally {
      client.release()
    }
  }

  private send(request: EnqueueRequest, db?: PgBoss.Db): Promise<string | null> {
    const id = randomUUID()
    const data: Envelope = { payload: request.payload ?? null, requestId: request.requestId }
    // In a `short` queue a job without a key of its own would share the empty key with every other.
    return this.boss.send(request.kind.name, data, {
      id,
      singletonKey: request.uniqueKey ?? id,
      ...(request.runAt === null ? {} : { startAfter: new Date(request.runAt) }),
      ...(db === undefined ? {} : { db }),
    })
  }

  async enqueue(request: EnqueueRequest): Promise<string | null> {
    const id = await this.send(request)
    if (id !== null) this.notifySoon()
    return id
  }

  async enqueueMany(requests: readonly EnqueueRequest[]): Promise<void> {
    if (requests.length === 0) return
    await this.boss.insert(requests.map((request) => {
      const id = randomUUID()
      const data: Envelope = { payload: request.payload ?? null, requestId: request.requestId }
      return {
        id, name: request.kind.name, data, singletonKey: request.uniqueKey ?? id,
        ...(request.runAt === null ? {} : { startAfter: new Date(request.runAt) }),
      }
    }))
    this.notifySoon()
  }

  /** Wakes the working processes once the enqueue has committed; several enqueues in one tick notify once. */
  private notifySoon(): void {
    if (this.notifyPending) return
    this.notifyPending = true
    setImmediate(() => {
      this.notifyPending = false
      this.pool.query(`SELECT pg_notify('${WAKE_CHANNEL}', '')`)
        .catch((err: unknown) => this.options.log.warn({ err }, 'could not notify the job workers'))
    })
  }

  async dueKinds(kinds: readonly string[]): Promise<DueKinds> {
    // Per kind, the earliest waiting job: one look into pg-boss's fetch index, however many wait.
    // Asked after every job: prepared (named), so that it is planned once per connection.
    const { rows } = await this.pool.query<{ name: string; at: Date; due: boolean }>({
      name: 'ingot_jobs_due_kinds',
      text: `SELECT kind.name, earliest.at, earliest.at < now() AS due
        FROM unnest($1::text[]) AS kind(name)
        CROSS JOIN LATERAL (SELECT min(start_after) AS at FROM ${SCHEMA}.job WHERE name = kind.name AND state < 'active') earliest
        WHERE earliest.at IS NOT NULL`,
      values: [kinds],
    })
    const due = rows.filter((row) => row.due).sort((a, b) => a.at.getTime() - b.at.getTime()).map((row) => row.name)
    const later = rows.filter((row) => !row.due).map((row) => row.at.getTime())
    return { due, nextAt: later.length === 0 ? null : Math.min(...later) }
  }

  async claim(kind: AnyJobKind, limit: number): Promise<ClaimedJob[]> {
    let jobs = await this.fetch(kind, limit)
    if (kind.exclusive && jobs.length < limit && await this.postponeBlocked(kind) > 0) {
      jobs = [...jobs, ...await this.fetch(kind, limit - jobs.length)]
    }
    const claimed: ClaimedJob[] = []
    for (const job of jobs) {
      const attempt = job.retryCount + 1
      const attempts = job.retryLimit + 1
      // pg-boss counts an expired attempt as a failed one, so this only guards against surprises.
      if (attempt > attempts) {
        await this.boss.fail(kind.name, job.id, { message: 'no attempt left' })
        continue
      }
      claimed.push({
        id: job.id, kind: kind.name, payload: job.data?.payload ?? null, attempt, attempts,
        requestId: job.data?.requestId ?? null, claim: job.id,
      })
    }
    return claimed
  }

  private fetch(kind: AnyJobKind, limit: number): Promise<PgBoss.JobWithMetadata<Partial<Envelope> | null>[]> {
    return this.boss.fetch<Partial<Envelope> | null>(kind.name, { batchSize: limit, includeMetadata: true })
  }

  /**
   * In a stately queue, fetch() fails as a whole when the first job it picks has a key that is
   * running already, holding up every job behind it. Such jobs are pushed back a second (until
   * their key is free) so that the others can be claimed; like release(), this writes pg-boss's job
   * table, whose layout the exact version we depend on fixes.
   */
  private async postponeBlocked(kind: AnyJobKind): Promise<number> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${SCHEMA}.job waiting SET start_after = now() + interval '1 second'
       WHERE waiting.name = $1 AND waiting.state < 'active' AND waiting.start_after < now()
         AND EXISTS (SELECT 1 FROM ${SCHEMA}.job running
                     WHERE running.name = $1 AND running.state = 'active' AND running.singleton_key = waiting.singleton_key)`,
      [kind.name],
    )
    return rowCount ?? 0
  }

  async complete(job: ClaimedJob): Promise<void> {
    await this.boss.complete(job.kind, job.id)
  }

  async fail(job: ClaimedJob, error: string): Promise<'retry' | 'dead'> {
    await this.boss.fail(job.kind, job.id, { message: error })
    return job.attempt >= job.attempts ? 'dead' : 'retry'
  }

  /**
   * pg-boss 10 has no call that hands an active job back uncounted: this statement (pg-boss is
   * pinned to an exact version, whose job table it relies on) puts it back to `retry`, due now,
   * with its retry count lowered by the one fetch() adds when the job is next claimed.
   */
  async release(job: ClaimedJob): Promise<void> {
    try {
      await this.pool.query(
        `UPDATE ${SCHEMA}.job SET state = 'retry', start_after = now(), retry_count = retry_count - 1
         WHERE name = $1 AND id = $2 AND state = 'active'`,
        [job.kind, job.id],
      )
    } catch (err) {
      // A stately queue keeps one retrying job per key: with another already there, this one fails.
      if ((err as { code?: string }).code !== '23505') throw err
      await this.boss.fail(job.kind, job.id, { message: 'handed back at shutdown while another job with its key was waiting' })
    }
    this.notifySoon()
  }

  async renew(): Promise<Set<string>> {
    // No heartbeat in pg-boss: a job's lease is its expiry (time limit plus leaseMs), which an
    // attempt never outlives because the runner aborts it at its time limit.
    return new Set()
  }

  /** Tests only (the drain's `until`): waiting jobs due by then become due now. */
  async makeDue(kinds: readonly string[], until: number): Promise<void> {
    await this.pool.query(
      `UPDATE ${SCHEMA}.job SET start_after = now() - interval '1 millisecond'
       WHERE name = ANY($1) AND state < 'active' AND start_after >= now() AND start_after <= to_timestamp($2::float8 / 1000)`,
      [kinds, until],
    )
  }

  async startWorking(wake: () => void): Promise<void> {
    // Scheduled before the duties start: their first look at the schedules comes at once.
    for (const kind of this.kinds.values()) {
      if (kind.cron === undefined) continue
      await this.boss.schedule(kind.name, kind.cron, { payload: null, requestId: null } satisfies Envelope, { tz: 'UTC', singletonKey: 'recurring' })
    }
    const leaseSeconds = Math.max(1, Math.round(this.options.leaseMs / 1000))
    const duties = new PgBoss({
      db: dbOf(this.pool), schema: SCHEMA, migrate: false, supervise: true, schedule: true,
      maintenanceIntervalSeconds: Math.min(60, leaseSeconds),
      cronMonitorIntervalSeconds: this.options.cronPollSeconds,
      cronWorkerIntervalSeconds: this.options.cronPollSeconds,
      archiveCompletedAfterSeconds: ARCHIVE_DONE_AFTER_SECONDS,
      archiveFailedAfterSeconds: RETENTION_DAYS * 24 * 60 * 60,
      deleteAfterDays: DELETE_ARCHIVED_AFTER_DAYS,
    })
    duties.on('error', (err) => this.options.log.error({ err }, 'pg-boss maintenance failed'))
    await duties.start()
    this.duties = duties
    this.listening = true
    await this.listen(wake)
  }

  /** LISTENs for enqueues made elsewhere; reconnects after a lost connection (the poll covers the gap). */
  private async listen(wake: () => void): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.config.databaseUrl, application_name: 'ingot-jobs-listener' })
    const retry = () => {
      if (!this.listening || this.listener !== client) return
      this.listener = null
      client.end().catch(() => {})
      setTimeout(() => { if (this.listening) void this.listen(wake) }, 1000).unref()
    }
    this.listener = client
    client.on('notification', () => wake())
    client.on('error', (err) => {
      this.options.log.warn({ err }, 'job wake-up connection lost; reconnecting')
      retry()
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${WAKE_CHANNEL}`)
    } catch (err) {
      this.options.log.warn({ err }, 'cannot listen for job wake-ups; polling only until reconnected')
      retry()
    }
  }

  async stopWorking(): Promise<void> {
    this.listening = false
    const listener = this.listener
    this.listener = null
    await listener?.end().catch(() => {})
    await this.duties?.stop({ graceful: false, close: false })
    this.duties = null
  }

  async close(): Promise<void> {
    await this.stopWorking()
    await this.boss.stop({ graceful: false, close: false })
    await this.pool.end()
  }

  async counts(): Promise<JobCount[]> {
    const { rows } = await this.pool.query<{ name: string; state: JobRecord['state']; count: number }>(
      `SELECT name, state, count(*)::int AS count FROM ${SCHEMA}.job
       WHERE ${OURS} AND state IN ('created', 'retry', 'active', 'failed') GROUP BY name, state ORDER BY name, state`,
    )
    const counts = new Map<string, JobCount>()
    for (const row of rows) {
      const state = STATES[row.state]!
      const key = `${row.name} ${state}`
      const count = counts.get(key) ?? { kind: row.name, state, count: 0 }
      count.count += row.count
      counts.set(key, count)
    }
    return [...counts.values()]
  }

  async oldestDueAgeMs(): Promise<number | null> {
    const { rows } = await this.pool.query<{ age: number | null }>(
      `SELECT (extract(epoch FROM now() - min(start_after)) * 1000)::float8 AS age FROM ${SCHEMA}.job
       WHERE ${OURS} AND state < 'active' AND start_after < now()`,
    )
    return rows[0]?.age ?? null
  }

  async list(filter: JobListFilter): Promise<JobSummary[]> {
    const states = filter.state === undefined ? ['created', 'retry', 'active', 'failed']
      : Object.entries(STATES).filter(([, state]) => state === filter.state).map(([pgState]) => pgState)
    const { rows } = await this.pool.query<JobRecord>(
      `SELECT id, name, data, state, retry_count, retry_limit, singleton_key, start_after, started_on, created_on, completed_on, output
       FROM ${SCHEMA}.job WHERE ${OURS} AND state = ANY($1::${SCHEMA}.job_state[]) AND ($2::text IS NULL OR name = $2)
       ORDER BY created_on, id LIMIT $3`,
      [states, filter.kind ?? null, filter.limit ?? 100],
    )
    return rows.map((row) => ({
      id: row.id,
      kind: row.name,
      state: STATES[row.state]!,
      payload: row.data?.payload ?? null,
      // fetch() counts a retry when it claims the job again.
      attempts: row.started_on === null ? 0 : row.retry_count + 1,
      maxAttempts: row.retry_limit + 1,
      uniqueKey: row.singleton_key === row.id ? null : row.singleton_key,
      runAt: (row.state === 'active' ? row.started_on ?? row.start_after : row.start_after).getTime(),
      lastError: row.output?.message ?? row.output?.value?.message ?? null,
      createdAt: row.created_on.getTime(),
      finishedAt: row.state === 'failed' ? row.completed_on?.getTime() ?? null : null,
      requestId: row.data?.requestId ?? null,
    }))
  }

  async retryDead(id: string | null): Promise<number> {
    if (id !== null && !UUID.test(id)) return 0
    const { rows } = await this.pool.query<{ name: string; ids: string[] }>(
      `SELECT name, array_agg(id) AS ids FROM ${SCHEMA}.job
       WHERE ${OURS} AND state = 'failed' AND ($1::uuid IS NULL OR id = $1) GROUP BY name`,
      [id],
    )
    let retried = 0
    for (const row of rows) {
      await this.boss.retry(row.name, row.ids)
      retried += row.ids.length
    }
    if (retried > 0) this.notifySoon()
    return retried
  }

  async remove(ids: readonly string[]): Promise<number> {
    const valid = ids.filter((id) => UUID.test(id))
    if (valid.length === 0) return 0
    const { rows } = await this.pool.query<{ name: string; ids: string[] }>(
      `SELECT name, array_agg(id) AS ids FROM ${SCHEMA}.job
       WHERE ${OURS} AND id = ANY($1::uuid[]) AND state <> 'active' GROUP BY name`,
      [valid],
    )
    let removed = 0
    for (const row of rows) {
      await this.boss.deleteJob(row.name, row.ids)
      removed += row.ids.length
    }
    return removed
  }
}

/** pg-boss runs its statements through this: our pool, or one client inside a transaction. */
function dbOf(target: pg.Pool | pg.PoolClient): PgBoss.Db {
  return { executeSql: (text: string, values: unknown[]) => target.query(text, values) }
}
