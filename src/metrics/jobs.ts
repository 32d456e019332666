// The job system's metrics. Counters tell what this process did: jobs it enqueued, attempts it
// ran and how they ended (heard through ctx.jobs.observe, so enqueuing and running pay one
// increment). Gauges tell what the whole database holds, read from the queue when scraped: jobs by
// kind and state, and how long the oldest due job has waited; every process reports the same
// values, so aggregate them with max(), not sum().
import { Counter, Gauge, type Registry } from 'prom-client'
import type { AppContext } from '../context.js'
import type { JobOutcome, JobState } from '../jobs/queue.js'

const STATES: readonly JobState[] = ['waiting', 'running', 'dead']

/** The `outcome` label: an attempt that failed and will be retried reads better as `failed`. */
const OUTCOME_LABELS: Record<JobOutcome, string> = { done: 'done', retry: 'failed', dead: 'dead' }

export function registerJobMetrics(registry: Registry, ctx: AppContext): () => void {
  const enqueued = new Counter({
    name: 'ingot_jobs_enqueued_total',
    help: 'Jobs this process enqueued, by kind (a unique key already waiting enqueues nothing)',
    labelNames: ['kind'] as const,
    registers: [registry],
  })
  const finished = new Counter({
    name: 'ingot_jobs_finished_total',
    help: 'Job attempts this process ran, by kind and outcome: done; failed (it will be retried); dead (it failed its last attempt)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  })
  // Every kind this process knows starts at zero, so that rate() and alerts see a series from the start.
  for (const kind of ctx.jobs.kindNames()) {
    enqueued.inc({ kind }, 0)
    for (const outcome of Object.values(OUTCOME_LABELS)) finished.inc({ kind, outcome }, 0)
  }
  const unsubscribe = ctx.jobs.observe({
    enqueued: (kind) => enqueued.inc({ kind }),
    finished: (kind, outcome) => finished.inc({ kind, outcome: OUTCOME_LABELS[outcome] }),
  })

  new Gauge({
    name: 'ingot_jobs',
    help: 'Jobs in the database, by kind and state: waiting (due or not yet), running, dead',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    async collect() {
      const counts = await readOrSkip(ctx, () => ctx.jobs.counts())
      // Reset first: a kind whose jobs are gone shows zero (if this process knows it) or nothing, never its last count.
      this.reset()
      if (counts === undefined) return
      for (const kind of ctx.jobs.kindNames()) for (const state of STATES) this.set({ kind, state }, 0)
      for (const { kind, state, count } of counts) this.set({ kind, state }, count)
    },
  })
  new Gauge({
    name: 'ingot_jobs_oldest_due_age_seconds',
    help: 'How long the oldest job due to run has waited for a process to start it; 0 when none is due',
    registers: [registry],
    async collect() {
      const ageMs = await readOrSkip(ctx, () => ctx.jobs.oldestDueAgeMs())
      this.reset()
      if (ageMs === undefined) return
      this.set(ageMs === null ? 0 : ageMs / 1000)
    },
  })
  return unsubscribe
}

/**
 * The queue's answer; on failure (the database is away) the failure is logged and the series are
 * left out of this scrape, so that the rest of the page (the process's own metrics) still answers.
 */
async function readOrSkip<T>(ctx: AppContext, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read()
  } catch (err) {
    ctx.log.warn({ err }, 'could not read the job queue for the metrics')
    return undefined
  }
}
