// The server processes of the `ingot` command (main.ts): `web` serves the API (and works background
// jobs in-process unless told not to), `worker` only works jobs, `migrate` only brings the database
// schema up to date. SIGTERM or SIGINT stops a process gracefully: no new requests or jobs, running
// ones finish until INGOT_SHUTDOWN_TIMEOUT_MS, jobs still running then are handed back for another
// process. They refuse to start (exit 2) with a git older than the releases that fixed its known
// flaws (git/version.ts).
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { endStartUp } from './start-up-heap.js'
import { boundServingHeap } from './serving-heap.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { openContext, type AppContext } from './context.js'
import { startLeftoverSweeps } from './services/sweep-leftovers.js'
import { buildApp } from './app.js'
import { ensureSigningKeyFile } from './services/oauth/signing-key.js'
import { INITIAL_ROOT_PASSWORD_FILE, seedRoot } from './services/users/seed-root.js'
import { createLogger, logFormatFor } from './logger.js'
import { METRICS_PATH, serveMetrics } from './api/metrics.js'
import { gitVersionProblem } from './git/version.js'

/** A process stuck past its shutdown deadline (a request that will not end) exits anyway after this much more. */
const SHUTDOWN_GRACE_MS = 15_000

/** Runs `web`, `worker` or `migrate` (`options` already checked) until it stops; the exit code. */
export async function serve(command: 'web' | 'worker' | 'migrate', options: readonly string[]): Promise<number> {
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
  ensureSigningKeyFile(config.dataDir)
  const app = await buildApp(ctx)
  await app.listen({ port: config.port, host: config.host })
  const sshServer = config.sshPort === 0 ? null : await (await import('./ssh/ssh-server.js')).startSshServer(ctx)
  if (config.webJobs && !options.includes('--no-jobs')) await ctx.jobs.start()
  const stopSweeps = startLeftoverSweeps(ctx)
  // After listening: the runner registers and asks for jobs over HTTP, at this very address.
  const builtinRunner = !config.builtinRunner.enabled ? null : await import('./services/ci/builtin-runner.js').then(({ localServerUrl, startBuiltinRunner }) => startBuiltinRunner(ctx, {
    serverUrl: localServerUrl(app.server.address() as AddressInfo),
    command: [process.execPath, ...process.execArgv, process.argv[1]!, 'runner'],
  }))
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
