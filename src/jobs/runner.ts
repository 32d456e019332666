// The one runner both engines share: it claims due jobs up to the process's concurrency and each
// kind's own cap, giving every kind with due jobs a slot before any kind gets a second, so a flood
// of one kind (deliveries to a slow receiver) never starves the others. Each attempt runs under its
// kind's time limit with an AbortSignal, and its claim is renewed while it runs. It wakes at once
// when a job is enqueued here or (through the store) elsewhere, when a delayed job falls due, and
// otherwise polls. On stop it claims nothing more, lets running jobs finish until a deadline, then
// aborts and hands back the rest for another process to run.
import { performance } from 'node:perf_hooks'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import type { AppContext, ContextScope } from '../context.js'
import { timeLimitOf, type AnyJobKind } from './kind.js'
import type { ClaimedJob, JobStore } from './store.js'

export type JobOutcome = 'done' | 'retry' | 'dead'

/** What metrics subscribe to (ctx.jobs.observe). Hand-backs at shutdown are no outcome. */
export interface JobObserver {
  enqueued?(kind: string): void
  finished?(kind: string, outcome: JobOutcome, durationMs: number): void
}

export interface RunnerOptions {
  store: JobStore
  kinds: readonly AnyJobKind[]
  config: Config
  log: FastifyBaseLogger
  contextOf: (scope: ContextScope) => AppContext
  observers: ReadonlySet<JobObserver>
  /** How often to look for due jobs when nothing woke the runner. */
  pollMs: number
}

/** How long an aborted handler may take to give up before the runner stops waiting for it. */
const ABANDON_AFTER_MS = 5_000

class TimeLimitExceeded extends Error {
  constructor(limitMs: number) {
    super(`the attempt took longer than its time limit of ${limitMs} ms`)
  }
}
class HandedBack extends Error {
  constructor() {
    super('the process is shutting down')
  }
}
class LeaseLost extends Error {
  constructor() {
    super('another process took the job over after its lease ran out')
  }
}

interface Execution {
  job: ClaimedJob
  controller: AbortController
  done: Promise<void>
}

export class JobRunner {
  private readonly kinds: Map<string, AnyJobKind>
  private readonly running = new Map<string, Execution>()
  private readonly runningByKind = new Map<string, number>()
  private state: 'idle' | 'working' | 'stopping' | 'stopped' = 'idle'
  private loop: Promise<void> | null = null
  private wakeRequested = false
  private interruptSleep: (() => void) | null = null
  private renewTimer: NodeJS.Timeout | null = null
  private rotation = 0
  private stopping: Promise<void> | null = null

  constructor(private readonly options: RunnerOptions) {
    this.kinds = new Map(options.kinds.map((kind) => [kind.name, kind]))
  }

  async start(): Promise<void> {
    if (this.state !== 'idle') throw new Error('the job runner has been started already')
    this.state = 'working'
    await this.options.store.startWorking(() => this.wake())
    this.loop = this.work()
    this.options.log.info({ concurrency: this.options.config.jobConcurrency, kinds: this.kinds.size }, 'working jobs')
  }

  /** Looks for due jobs now (an enqueue, a freed slot, a wake-up from another process). */
  wake(): void {
    if (this.state !== 'working') return
    this.wakeRequested = true
    this.interruptSleep?.()
  }

  private async work(): Promise<void> {
    while (this.state === 'working') {
      this.wakeRequested = false
      let claimed = 0
      let nextAt: number | null = null
      try {
        ({ claimed, nextAt } = await this.claimRound())
      } catch (err) {
        this.options.log.error({ err }, 'claiming jobs failed')
      }
      if (this.state !== 'working') break
      if (claimed > 0 || this.wakeRequested) continue
      const now = Date.now()
      await this.sleep(nextAt !== null && nextAt > now ? Math.min(nextAt - now, this.options.pollMs) : this.options.pollMs)
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.interruptSleep = () => {
        this.interruptSleep = null
        done()
      }
    })
  }

  /** One look at what is due, and claims for the free slots. */
  private async claimRound(): Promise<{ claimed: number; nextAt: number | null }> {
    let free = this.options.config.jobConcurrency - this.running.size
    const open = [...this.kinds.values()].filter((kind) => this.runningOf(kind) < kind.concurrency)
    if (free <= 0 || open.length === 0) return { claimed: 0, nextAt: null }
    const { due, nextAt } = await this.options.store.dueKinds(open.map((kind) => kind.name))
    // Kinds with nothing running first; among them and among the rest, rotated from one round to
    // the next so that kinds take turns at the first free slot.
    const start = due.length === 0 ? 0 : this.rotation++ % due.length
    const rotated = [...due.slice(start), ...due.slice(0, start)].map((name) => this.kinds.get(name)!)
    const order = [...rotated.filter((kind) => this.runningOf(kind) === 0), ...rotated.filter((kind) => this.runningOf(kind) > 0)]
    const wanted = new Map<AnyJobKind, number>()
    for (const kind of order) {
      if (free === 0) break
      wanted.set(kind, 1)
      free -= 1
    }
    for (const kind of order) {
      if (free === 0 || !wanted.has(kind)) break
      const more = Math.min(free, kind.concurrency - this.runningOf(kind) - 1)
      wanted.set(kind, 1 + more)
      free -= more
    }
    let claimed = 0
    for (const [kind, count] of wanted) {
      if (this.state !== 'working') break
      for (const job of await this.options.store.claim(kind, count)) {
        const running = this.running.get(job.id)
        if (running !== undefined) {
          // This process runs the job already: its renewals came late (the event loop or the
          // connection was busy for longer than the lease) and it claimed its own job again. The
          // attempt running goes on under the new claim rather than a second one starting beside it.
          running.job.claim = job.claim
          this.options.log.warn({ job: kind.name, jobId: job.id }, 'a running job was claimed again after its lease ran out; it keeps running')
          continue
        }
        void this.launch(kind, job)
        claimed += 1
      }
    }
    return { claimed, nextAt }
  }

  private runningOf(kind: AnyJobKind): number {
    return this.runningByKind.get(kind.name) ?? 0
  }

  private launch(kind: AnyJobKind, job: ClaimedJob): Promise<void> {
    const controller = new AbortController()
    const execution: Execution = { job, controller, done: Promise.resolve() }
    this.running.set(job.id, execution)
    this.runningByKind.set(kind.name, this.runningOf(kind) + 1)
    this.keepRenewing()
    execution.done = this.execute(kind, job, controller).finally(() => {
      this.running.delete(job.id)
      this.runningByKind.set(kind.name, this.runningOf(kind) - 1)
      if (this.running.size === 0 && this.renewTimer !== null) {
        clearInterval(this.renewTimer)
        this.renewTimer = null
      }
      this.wake()
    })
    return execution.done
  }

  private async execute(kind: AnyJobKind, job: ClaimedJob, controller: AbortController): Promise<void> {
    const log = this.options.log.child({
      job: kind.name, jobId: job.id, attempt: job.attempt, ...(job.requestId === null ? {} : { request_id: job.requestId }),
    })
    const limitMs = timeLimitOf(kind, this.options.config)
    const timer = setTimeout(() => controller.abort(new TimeLimitExceeded(limitMs)), limitMs)
    const started = performance.now()
    let outcome: JobOutcome | null = null
    log.debug('job started')
    try {
      const work = Promise.resolve().then(() => kind.run(this.options.contextOf({ requestId: job.requestId, log }), job.payload, {
        id: job.id, kind: kind.name, attempt: job.attempt, attempts: job.attempts, signal: controller.signal, log, requestId: job.requestId,
      }))
      await settleOrAbandon(work, controller.signal, ABANDON_AFTER_MS, log)
      await this.options.store.complete(job)
      outcome = 'done'
    } catch (err) {
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : null
      if (reason instanceof HandedBack) {
        await this.options.store.release(job).catch((releaseErr: unknown) => log.error({ err: releaseErr }, 'could not hand the job back'))
        log.info('job handed back at shutdown')
      } else if (reason instanceof LeaseLost) {
        log.error({ err: reason }, 'job lost')
      } else {
        const message = reason instanceof TimeLimitExceeded ? reason.message : errorMessage(err)
        outcome = await this.options.store.fail(job, message).catch((failErr: unknown) => {
          log.error({ err: failErr }, 'could not record the failed attempt; the job runs again once its lease runs out')
          return null
        })
        if (outcome === 'dead') log.error({ err, attempts: job.attempts }, 'job dead: it failed its last attempt')
        else log.warn({ err: reason ?? err }, 'job failed; it will be retried')
      }
    } finally {
      clearTimeout(timer)
    }
    const durationMs = performance.now() - started
    if (outcome === 'done') log.info({ ms: Math.round(durationMs) }, 'job done')
    if (outcome !== null) this.notifyFinished(kind.name, outcome, durationMs)
  }

  private notifyFinished(kind: string, outcome: JobOutcome, durationMs: number): void {
    for (const observer of this.options.observers) {
      try {
        observer.finished?.(kind, outcome, durationMs)
      } catch (err) {
        this.options.log.error({ err }, 'a job observer failed')
      }
    }
  }

  /** Renews the claims of running jobs while there are any; aborts those another process took over. */
  private keepRenewing(): void {
    const every = this.options.store.renewEveryMs
    if (every === null || this.renewTimer !== null) return
    this.renewTimer = setInterval(() => {
      const executions = [...this.running.values()]
      this.options.store.renew(executions.map((execution) => execution.job)).then((lost) => {
        for (const execution of executions) if (lost.has(execution.job.id)) execution.controller.abort(new LeaseLost())
      }, (err: unknown) => this.options.log.error({ err }, 'renewing job leases failed'))
    }, every)
    this.renewTimer.unref()
  }

  /**
   * Runs every job due by `until` (default now), one at a time in the order they fell due, and the
   * jobs those enqueue, until none is due; how many ran. Tests drive jobs with it; a later `until`
   * reaches retries and delayed jobs.
   */
  async runDue(until: number = Date.now()): Promise<number> {
    const names = [...this.kinds.keys()]
    let ran = 0
    for (;;) {
      if (until > Date.now()) await this.options.store.makeDue(names, until)
      const { due } = await this.options.store.dueKinds(names)
      let next: { kind: AnyJobKind; job: ClaimedJob } | null = null
      for (const name of due) {
        const kind = this.kinds.get(name)!
        const [job] = await this.options.store.claim(kind, 1)
        if (job !== undefined) {
          next = { kind, job }
          break
        }
      }
      if (next === null) return ran
      await this.launch(next.kind, next.job)
      ran += 1
    }
  }

  /**
   * Stops claiming, lets running jobs finish until `deadlineMs` has passed, then aborts the rest
   * and hands them back (not counted as failed attempts) for another process to run.
   */
  stop(deadlineMs: number): Promise<void> {
    this.stopping ??= this.shutDown(deadlineMs)
    return this.stopping
  }

  private async shutDown(deadlineMs: number): Promise<void> {
    const wasWorking = this.state === 'working'
    this.state = 'stopping'
    this.interruptSleep?.()
    await this.loop
    if (wasWorking) await this.options.store.stopWorking()
    const allDone = () => Promise.allSettled([...this.running.values()].map((execution) => execution.done))
    if (this.running.size > 0) {
      this.options.log.info({ running: this.running.size, deadlineMs }, 'waiting for running jobs to finish')
      let deadline: NodeJS.Timeout | undefined
      await Promise.race([allDone(), new Promise((resolve) => { deadline = setTimeout(resolve, deadlineMs) })])
      clearTimeout(deadline)
    }
    for (const execution of this.running.values()) execution.controller.abort(new HandedBack())
    await allDone()
    this.state = 'stopped'
  }
}

/**
 * The handler's own result; once `signal` aborts, the handler has `graceMs` to give up before the
 * runner stops waiting for it (and the abort's reason becomes the attempt's error).
 */
function settleOrAbandon(work: Promise<void>, signal: AbortSignal, graceMs: number, log: FastifyBaseLogger): Promise<void> {
  return new Promise((resolve, reject) => {
    let abandon: NodeJS.Timeout | undefined
    const onAbort = () => {
      abandon = setTimeout(() => {
        log.error({ graceMs }, 'the job handler ignored its abort; no longer waiting for it')
        reject(signal.reason)
      }, graceMs)
    }
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', onAbort)
      clearTimeout(abandon)
    })
  })
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
