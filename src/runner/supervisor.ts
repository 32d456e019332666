// Keeps one `ingot runner` child process running beside the process that starts it (the built-in
// runner of `ingot web`): restarted when it dies, after a pause that grows while it keeps dying;
// left stopped when it exits on its own (0 after a signal, 78 when it cannot work as configured,
// which a restart would not change). The child gets only the environment given here, never the
// parent's (its secrets, its database), and an IPC channel whose end stops it if the parent dies.
import { spawn, type ChildProcess } from 'node:child_process'
import type { Logger } from 'pino'
import { EXIT_CONFIG } from './command.js'

export interface SupervisedRunner {
  /** Stops the child (SIGTERM, then SIGKILL after `graceMs`) and restarts no more. */
  stop(graceMs?: number): Promise<void>
}

export interface SuperviseOptions {
  /** The command line of `ingot runner`: the program and its arguments. */
  command: readonly string[]
  env: Record<string, string>
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  /** Pause before the first restart; doubled after each quick death, up to 60 s. */
  restartDelayMs?: number
}

/** A child that ran this long was healthy: its next restart pauses the shortest again. */
const HEALTHY_RUN_MS = 60_000
const MAX_RESTART_DELAY_MS = 60_000

export function superviseRunner(options: SuperviseOptions): SupervisedRunner {
  const firstDelayMs = options.restartDelayMs ?? 1000
  let delayMs = firstDelayMs
  let child: ChildProcess | null = null
  let stopping = false
  let restartTimer: NodeJS.Timeout | null = null

  const start = () => {
    const startedAt = Date.now()
    const [file, ...args] = options.command
    const current = spawn(file!, args, { env: options.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    child = current
    options.log.info({ pid: current.pid }, 'built-in runner started')
    current.on('error', (err) => options.log.error({ err }, 'could not start the built-in runner'))
    current.on('exit', (code, signal) => {
      child = null
      if (stopping) return
      if (code === 0 || code === EXIT_CONFIG) {
        options.log.warn({ code }, 'the built-in runner exited; it will not be restarted')
        return
      }
      delayMs = Date.now() - startedAt > HEALTHY_RUN_MS ? firstDelayMs : delayMs
      options.log.error({ code, signal, restartInMs: delayMs }, 'the built-in runner died')
      restartTimer = setTimeout(start, delayMs)
      restartTimer.unref()
      delayMs = Math.min(delayMs * 2, MAX_RESTART_DELAY_MS)
    })
  }
  start()

  return {
    async stop(graceMs = 10_000) {
      stopping = true
      if (restartTimer !== null) clearTimeout(restartTimer)
      const running = child
      if (running === null || running.exitCode !== null || running.signalCode !== null) return
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => running.kill('SIGKILL'), graceMs)
        running.once('exit', () => {
          clearTimeout(kill)
          resolve()
        })
        running.kill('SIGTERM')
      })
    },
  }
}
