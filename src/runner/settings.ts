// The settings of `ingot runner`, read from its environment. The runner is a client of the runner
// protocol and shares nothing with the server, its configuration included: these INGOT_RUNNER_*
// variables are all it reads (docs/configuration.md), and a bad value stops it with a message
// that names the variable.
import os from 'node:os'
import path from 'node:path'

export interface RunnerSettings {
  /** The Ingot (or GitLab) server the runner talks to, without a trailing slash. */
  url: string
  /** Registers a new runner with this when no saved runner token is good. */
  registrationToken: string | null
  /** The runner's own directory: its token, work directories and caches. */
  dir: string
  /** Jobs run at once. */
  concurrency: number
  /** Run jobs without bubblewrap (each trace says so). */
  unsandboxed: boolean
  tags: string[]
  runUntagged: boolean
  description: string
  /** Where jobs clone from instead of the server's `repo_url` (the original's `clone_url`); null: `repo_url`. */
  cloneUrl: string | null
  logLevel: string
  logFormat: 'pretty' | 'json' | 'auto'
}

export class RunnerSettingsError extends Error {}

type Env = Record<string, string | undefined>

export function readRunnerSettings(env: Env): RunnerSettings {
  const url = httpUrl(env, 'INGOT_RUNNER_URL')
  if (url === null) throw new RunnerSettingsError('INGOT_RUNNER_URL must be set to the server\'s URL, such as http://localhost:8080')
  const concurrency = Number(nonEmpty(env.INGOT_RUNNER_CONCURRENCY) ?? '2')
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new RunnerSettingsError('INGOT_RUNNER_CONCURRENCY must be a number of jobs from 1 to 64')
  }
  const tags = (nonEmpty(env.INGOT_RUNNER_TAGS) ?? '').split(',').map((tag) => tag.trim()).filter((tag) => tag !== '')
  const logFormat = nonEmpty(env.INGOT_LOG_FORMAT) ?? 'auto'
  if (!['pretty', 'json', 'auto'].includes(logFormat)) throw new RunnerSettingsError('INGOT_LOG_FORMAT must be one of pretty, json, auto')
  return {
    url,
    registrationToken: nonEmpty(env.INGOT_RUNNER_REGISTRATION_TOKEN),
    dir: path.resolve(nonEmpty(env.INGOT_RUNNER_DIR) ?? './runner'),
    concurrency,
    unsandboxed: boolean(env, 'INGOT_RUNNER_UNSANDBOXED', false),
    tags,
    // As the original's registration: a runner with tags takes only tagged jobs unless told otherwise.
    runUntagged: boolean(env, 'INGOT_RUNNER_RUN_UNTAGGED', tags.length === 0),
    description: nonEmpty(env.INGOT_RUNNER_DESCRIPTION) ?? `ingot-runner on ${os.hostname()}`,
    cloneUrl: httpUrl(env, 'INGOT_RUNNER_CLONE_URL'),
    logLevel: nonEmpty(env.INGOT_LOG_LEVEL) ?? 'info',
    logFormat: logFormat as RunnerSettings['logFormat'],
  }
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value.trim()
}

function httpUrl(env: Env, name: string): string | null {
  const value = nonEmpty(env[name])
  if (value === null) return null
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    throw new RunnerSettingsError(`${name} must be an http:// or https:// URL, not "${value}"`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new RunnerSettingsError(`${name} must be an http:// or https:// URL, not "${value}"`)
  return value.replace(/\/+$/, '')
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = nonEmpty(env[name])?.toLowerCase()
  if (value === undefined) return fallback
  if (['true', '1', 'yes'].includes(value)) return true
  if (['false', '0', 'no'].includes(value)) return false
  throw new RunnerSettingsError(`${name} must be true or false, not "${env[name]}"`)
}
