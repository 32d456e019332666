// What a kind of background job is: its name, how often it may be tried, how long one attempt may
// take, how many run at once in one process, and what it runs. Kinds are typed values, defined once
// in the jobs.ts of the capability that owns them and gathered in jobs/kinds.ts, so that enqueuing
// one type-checks its payload: `ctx.jobs.enqueue(DELIVER_WEB_HOOK, delivery)`.
import { cronParser } from '../common/cron.js'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import type { AppContext } from '../context.js'

/** What a handler knows of the job it runs. */
export interface RunningJob {
  id: string
  kind: string
  /** 1 for the first attempt. */
  attempt: number
  attempts: number
  /**
   * Aborted when the attempt's time limit passes, when the process shuts down, or when the job's
   * lease was lost: pass it to git and outbound requests so that they are killed with the attempt.
   */
  signal: AbortSignal
  /** The process log, bound to the job's kind, id and attempt (and the request that enqueued it). */
  log: FastifyBaseLogger
  /** The id of the request that enqueued the job, when one did. */
  requestId: string | null
}

export interface JobKindDefinition<P> {
  /** `<capability>.<verb_object>`, e.g. `web_hooks.deliver`; also the queue's name on PostgreSQL. */
  name: string
  /** Tries in all; after the last failed one the job is kept as dead. */
  attempts: number
  /** How long one attempt may take; past it the attempt is aborted and counts as failed. */
  timeLimitMs: number | ((config: Config) => number)
  /** How many jobs of this kind one process runs at once (INGOT_JOB_CONCURRENCY caps all kinds together). */
  concurrency: number
  /** The wait before the first retry, doubled for each later one, plus up to as much again at random. 10 s when unset. */
  retryDelayMs?: number
  /**
   * One running job per unique key (e.g. one housekeeping per repository): every job of the kind is
   * enqueued with a uniqueKey, which also keeps a second one from waiting beside it.
   */
  exclusive?: boolean
  /**
   * A recurring kind: a job with a null payload at each time of this cron expression (UTC), once
   * across every process working jobs. A kind that stops recurring must be unscheduled by a
   * migration (its schedule is kept by the database on PostgreSQL).
   */
  cron?: string
  run(ctx: AppContext, payload: P, job: RunningJob): Promise<void>
}

export interface JobKind<P = unknown> extends Readonly<JobKindDefinition<P>> {
  readonly retryDelayMs: number
  readonly exclusive: boolean
}

/** Any kind, for lists of kinds; enqueue keeps the payload's type through JobKind<P>. */
export type AnyJobKind = JobKind<unknown>

const NAME = /^[a-z][a-z_]*\.[a-z][a-z_]*$/
/** pg-boss expires a job after at most a day; the longest time limit leaves room for the lease margin. */
const LONGEST_TIME_LIMIT_MS = 23 * 60 * 60 * 1000
const DEFAULT_RETRY_DELAY_MS = 10_000

export function defineJobKind<P>(definition: JobKindDefinition<P>): JobKind<P> {
  const { name, attempts, concurrency, timeLimitMs, cron } = definition
  const fail = (problem: string) => { throw new Error(`job kind ${name}: ${problem}`) }
  if (!NAME.test(name)) fail('the name must be <capability>.<verb_object> in lower case')
  if (!Number.isInteger(attempts) || attempts < 1) fail('attempts must be a whole number of at least 1')
  if (!Number.isInteger(concurrency) || concurrency < 1) fail('concurrency must be a whole number of at least 1')
  if (typeof timeLimitMs === 'number') checkTimeLimit(name, timeLimitMs)
  if (cron !== undefined) {
    try {
      cronParser.parseExpression(cron, { tz: 'UTC' })
    } catch (err) {
      fail(`bad cron expression "${cron}": ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  return { ...definition, retryDelayMs: definition.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS, exclusive: definition.exclusive ?? false }
}

function checkTimeLimit(name: string, timeLimitMs: number): number {
  if (!Number.isFinite(timeLimitMs) || timeLimitMs < 1 || timeLimitMs > LONGEST_TIME_LIMIT_MS) {
    throw new Error(`job kind ${name}: the time limit must be from 1 ms to ${LONGEST_TIME_LIMIT_MS} ms`)
  }
  return timeLimitMs
}

/** The kind's time limit under this configuration. */
export function timeLimitOf(kind: AnyJobKind, config: Config): number {
  return checkTimeLimit(kind.name, typeof kind.timeLimitMs === 'number' ? kind.timeLimitMs : kind.timeLimitMs(config))
}

/** The cron time at or before `now` when it lies within `windowMs`, else null: a run missed by less than that is still due. */
export function recentCronTime(cron: string, now: number, windowMs: number): number | null {
  const previous = cronParser.parseExpression(cron, { tz: 'UTC', currentDate: new Date(now) }).prev().getTime()
  return now - previous < windowMs ? previous : null
}

/** The first cron time after `now`. */
export function nextCronTime(cron: string, now: number): number {
  return cronParser.parseExpression(cron, { tz: 'UTC', currentDate: new Date(now) }).next().getTime()
}

/** The wait before the retry that follows failed attempt number `attempt` (1-based): as pg-boss's backoff. */
export function retryDelay(kind: AnyJobKind, attempt: number): number {
  const base = kind.retryDelayMs * 2 ** Math.min(16, attempt - 1)
  return Math.round(base + base * Math.random())
}
