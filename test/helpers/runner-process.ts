// A real `ingot runner` process (the `ingot` command, test/helpers/ingot-command.ts) for end-to-end tests: registered as an
// instance runner with the test app's registration token, talking to the app on its socket (the
// git client's), in a runner directory of its own. One per test file: the jobs of every test run
// on it.
import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { TestApp } from './app.js'
import type { GitClient } from './git-server.js'
import { until } from './jobs.js'
import { instanceRunnersToken } from '../../src/services/ci/runners/registration-tokens.js'
import { ingotMain } from './ingot-command.js'

export interface RunnerProcess {
  /** The runner's directory (INGOT_RUNNER_DIR). */
  dir: string
  /** What the runner has printed so far (JSON log lines). */
  log(): string
  /** SIGTERM, then its exit code once it has exited; removes its directory. */
  stop(): Promise<number | null>
}

/** Starts the runner and waits until it says it started; `env` is added to its environment. */
export async function startRunnerProcess(t: TestApp, client: GitClient, env: Record<string, string> = {}): Promise<RunnerProcess> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-runner-e2e-'))
  const runner = spawn(process.execPath, [ingotMain(), 'runner'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      INGOT_RUNNER_URL: client.baseUrl,
      // As the built-in runner: clones from the socket, not from INGOT_EXTERNAL_URL (http://ingot.test here).
      INGOT_RUNNER_CLONE_URL: client.baseUrl,
      INGOT_RUNNER_REGISTRATION_TOKEN: await instanceRunnersToken(t.ctx.db),
      INGOT_RUNNER_DIR: dir,
      INGOT_RUNNER_CONCURRENCY: '4',
      INGOT_LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  runner.stdout!.on('data', (chunk: Buffer) => { log += chunk.toString() })
  runner.stderr!.on('data', (chunk: Buffer) => { log += chunk.toString() })
  const exited = new Promise<number | null>((resolve) => runner.once('exit', (code) => resolve(code)))
  try {
    await until(() => /"msg":"runner started"/.test(log), 'the runner started', 60_000)
  } catch (err) {
    runner.kill('SIGTERM')
    throw new Error(`${(err as Error).message}:\n${log}`)
  }
  return {
    dir,
    log: () => log,
    async stop() {
      runner.kill('SIGTERM')
      const code = await exited
      await fs.rm(dir, { recursive: true, force: true })
      return code
    },
  }
}
