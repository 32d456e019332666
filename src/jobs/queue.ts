// ctx.jobs: the one interface callers see. Enqueue a job of a kind (jobs/kinds.ts lists them all)
// after the change that causes it commits, with an optional unique key, time and request id; work
// jobs in this process (start/stop, for `ingot web` and `ingot worker`), drive them by hand in
// tests (runDue), and look at them as operators do (counts, dead jobs, retries). The engine is our
// own `jobs` table on SQLite and pg-boss on PostgreSQL; one runner drives both.
import path from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import type { AppContext, ContextScope } from '../context.js'
import type { Db, Dialect } from '../db/index.js'
import type { AnyJobKind, JobKind } from './kind.js'
import { JobRunner, type JobObserver } from './runner.js'
import type { EnqueueRequest, JobCount, JobListFilter, JobState, JobStore, JobSummary } from './store.js'
import { TableJobStore } from './table-store.js'

// What callers (metrics, the admin command) see of jobs, from one place.
export type { JobObserver, JobOutcome } from './runner.js'
export type { JobCount, JobListFilter, JobState, JobSummary } from './store.js'

export interface EnqueueOptions {
  /**
   * While a job of the kind with this key waits to run, enqueuing another one does nothing; once it
   * runs the key is free again, so a change made meanwhile gets a run of its own. Required for
   * exclusive kinds, where it is also the key only one running job may hold.
   */
  uniqueKey?: string
  /** Epoch milliseconds; now when unset. */
  runAt?: number
  /**
   * The request that caused the job (null: none); its log lines carry it as request_id. Unset: the
   * request of the context the queue was reached through (forRequest).
   */
  requestId?: string | null
}

/** Knobs tests turn; production uses the defaults. */
export interface JobQueueTuning {
  /** Table engine: how long a claim lasts unless renewed. pg-boss: how long after its time limit a job counts as abandoned. */
  leaseMs?: number
  /** How often an idle runner looks for due jobs when nothing woke it. */
  pollMs?: number
  /** pg-boss: how often the cron schedules are looked at, and the runs they owe inserted. */
  cronPollSeconds?: number
}

export interface JobQueueOptions {
  config: Config
  db: Db
  dialect: Dialect
  log: FastifyBaseLogger
  kinds: readonly AnyJobKind[]
  /**
   * The context a job's handler runs with, bound to the job's log and request id (context.ts's
   * contextFor); the queue is part of it, so it is looked up when a job runs.
   */
  contextOf: (scope: ContextScope) => AppContext
  tuning?: JobQueueTuning
}

const TABLE_LEASE_MS = 30_000
const PG_BOSS_LEASE_MS = 60_000
const POLL_MS = 1_000
const CRON_POLL_SECONDS = 10

export async function openJobQueue(options: JobQueueOptions): Promise<JobQueue> {
  const { config, log, kinds, tuning = {} } = options
  const names = new Set<string>()
  for (const kind of kinds) {
    if (names.has(kind.name)) throw new Error(`two job kinds are named ${kind.name}`)
    names.add(kind.name)
  }
  let store: JobStore
  if (options.dialect === 'postgres') {
    // Loaded only for PostgreSQL, so the embedded default never pays for pg-boss.
    const { PgBossStore } = await import('./pg-boss-store.js')
    store = await PgBossStore.open({
      config, log, kinds, leaseMs: tuning.leaseMs ?? PG_BOSS_LEASE_MS, cronPollSeconds: tuning.cronPollSeconds ?? CRON_POLL_SECONDS,
    })
  } else {
    store = new TableJobStore({
      db: options.db, log, kinds, leaseMs: tuning.leaseMs ?? TABLE_LEASE_MS, wakeFile: path.join(config.dataDir, 'jobs.wake'),
    })
  }
  return new JobQueue(store, { ...options, pollMs: tuning.pollMs ?? POLL_MS })
}

export class JobQueue {
  private readonly kinds: Map<string, AnyJobKind>
  private readonly observers = new Set<JobObserver>()
  private readonly runner: JobRunner
  /** What enqueue stamps on jobs that name no request of their own (see forRequest). */
  private readonly requestId: string | null = null

  constructor(private readonly store: JobStore, private readonly options: JobQueueOptions & { pollMs: number }) {
    this.kinds = new Map(options.kinds.map((kind) => [kind.name, kind]))
    this.runner = new JobRunner({
      store, kinds: options.kinds, config: options.config, log: options.log, contextOf: options.contextOf,
      observers: this.observers, pollMs: options.pollMs,
    })
  }

  /**
   * This queue as a request (or a job) sees it: jobs enqueued through it carry `requestId` unless
   * they name their own. A view, not a second queue: everything else is this queue's.
   */
  forRequest(requestId: string | null): JobQueue {
    if (requestId === this.requestId) return this
    // A plain assignment rather than a property descriptor: this runs for every request.
    const view = Object.create(this) as { requestId: string | null }
    view.requestId = requestId
    return view as unknown as JobQueue
  }

  /** The new job's id; null when a job of the kind with the same uniqueKey was waiting already. */
  async enqueue<P>(kind: JobKind<P>, payload: P, options: EnqueueOptions = {}): Promise<string | null> {
    const id = await this.store.enqueue(this.request(kind, payload, options))
    if (id !== null) this.enqueued(kind.name, 1)
    return id
  }

  /** One job per payload, in as few statements as the engine allows (no unique keys). */
  async enqueueMany<P>(kind: JobKind<P>, payloads: readonly P[], options: Pick<EnqueueOptions, 'runAt' | 'requestId'> = {}): Promise<void> {
    if (payloads.length === 0) return
    await this.store.enqueueMany(payloads.map((payload) => this.request(kind, payload, options)))
    this.enqueued(kind.name, payloads.length)
  }

  private request<P>(kind: JobKind<P>, payload: P, options: EnqueueOptions): EnqueueRequest {
    if (this.kinds.get(kind.name) !== kind) throw new Error(`job kind ${kind.name} is not in this queue's list`)
    if (kind.exclusive && options.uniqueKey === undefined) throw new Error(`job kind ${kind.name} is exclusive: enqueue it with a uniqueKey`)
    return {
      kind: kind as AnyJobKind, payload, uniqueKey: options.uniqueKey ?? null, runAt: options.runAt ?? null, requestId: options.requestId === undefined ? this.requestId : options.requestId,
    }
  }

  private enqueued(kind: string, count: number): void {
    this.runner.wake()
    for (const observer of this.observers) {
      try {
        for (let n = 0; n < count; n++) observer.enqueued?.(kind)
      } catch (err) {
        this.options.log.error({ err }, 'a job observer failed')
      }
    }
  }

  /** Works jobs in this process from now on (recurring schedules included), until stop(). */
  start(): Promise<void> {
    return this.runner.start()
  }

  /**
   * Claims nothing more; running jobs may finish until the deadline (default
   * INGOT_SHUTDOWN_TIMEOUT_MS), then the rest are aborted and handed back for another process.
   */
  stop(deadlineMs: number = this.options.config.shutdownTimeoutMs): Promise<void> {
    return this.runner.stop(deadlineMs)
  }

  async close(): Promise<void> {
    await this.stop()
    await this.store.close()
  }

  /** Runs every job due by `until` (default now) and those they enqueue, one at a time; how many ran. */
  runDue(until?: number): Promise<number> {
    return this.runner.runDue(until)
  }

  /** Subscribes to enqueues and outcomes (metrics); returns the unsubscribe. */
  observe(observer: JobObserver): () => void {
    this.observers.add(observer)
    return () => this.observers.delete(observer)
  }

  /** The names of the kinds this queue enqueues and works. */
  kindNames(): string[] {
    return [...this.kinds.keys()]
  }

  /** Jobs by kind and state (waiting, running, dead); done jobs are not kept. */
  counts(): Promise<JobCount[]> {
    return this.store.counts()
  }

  /** The counts as a table: by kind (in name order), each with its number per state, and the totals. */
  async countsByKind(): Promise<{ kinds: [string, Record<JobState, number>][]; total: Record<JobState, number> }> {
    const byKind = new Map<string, Record<JobState, number>>()
    const total: Record<JobState, number> = { waiting: 0, running: 0, dead: 0 }
    for (const { kind, state, count } of await this.counts()) {
      const row = byKind.get(kind) ?? { waiting: 0, running: 0, dead: 0 }
      row[state] += count
      total[state] += count
      byKind.set(kind, row)
    }
    return { kinds: [...byKind.entries()].sort(([a], [b]) => a.localeCompare(b)), total }
  }

  /** How long the oldest job due to run has waited, in milliseconds; null when none is due. */
  oldestDueAgeMs(): Promise<number | null> {
    return this.store.oldestDueAgeMs()
  }

  /** Jobs oldest first, e.g. `list({ state: 'dead' })`. */
  list(filter: JobListFilter = {}): Promise<JobSummary[]> {
    return this.store.list(filter)
  }

  /** Makes a dead job wait again with one more attempt; false when no dead job has this id. */
  async retryDead(id: string): Promise<boolean> {
    const retried = await this.store.retryDead(id)
    this.runner.wake()
    return retried > 0
  }

  /** Makes every dead job wait again with one more attempt; how many. */
  async retryAllDead(): Promise<number> {
    const retried = await this.store.retryDead(null)
    this.runner.wake()
    return retried
  }

  /** Deletes waiting or dead jobs (a running one is left alone); how many. */
  remove(ids: readonly string[]): Promise<number> {
    return this.store.remove(ids)
  }
}
