#!/usr/bin/env node
// The `ingot` command: `web` serves the API (and works background jobs in-process unless told not
// to), `worker` only works jobs, `migrate` only brings the database schema up to date, `admin` runs
// an operator's command on the database (cli/admin.ts), `runner` runs CI jobs as a client of the
// runner protocol (runner/, which shares nothing with the server). SIGTERM or SIGINT stops a process
// gracefully: no new requests or jobs, running ones finish until INGOT_SHUTDOWN_TIMEOUT_MS, jobs
// still running then are handed back for another process. web, worker and migrate refuse to start
// (exit 2) with a git older than the releases that fixed its known flaws (git/version.ts).
import { endStartUp } from './start-up-heap.js'
import { boundServingHeap } from './serving-heap.js'
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { ConfigError, loadConfig, type Config } from './config.js'
import { openContext, type AppContext } from './context.js'
import { startLeftoverSweeps } from './services/sweep-leftovers.js'
import { buildApp } from './app.js'
import { signingKey } from './services/oauth/signing-key.js'
import { INITIAL_ROOT_PASSWORD_FILE, seedRoot } from './services/users/seed-root.js'
import { createLogger, logFormatFor } from './logger.js'
import { runAdmin } from './cli/admin.js'
import { METRICS_PATH, serveMetrics } from './api/metrics.js'
import { gitVersionProblem } from './git/version.js'
import { ingotRevision } from './revision.js'
import { runRunner } from './runner/command.js'
import { localServerUrl, startBuiltinRunner } from './services/ci/builtin-runner.js'
import { startSshServer } from './ssh/ssh-server.js'

const HELP = `Usage: ingot <command>

Commands:
  web       serve the REST API on INGOT_HOST:INGOT_PORT and work background jobs (default)
  web --no-jobs
            serve the REST API only; \`ingot worker\` processes work the jobs
  worker    work background jobs only (next to web processes that share the database)
  migrate   bring the database schema up to date, then exit
  admin     create users and tokens, set passwords, see and retry background jobs, lift
            sign-in bans, on the configured database without a running server (ingot admin --help)
  runner    run CI jobs for an Ingot server, sandboxed (ingot runner --help; docs/ci.md)

Configuration comes from the environment; see docs/configuration.md:
  INGOT_PORT (8080)  INGOT_HOST (127.0.0.1)  INGOT_DATA_DIR (./data)
  INGOT_DATABASE_URL (empty: SQLite in the data directory; postgres://… for PostgreSQL)
  INGOT_EXTERNAL_URL (http://localhost:PORT)  INGOT_LOG_LEVEL (info)
  INGOT_LOG_FORMAT (auto: readable on a terminal, JSON lines elsewhere; pretty, json)
  INGOT_METRICS_ALLOW (127.0.0.0/8,::1: who may read /-/metrics)
  INGOT_ROOT_PASSWORD, INGOT_ROOT_TOKEN (first start only: credentials of the admin "root")
  INGOT_SMTP_URL (unset: no email), INGOT_EMAIL_FROM, INGOT_OUTBOUND_TIMEOUT_MS (10000)
  INGOT_JOB_CONCURRENCY (4 jobs at once per process)  INGOT_WEB_JOBS (true; false: as --no-jobs)
  INGOT_SHUTDOWN_TIMEOUT_MS (30000: how long running jobs may finish on SIGTERM/SIGINT)
  INGOT_WORKER_METRICS_PORT (0: none; a port on INGOT_HOST where \`ingot worker\` serves /-/metrics)
  INGOT_SECRET_KEY, INGOT_PREVIOUS_SECRET_KEYS (unset: the key file in the data directory)
  INGOT_REQUEST_TIMEOUT_MS, INGOT_HEADERS_TIMEOUT_MS, INGOT_CONNECTION_TIMEOUT_MS,
  INGOT_KEEP_ALIVE_TIMEOUT_MS, INGOT_GIT_SERVICE_TIMEOUT_MS, INGOT_GIT_SERVICE_IDLE_TIMEOUT_MS,
  INGOT_GIT_SERVICES_MAX, INGOT_GIT_SERVICES_PER_CLIENT (limits; see docs/operations.md)
  INGOT_SIGN_IN_BAN_ENABLED, _IP_WHITELIST, _MAXRETRY, _FINDTIME, _BANTIME (bans after failed sign-ins)
  INGOT_SSH_PORT (2222; 0: no SSH server), INGOT_SSH_HOST, INGOT_SSH_CONNECTIONS_PER_CLIENT (docs/ssh.md)
`

/** The options each process role takes. */
const ROLE_OPTIONS: Record<string, readonly string[]> = { web: ['--no-jobs'], worker: [], migrate: [] }

/** A process stuck past its shutdown deadline (a request that will not end) exits anyway after this much more. */
const SHUTDOWN_GRACE_MS = 15_000

async function main(argv: string[]): Promise<number> {
  const command = argv[0] ?? 'web'
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP)
    return 0
  }
  if (command === 'admin') return runAdmin(argv.slice(1))
  if (command === 'runner') {
    // A runner clones what its jobs name: the same git fixes as the server's matter to it.
    const problem = argv.includes('--help') || argv.includes('-h') ? null : await gitVersionProblem()
    if (problem !== null) {
      process.stderr.write(`ingot: ${problem}\n`)
      return 2
    }
    return runRunner(argv.slice(1), { version: ingotVersion(), revision: await ingotRevision() })
  }
  if (!['web', 'worker', 'migrate'].includes(command)) {
    process.stderr.write(`ingot: unknown command "${command}"\n\n${HELP}`)
    return 2
  }
  const options = argv.slice(1)
  const allowed = ROLE_OPTIONS[command]
  const unknown = allowed === undefined ? undefined : options.find((option) => !allowed.includes(option))
  if (unknown !== undefined) {
    process.stderr.write(`ingot: unknown option "${unknown}" for ${command}\n\n${HELP}`)
    return 2
  }
  // Before anything touches the data: a git without the CVE fixes must never serve a repository.
  const gitProblem = await gitVersionProblem()
  if (gitProblem !== null) {
    process.stderr.write(`ingot: ${gitProblem}\n`)
    return 2
  }
  let config: Config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`ingot: ${err.message}\n`)
      return 2
    }
    throw err
  }
  const log = await createLogger(config)
  const ctx = await openContext(config, log)
  if (command === 'migrate') {
    await ctx.close()
    return 0
  }
  // Listened for from here on: a signal while the process is still starting (the first request may
  // already be answered) would otherwise kill it before its handlers close anything in order.
  const stopSignal = firstStopSignal()
  await seedRoot(ctx)
  if (command === 'worker') {
    // No HTTP server here: a listener of its own, when asked for, lets Prometheus scrape the counters of the jobs this process runs.
    const metricsServer = config.workerMetricsPort === 0 ? null : await serveMetrics(ctx)
    if (metricsServer !== null) log.info({ host: config.host, port: config.workerMetricsPort, path: METRICS_PATH }, 'serving metrics')
    await ctx.jobs.start()
    const stopSweeps = startLeftoverSweeps(ctx)
    endStartUp()
    log.info('worker started')
    await closeOnSignal(ctx, stopSignal, async () => {
      stopSweeps()
      await metricsServer?.close()
    })
    return 0
  }
  // The OpenID Connect signing key is made now, not at the first sign-in: a data directory that
  // cannot keep it fails the start, and the key is in place before the first backup.
  await signingKey(config.dataDir)
  const app = await buildApp(ctx)
  await app.listen({ port: config.port, host: config.host })
  const sshServer = config.sshPort === 0 ? null : await startSshServer(ctx)
  if (config.webJobs && !options.includes('--no-jobs')) await ctx.jobs.start()
  const stopSweeps = startLeftoverSweeps(ctx)
  // After listening: the runner registers and asks for jobs over HTTP, at this very address.
  const builtinRunner = await startBuiltinRunner(ctx, {
    serverUrl: localServerUrl(app.server.address() as AddressInfo),
    command: [process.execPath, ...process.execArgv, process.argv[1]!, 'runner'],
  })
  endStartUp()
  boundServingHeap()
  process.stdout.write(`\nIngot is serving ${config.externalUrl} (API: ${config.externalUrl}/api/v4)\n${signInHint(config)}\n${logsAndMetricsHint(config)}\n\n`)
  await closeOnSignal(ctx, stopSignal, async () => {
    stopSweeps()
    // The runner first: its running jobs report their end to this server before it closes.
    await builtinRunner?.stop()
    await Promise.all([app.close(), sshServer?.close()])
  })
  return 0
}

/** The version in Ingot's package.json, beside src/ and dist/ alike. */
function ingotVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

function signInHint(config: Config): string {
  const passwordFile = path.join(config.dataDir, INITIAL_ROOT_PASSWORD_FILE)
  const token = config.rootToken === null ? '' : ' (API token: the value of INGOT_ROOT_TOKEN)'
  if (fs.existsSync(passwordFile)) {
    return `Sign in as "root" with the password in ${displayPath(passwordFile)}${token}`
  }
  return `Sign in as "root" with the password INGOT_ROOT_PASSWORD had on first start${token}`
}

/** Where the logs go and in which form, and where the metrics are: the banner's last lines. */
function logsAndMetricsHint(config: Config): string {
  const where = logFormatFor(config) === 'pretty'
    ? 'readable lines on standard output (INGOT_LOG_FORMAT=json for JSON lines)'
    : 'JSON lines on standard output (INGOT_LOG_FORMAT=pretty for readable lines)'
  return `Logs: ${where}, level ${config.logLevel}\nMetrics: ${config.externalUrl}${METRICS_PATH} from ${config.metricsAllow.join(', ')}`
}

/** A path relative to the working directory when it lies inside it, else absolute. */
function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative.startsWith('..') ? file : relative
}

/** The first SIGTERM or SIGINT; the same signal again ends the process at once, as Node's default does. */
function firstStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
}

/** After the stop signal: requests and jobs stop being taken together, and finish (or are handed back) before the database closes. */
async function closeOnSignal(ctx: AppContext, stopSignal: Promise<void>, closeServer: () => Promise<void> = async () => {}): Promise<void> {
  await stopSignal
  ctx.log.info({ deadlineMs: ctx.config.shutdownTimeoutMs }, 'shutting down')
  setTimeout(() => {
    ctx.log.error('shutdown took too long; exiting')
    process.exit(1)
  }, ctx.config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref()
  await Promise.all([closeServer(), ctx.jobs.stop()])
  await ctx.close()
}

main(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`ingot: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`)
  process.exit(1)
})
