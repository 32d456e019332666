// The built-in runner: `ingot web` (with the embedded database, or INGOT_BUILTIN_RUNNER=true)
// keeps one `ingot runner` child running as an instance runner, so that a CI file pushed to a
// fresh `npm start` runs with no set-up. The child is a client like any runner: it registers
// with the instance's registration token over HTTP at the address this process listens on, keeps
// its token and work in a directory of the data directory that no job's sandbox shows, and gets
// none of this process's environment (secrets, database URL) beyond what it needs.
import path from 'node:path'
import type { AppContext } from '../../context.js'
import { superviseRunner, type SupervisedRunner } from '../../runner/supervisor.js'
import { instanceRunnersToken } from './runners/registration-tokens.js'

/** The runner's directory inside the data directory. */
export const BUILTIN_RUNNER_DIR = 'builtin-runner'

export interface BuiltinRunnerOptions {
  /** Where this process listens, as the runner reaches it (http://127.0.0.1:8080). */
  serverUrl: string
  /** The command line that runs `ingot runner` (this program, with its Node options). */
  command: readonly string[]
}

/** Starts the built-in runner when the configuration wants one; null otherwise. */
export async function startBuiltinRunner(ctx: AppContext, options: BuiltinRunnerOptions): Promise<SupervisedRunner | null> {
  const settings = ctx.config.builtinRunner
  if (!settings.enabled) return null
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    INGOT_RUNNER_URL: options.serverUrl,
    // Clones go to this process too, not through INGOT_EXTERNAL_URL (a proxy, a name this host may not resolve).
    INGOT_RUNNER_CLONE_URL: options.serverUrl,
    INGOT_RUNNER_REGISTRATION_TOKEN: await instanceRunnersToken(ctx.db),
    INGOT_RUNNER_DIR: path.join(ctx.config.dataDir, BUILTIN_RUNNER_DIR),
    INGOT_RUNNER_CONCURRENCY: String(settings.concurrency),
    INGOT_RUNNER_UNSANDBOXED: String(settings.unsandboxed),
    INGOT_RUNNER_DESCRIPTION: 'ingot built-in runner',
    INGOT_LOG_LEVEL: ctx.config.logLevel,
    INGOT_LOG_FORMAT: ctx.config.logFormat,
  }
  return superviseRunner({ command: options.command, env, log: ctx.log.child({ component: 'builtin-runner' }) })
}

/** The URL of a listening address, as a client on this machine reaches it. */
export function localServerUrl(address: { address: string; port: number; family: string }): string {
  if (address.address === '0.0.0.0' || address.address === '::') return `http://127.0.0.1:${address.port}`
  return address.family === 'IPv6' ? `http://[${address.address}]:${address.port}` : `http://${address.address}:${address.port}`
}
