// Job queues of the tests' own kinds, on a test app's database: each behaves as another process
// would (its own engine connection, runner and wake-ups); close them before the app.
import type { TestApp } from './app.js'
import type { AnyJobKind } from '../../src/jobs/kind.js'
import { openJobQueue, type JobQueue, type JobQueueTuning } from '../../src/jobs/queue.js'

export function openTestQueue(t: TestApp, kinds: readonly AnyJobKind[], tuning: JobQueueTuning = {}): Promise<JobQueue> {
  return openJobQueue({ config: t.ctx.config, db: t.ctx.db, dialect: t.ctx.dialect, log: t.ctx.log, kinds, contextOf: () => t.ctx, tuning })
}

/** Waits until `condition` holds, checking every 10 ms; fails the test after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!await condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** A promise the test resolves when it pleases: handlers wait on it to stay running. */
export function gate(): { open(): void; opened: Promise<void> } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { open, opened }
}
