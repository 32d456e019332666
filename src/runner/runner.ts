// The runner's main loop: make sure it has a runner token the server knows (the saved one, or a
// new registration), then ask for jobs and run up to `concurrency` of them at once. The server
// holds a job request open for a while (long polling), so a job is taken the moment it is
// pending; a quick empty answer that changed nothing waits a second before the next, and errors
// back off. Stopping (SIGTERM/SIGINT) stops asking, ends the running jobs as failed (a system
// failure, so a retry can run them elsewhere) and returns.
import fs from 'node:fs/promises'
import path from 'node:path'
import type { Logger } from 'pino'
import { RunnerClient, type JobPayload, type RunnerInfo } from './client.js'
import { runJob } from './job.js'
import type { Sandbox } from './sandbox.js'
import type { RunnerSettings } from './settings.js'
import { lockDirectory, readSavedRunner, saveRunner } from './state.js'

export class RunnerStartError extends Error {}

/** An empty answer quicker than this, with the same queue value, means the server does not hold requests: wait the rest. */
const MIN_POLL_MS = 1000
const MAX_BACKOFF_MS = 30_000

export interface Runner {
  /** Resolves when the runner has stopped (after stop()). */
  done: Promise<void>
  stop(): void
}

export async function startRunner(settings: RunnerSettings, sandbox: Sandbox, info: RunnerInfo, log: Logger): Promise<Runner> {
  await fs.mkdir(settings.dir, { recursive: true, mode: 0o700 })
  await fs.chmod(settings.dir, 0o700)
  if (!await lockDirectory(settings.dir)) throw new RunnerStartError(`another runner process uses ${settings.dir} (INGOT_RUNNER_DIR)`)
  // Work directories a killed runner left behind belong to jobs that will never finish here.
  await fs.rm(path.join(settings.dir, 'builds'), { recursive: true, force: true })
  await fs.mkdir(path.join(settings.dir, 'builds'), { mode: 0o700 })
  const client = new RunnerClient(settings.url, info)
  let token = await runnerToken(client, settings, log)
  const shutdown = new AbortController()
  const running = new Set<Promise<unknown>>()
  let slotFreed: () => void = () => {}

  const loop = async () => {
    let lastUpdate: string | null = null
    let failures = 0
    while (!shutdown.signal.aborted) {
      if (running.size >= settings.concurrency) {
        await new Promise<void>((resolve) => { slotFreed = resolve })
        continue
      }
      const askedAt = Date.now()
      let answer: Awaited<ReturnType<RunnerClient['requestJob']>>
      try {
        answer = await client.requestJob(token, lastUpdate, shutdown.signal)
        failures = 0
      } catch (err) {
        if (shutdown.signal.aborted) break
        failures += 1
        const waitMs = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 6))
        log.warn({ err: err instanceof Error ? err.message : String(err), retryInMs: waitMs }, 'could not ask the server for a job')
        await sleep(waitMs, shutdown.signal)
        continue
      }
      if (answer === 'forbidden') {
        log.warn('the server no longer knows this runner\'s token')
        token = await runnerToken(client, settings, log, true)
        continue
      }
      if (answer.job !== null) {
        const job = answer.job
        lastUpdate = answer.lastUpdate
        const run = runJob(job, { client, sandbox, info, dir: settings.dir, description: settings.description, cloneUrl: settings.cloneUrl, log, shutdown: shutdown.signal })
          .catch((err: unknown) => log.error({ err, job: (job as JobPayload).id }, 'job crashed'))
          .finally(() => {
            running.delete(run)
            slotFreed()
          })
        running.add(run)
        continue
      }
      const unchanged = answer.lastUpdate === lastUpdate
      lastUpdate = answer.lastUpdate
      const elapsed = Date.now() - askedAt
      if (unchanged && elapsed < MIN_POLL_MS) await sleep(MIN_POLL_MS - elapsed, shutdown.signal)
    }
    await Promise.all(running)
  }

  log.info({ url: settings.url, concurrency: settings.concurrency, sandbox: sandbox.kind }, 'runner started')
  const done = loop().then(() => log.info('runner stopped'))
  return {
    done,
    stop() {
      shutdown.abort()
      slotFreed()
    },
  }
}

/**
 * The runner token: the saved one while the server still knows it (and it was made for this
 * server), else a new registration with the registration token, saved for the next start.
 */
async function runnerToken(client: RunnerClient, settings: RunnerSettings, log: Logger, refused = false): Promise<string> {
  const saved = refused ? null : await readSavedRunner(settings.dir)
  if (saved !== null && saved.url === settings.url) {
    if (await client.verify(saved.token)) {
      log.info({ runner: saved.id }, 'using the saved runner token')
      return saved.token
    }
    log.warn({ runner: saved.id }, 'the server no longer knows the saved runner token')
  }
  if (settings.registrationToken === null) {
    throw new RunnerStartError('no runner token the server knows: set INGOT_RUNNER_REGISTRATION_TOKEN to register one')
  }
  const registered = await client.register(settings.registrationToken, { description: settings.description, tags: settings.tags, runUntagged: settings.runUntagged })
  if (registered === null) throw new RunnerStartError('the server refused the registration token (INGOT_RUNNER_REGISTRATION_TOKEN)')
  await saveRunner(settings.dir, { url: settings.url, id: registered.id, token: registered.token })
  log.info({ runner: registered.id }, 'registered')
  return registered.token
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}
