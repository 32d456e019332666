// The job kinds test/jobs/worker-process.ts works in child processes: each run is told on standard
// output, so the test sees which process ran which job, and how often.
import { setTimeout as sleep } from 'node:timers/promises'
import { defineJobKind } from '../../src/jobs/kind.js'

/** Runs a little while and tells `ran <n> <pid>`. */
export const COUNTED_JOB = defineJobKind<{ n: number }>({
  name: 'test_processes.count_run',
  attempts: 3,
  timeLimitMs: 10_000,
  concurrency: 8,
  async run(_ctx, { n }) {
    await sleep(Math.floor(Math.random() * 10))
    process.stdout.write(`ran ${n} ${process.pid}\n`)
  },
})

/** Tells `started <pid>`, then kills its own process (as a crash or the OOM killer would). */
export const SELF_KILLING_JOB = defineJobKind<null>({
  name: 'test_processes.kill_worker',
  attempts: 2,
  timeLimitMs: 1_000,
  retryDelayMs: 1_000,
  concurrency: 1,
  async run() {
    process.stdout.write(`started ${process.pid}\n`)
    process.kill(process.pid, 'SIGKILL')
    await sleep(60_000)
  },
})

export const PROCESS_KINDS = [COUNTED_JOB, SELF_KILLING_JOB]
