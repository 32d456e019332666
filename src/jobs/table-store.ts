// The embedded job engine, for the SQLite default: jobs live in our own `jobs` table, and every
// process sharing the file (`ingot web --no-jobs` beside `ingot worker`) claims them by
// compare-and-swap, so no job runs twice. A claim is a short lease the running process renews; a
// job whose process died is claimed again once its lease has run out, or kept as dead if that was
// its last attempt. Enqueuing touches a wake file the other processes watch, so they start it at
// once; a poll catches anything a wake-up missed.
import fs from 'node:fs'
import os from 'node:os'
import { randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { sql, type ExpressionBuilder } from 'kysely'
import type { Db } from '../db/index.js'
import type { Database, JobRow } from '../db/schema.js'
import { nextCronTime, recentCronTime, retryDelay, type AnyJobKind } from './kind.js'
import type { ClaimedJob, DueKinds, EnqueueRequest, JobCount, JobListFilter, JobState, JobStore, JobSummary } from './store.js'

export interface TableStoreOptions {
  db: Db
  log: FastifyBaseLogger
  /** Touched after every enqueue; watched by the processes that work jobs. */
  wakeFile: string
  /** How long a claim holds without renewal. */
  leaseMs: number
  kinds: readonly AnyJobKind[]
}

/** Dead jobs are kept this long for operators to look at and retry. */
const DEAD_RETENTION_MS = 30 * 24 * 60 * 60 * 1000
const MAINTENANCE_EVERY_MS = 60 * 60 * 1000
/** A recurring job whose time passed less than this long ago (the process was starting) still runs. */
const MISSED_RUN_WINDOW_MS = 60_000
/** Rows per INSERT: SQLite caps the variables of one statement. */
const INSERT_CHUNK = 500

/** Unique and exclusive keys hold per kind: the table's one unique column holds them prefixed. */
const storedKey = (kind: string, key: string) => `${kind}:${key}`
/** The key of a recurring kind's scheduled run. */
const RECURRING = 'recurring'

/** The job has no exclusive key, or no other running job (whose lease holds) has it. */
function exclusiveKeyFree(eb: ExpressionBuilder<Database, 'jobs'>, now: number) {
  return eb.or([
    eb('exclusive_key', 'is', null),
    eb.not(eb.exists(eb.selectFrom('jobs as other').select('other.id')
      .whereRef('other.exclusive_key', '=', 'jobs.exclusive_key')
      .where('other.state', '=', 'running').where('other.lease_until', '>=', now)
      .whereRef('other.id', '<>', 'jobs.id'))),
  ])
}

export class TableJobStore implements JobStore {
  readonly renewEveryMs: number
  private readonly processTag = `${os.hostname()}:${process.pid}`
  private watcher: fs.FSWatcher | null = null
  private maintenance: NodeJS.Timeout | null = null
  private touchPending = false
  private readonly db: Db

  constructor(private readonly options: TableStoreOptions) {
    this.db = options.db
    this.renewEveryMs = Math.max(10, Math.floor(options.leaseMs / 3))
    fs.writeFileSync(options.wakeFile, '', { flag: 'a' })
  }

  async enqueue(request: EnqueueRequest): Promise<string | null> {
    const inserted = await this.db.insertInto('jobs').values(this.rowOf(request, Date.now()))
      .onConflict((oc) => oc.column('unique_key').doNothing()).returning('id').executeTakeFirst()
    if (inserted === undefined) return null
    this.touchWakeFile()
    return String(inserted.id)
  }

  async enqueueMany(requests: readonly EnqueueRequest[]): Promise<void> {
    const now = Date.now()
    for (let start = 0; start < requests.length; start += INSERT_CHUNK) {
      await this.db.insertInto('jobs').values(requests.slice(start, start + INSERT_CHUNK).map((request) => this.rowOf(request, now))).execute()
    }
    if (requests.length > 0) this.touchWakeFile()
  }

  private rowOf(request: EnqueueRequest, now: number) {
    return {
      kind: request.kind.name,
      payload: JSON.stringify(request.payload ?? null),
      unique_key: request.uniqueKey === null ? null : storedKey(request.kind.name, request.uniqueKey),
      exclusive_key: request.kind.exclusive && request.uniqueKey !== null ? storedKey(request.kind.name, request.uniqueKey) : null,
      run_at: request.runAt ?? now,
      max_attempts: request.kind.attempts,
      request_id: request.requestId,
      created_at: now,
    }
  }

  /** Tells the other processes; several enqueues in one tick touch the file once. */
  private touchWakeFile(): void {
    if (this.touchPending) return
    this.touchPending = true
    setImmediate(() => {
      this.touchPending = false
      const now = new Date()
      fs.utimes(this.options.wakeFile, now, now, (err) => {
        if (err !== null) this.options.log.warn({ err }, 'could not touch the job wake file')
      })
    })
  }

  async dueKinds(kinds: readonly string[]): Promise<DueKinds> {
    if (kinds.length === 0) return { due: [], nextAt: null }
    const now = Date.now()
    // Per kind, its earliest waiting job: one index lookup each, however many jobs wait.
    const earliest = await sql<{ kind: string; at: number | null }>`
      with wanted(kind) as (values ${sql.join(kinds.map((kind) => sql`(${kind})`))})
      select wanted.kind, (select min(run_at) from jobs where jobs.state = 'waiting' and jobs.kind = wanted.kind) as at
      from wanted`.execute(this.db)
    const expired = await this.db.selectFrom('jobs').select('kind').distinct()
      .where('state', '=', 'running').where('lease_until', '<', now).where('kind', 'in', kinds).execute()
    const dueAt = new Map<string, number>()
    let nextAt: number | null = null
    for (const { kind, at } of earliest.rows) {
      if (at === null) continue
      if (at <= now) dueAt.set(kind, at)
      else nextAt = nextAt === null ? at : Math.min(nextAt, at)
    }
    for (const row of expired) dueAt.set(row.kind, Math.min(dueAt.get(row.kind) ?? now, now))
    const due = [...dueAt.entries()].sort((a, b) => a[1] - b[1]).map(([kind]) => kind)
    return { due, nextAt }
  }

  async claim(kind: AnyJobKind, limit: number): Promise<ClaimedJob[]> {
    const now = Date.now()
    // Jobs whose process died, then due ones, each in index order; none whose exclusive key is
    // held by a running job.
    const abandoned: JobRow[] = await this.db.selectFrom('jobs').selectAll()
      .where('state', '=', 'running').where('lease_until', '<', now).where('kind', '=', kind.name)
      .where((eb) => exclusiveKeyFree(eb, now))
      .orderBy('lease_until').limit(limit).execute()
    const due: JobRow[] = abandoned.length === limit ? [] : await this.db.selectFrom('jobs').selectAll()
      .where('state', '=', 'waiting').where('kind', '=', kind.name).where('run_at', '<=', now)
      .where((eb) => exclusiveKeyFree(eb, now))
      .orderBy('run_at').orderBy('id').limit(limit - abandoned.length).execute()
    const candidates = [...abandoned, ...due]
    const claimed: ClaimedJob[] = []
    for (const candidate of candidates) {
      // Attempts are checked here, not only on failure: a job that hangs or kills its process
      // stops being retried.
      if (candidate.attempts >= candidate.max_attempts) {
        await this.markDeadAtClaim(candidate, now)
        continue
      }
      const job = await this.takeOver(kind, candidate, now)
      if (job !== null) claimed.push(job)
    }
    return claimed
  }

  private async markDeadAtClaim(candidate: JobRow, now: number): Promise<void> {
    const error = candidate.state === 'running'
      ? `the process working on attempt ${candidate.attempts} stopped (its lease ran out)`
      : candidate.last_error ?? 'no attempt left'
    await this.db.updateTable('jobs')
      .set({ state: 'dead', finished_at: now, lease_until: null, claim: null, unique_key: null, last_error: error })
      .where('id', '=', candidate.id).where('state', '=', candidate.state).where('attempts', '=', candidate.attempts)
      .execute()
    this.options.log.error({ job: candidate.kind, jobId: String(candidate.id), attempts: candidate.attempts, err: error }, 'job dead')
  }

  /** The compare-and-swap: the row changes only if it is still as it was read, and still free to take. */
  private async takeOver(kind: AnyJobKind, candidate: JobRow, now: number): Promise<ClaimedJob | null> {
    const claim = `${this.processTag}:${randomBytes(6).toString('hex')}`
    const take = (db: Db) => db.updateTable('jobs')
      .set((eb) => ({
        state: 'running', attempts: eb('attempts', '+', 1), lease_until: now + this.options.leaseMs, claim,
        started_at: now, unique_key: null,
      }))
      .where('id', '=', candidate.id).where('state', '=', candidate.state).where('attempts', '=', candidate.attempts)
      .where((eb) => eb.or([eb('state', '=', 'waiting'), eb('lease_until', '<', now)]))
      .where((eb) => exclusiveKeyFree(eb, now))
      .returning(['attempts', 'max_attempts'])
      .executeTakeFirst()
    const recurring = kind.cron !== undefined && candidate.unique_key === storedKey(kind.name, RECURRING) ? kind.cron : null
    // A recurring kind's scheduled run hands its key to the next run in the same transaction, so
    // that no process starting meanwhile books a second run of the same time.
    const taken = recurring === null ? await take(this.db) : await this.db.transaction().execute(async (trx) => {
      const row = await take(trx)
      if (row !== undefined) {
        const next = { kind, payload: null, uniqueKey: RECURRING, runAt: nextCronTime(recurring, now), requestId: null }
        await trx.insertInto('jobs').values(this.rowOf(next, now)).execute()
      }
      return row
    })
    if (taken === undefined) return null
    return {
      id: String(candidate.id), kind: kind.name, payload: JSON.parse(candidate.payload) as unknown,
      attempt: taken.attempts, attempts: taken.max_attempts, requestId: candidate.request_id, claim,
    }
  }

  async complete(job: ClaimedJob): Promise<void> {
    await this.db.deleteFrom('jobs').where('id', '=', Number(job.id)).where('claim', '=', job.claim).execute()
  }

  async fail(job: ClaimedJob, error: string): Promise<'retry' | 'dead'> {
    const now = Date.now()
    const dead = job.attempt >= job.attempts
    const kind = this.options.kinds.find((known) => known.name === job.kind)
    const retryAt = now + (kind === undefined ? 0 : retryDelay(kind, job.attempt))
    await this.db.updateTable('jobs')
      .set(dead
        ? { state: 'dead', finished_at: now, lease_until: null, claim: null, last_error: error }
        : { state: 'waiting', run_at: retryAt, lease_until: null, claim: null, last_error: error })
      .where('id', '=', Number(job.id)).where('claim', '=', job.claim)
      .execute()
    return dead ? 'dead' : 'retry'
  }

  async release(job: ClaimedJob): Promise<void> {
    await this.db.updateTable('jobs')
      .set((eb) => ({ state: 'waiting', attempts: eb('attempts', '-', 1), run_at: Date.now(), lease_until: null, claim: null }))
      .where('id', '=', Number(job.id)).where('claim', '=', job.claim)
      .execute()
    this.touchWakeFile()
  }

  async renew(jobs: readonly ClaimedJob[]): Promise<Set<string>> {
    const lost = new Set(jobs.map((job) => job.claim))
    const leaseUntil = Date.now() + this.options.leaseMs
    for (let start = 0; start < jobs.length; start += INSERT_CHUNK) {
      const claims = jobs.slice(start, start + INSERT_CHUNK).map((job) => job.claim)
      const renewed = await this.db.updateTable('jobs').set({ lease_until: leaseUntil })
        .where('state', '=', 'running').where('claim', 'in', claims).returning('claim').execute()
      for (const row of renewed) lost.delete(row.claim ?? '')
    }
    return new Set(jobs.filter((job) => lost.has(job.claim)).map((job) => job.id))
  }

  async makeDue(kinds: readonly string[], until: number): Promise<void> {
    if (kinds.length === 0) return
    const now = Date.now()
    await this.db.updateTable('jobs').set({ run_at: now })
      .where('state', '=', 'waiting').where('kind', 'in', kinds).where('run_at', '>', now).where('run_at', '<=', until)
      .execute()
  }

  async startWorking(wake: () => void): Promise<void> {
    const now = Date.now()
    for (const kind of this.options.kinds) {
      if (kind.cron === undefined) continue
      // The run that was missed while starting, else the next one; nothing if one is booked.
      const runAt = recentCronTime(kind.cron, now, MISSED_RUN_WINDOW_MS) ?? nextCronTime(kind.cron, now)
      await this.enqueue({ kind, payload: null, uniqueKey: RECURRING, runAt, requestId: null })
    }
    try {
      this.watcher = fs.watch(this.options.wakeFile, { persistent: false }, () => wake())
      this.watcher.on('error', (err) => this.options.log.warn({ err }, 'job wake file no longer watched; polling only'))
    } catch (err) {
      this.options.log.warn({ err }, 'cannot watch the job wake file; polling only')
    }
    await this.pruneDead()
    this.maintenance = setInterval(() => {
      this.pruneDead().catch((err: unknown) => this.options.log.error({ err }, 'pruning dead jobs failed'))
    }, MAINTENANCE_EVERY_MS).unref()
  }

  private async pruneDead(): Promise<void> {
    await this.db.deleteFrom('jobs').where('state', '=', 'dead').where('finished_at', '<', Date.now() - DEAD_RETENTION_MS).execute()
  }

  async stopWorking(): Promise<void> {
    this.watcher?.close()
    this.watcher = null
    if (this.maintenance !== null) clearInterval(this.maintenance)
    this.maintenance = null
  }

  async close(): Promise<void> {
    await this.stopWorking()
  }

  async counts(): Promise<JobCount[]> {
    const rows = await this.db.selectFrom('jobs').select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy(['kind', 'state']).orderBy('kind').orderBy('state').execute()
    return rows.map((row) => ({ kind: row.kind, state: row.state, count: Number(row.count) }))
  }

  async oldestDueAgeMs(): Promise<number | null> {
    const now = Date.now()
    const row = await this.db.selectFrom('jobs').select((eb) => eb.fn.min('run_at').as('at'))
      .where('state', '=', 'waiting').where('run_at', '<=', now).executeTakeFirst()
    return row?.at === null || row?.at === undefined ? null : now - Number(row.at)
  }

  async list(filter: JobListFilter): Promise<JobSummary[]> {
    const rows = await this.db.selectFrom('jobs').selectAll()
      .$if(filter.kind !== undefined, (q) => q.where('kind', '=', filter.kind!))
      .$if(filter.state !== undefined, (q) => q.where('state', '=', filter.state!))
      .orderBy('id').limit(filter.limit ?? 100).execute()
    return rows.map((row) => ({
      id: String(row.id), kind: row.kind, state: row.state as JobState, payload: JSON.parse(row.payload) as unknown,
      attempts: row.attempts, maxAttempts: row.max_attempts, uniqueKey: row.unique_key?.slice(row.kind.length + 1) ?? null,
      runAt: row.state === 'running' ? row.started_at ?? row.run_at : row.run_at,
      lastError: row.last_error, createdAt: row.created_at, finishedAt: row.finished_at, requestId: row.request_id,
    }))
  }

  async retryDead(id: string | null): Promise<number> {
    if (id !== null && !/^\d{1,15}$/.test(id)) return 0
    const result = await this.db.updateTable('jobs')
      .set((eb) => ({ state: 'waiting', run_at: Date.now(), max_attempts: eb('attempts', '+', 1), finished_at: null }))
      .where('state', '=', 'dead')
      .$if(id !== null, (q) => q.where('id', '=', Number(id)))
      .executeTakeFirst()
    const retried = Number(result.numUpdatedRows)
    if (retried > 0) this.touchWakeFile()
    return retried
  }

  async remove(ids: readonly string[]): Promise<number> {
    const numeric = ids.filter((id) => /^\d{1,15}$/.test(id)).map(Number)
    if (numeric.length === 0) return 0
    const result = await this.db.deleteFrom('jobs').where('id', 'in', numeric).where('state', '<>', 'running').executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}
