// The two job engines behind one runner: where jobs are kept and how they are claimed, completed,
// failed, released and woken up. table-store.ts keeps them in our own `jobs` table (the embedded
// SQLite default); pg-boss-store.ts hands them to pg-boss on PostgreSQL. The runner (runner.ts)
// decides what to claim and runs it; a store never runs a handler.
import type { AnyJobKind } from './kind.js'

/** waiting (due now or later, retries included), running (claimed), dead (failed for the last time). */
export type JobState = 'waiting' | 'running' | 'dead'

export interface EnqueueRequest {
  kind: AnyJobKind
  payload: unknown
  uniqueKey: string | null
  /** Epoch milliseconds; null for now. */
  runAt: number | null
  requestId: string | null
}

/** A job this process has claimed and must complete, fail or release. */
export interface ClaimedJob {
  id: string
  kind: string
  payload: unknown
  /** 1 for the first attempt. */
  attempt: number
  attempts: number
  requestId: string | null
  /** The store's proof of the claim (the table store's claim token); opaque to the runner. */
  claim: string
}

/** A job as operators and tests see it. */
export interface JobSummary {
  id: string
  kind: string
  state: JobState
  payload: unknown
  /** Attempts started so far. */
  attempts: number
  /** Attempts allowed in all (a retried dead job is allowed one more). */
  maxAttempts: number
  uniqueKey: string | null
  /** When it runs (waiting), or when its current attempt started (running). */
  runAt: number
  lastError: string | null
  createdAt: number
  /** When it died (dead), else null. */
  finishedAt: number | null
  requestId: string | null
}

export interface JobCount {
  kind: string
  state: JobState
  count: number
}

export interface JobListFilter {
  kind?: string
  state?: JobState
  /** At most this many, oldest first (default 100). */
  limit?: number
}

export interface DueKinds {
  /** Kinds with a job to claim now, the one with the oldest due job first. */
  due: string[]
  /** When the next waiting job falls due, if any does later. */
  nextAt: number | null
}

export interface JobStore {
  /** The new job's id; null when a job with its unique key is waiting already. */
  enqueue(request: EnqueueRequest): Promise<string | null>
  /** Jobs without unique keys, in as few statements as the engine allows. */
  enqueueMany(requests: readonly EnqueueRequest[]): Promise<void>
  dueKinds(kinds: readonly string[]): Promise<DueKinds>
  claim(kind: AnyJobKind, limit: number): Promise<ClaimedJob[]>
  complete(job: ClaimedJob): Promise<void>
  /** Records a failed attempt; the job waits for its retry, or is dead after its last attempt. */
  fail(job: ClaimedJob, error: string): Promise<'retry' | 'dead'>
  /** Hands a claimed job back, due now, without counting the attempt (shutdown). */
  release(job: ClaimedJob): Promise<void>
  /** Keeps the claims alive; the ids of those that were lost (taken over after their lease ran out). */
  renew(jobs: readonly ClaimedJob[]): Promise<Set<string>>
  /** How often renew() must be called while jobs run; null when claims need no renewal. */
  readonly renewEveryMs: number | null
  /** Tests: makes the waiting jobs due by `until` due now. */
  makeDue(kinds: readonly string[], until: number): Promise<void>
  /** Work starts in this process: recurring schedules, maintenance, and wake-ups from other processes. */
  startWorking(wake: () => void): Promise<void>
  stopWorking(): Promise<void>
  close(): Promise<void>

  counts(): Promise<JobCount[]>
  /** How long the oldest job due to run has been waiting; null when none is due. */
  oldestDueAgeMs(): Promise<number | null>
  list(filter: JobListFilter): Promise<JobSummary[]>
  /** Makes dead jobs wait again with one more attempt: one by id, or every one (id null); how many. */
  retryDead(id: string | null): Promise<number>
  /** Deletes waiting or dead jobs; how many. */
  remove(ids: readonly string[]): Promise<number>
}
