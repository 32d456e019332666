#!/usr/bin/env node
// The `ingot` command: `web` serves the API (and works background jobs in-process unless told not
// to), `worker` only works jobs, `migrate` only brings the database schema up to date, `admin` runs
// an operator's command on the database (cli/admin.ts), `runner` runs CI jobs as a client of the
// runner protocol (runner/, which shares nothing with the server). web, worker and migrate
// (serve.ts) stop gracefully on SIGTERM or SIGINT, and refuse to start (exit 2) with a git older
// than the releases that fixed its known flaws (git/version.ts).
//
// This file is the bundle's entry and stays small: each command imports what it runs (serve.ts for
// web, worker and migrate; cli/admin.ts; runner/command.ts), so the bundle's chunks of the others
// are never read (scripts/build.mjs splits the bundle at these imports).
import './start-up-heap.js'
import fs from 'node:fs'
import { gitVersionProblem } from './git/version.js'
import { ingotRevision } from './revision.js'

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

async function main(argv: string[]): Promise<number> {
  const command = argv[0] ?? 'web'
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP)
    return 0
  }
  // Loaded by the command that runs them: a server never evaluates the admin commands or the runner.
  if (command === 'admin') return (await import('./cli/admin.js')).runAdmin(argv.slice(1))
  if (command === 'runner') {
    // A runner clones what its jobs name: the same git fixes as the server's matter to it.
    const problem = argv.includes('--help') || argv.includes('-h') ? null : await gitVersionProblem()
    if (problem !== null) {
      process.stderr.write(`ingot: ${problem}\n`)
      return 2
    }
    const { runRunner } = await import('./runner/command.js')
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
  // The server's code (and all it imports) is loaded only by the commands that run it.
  const { serve } = await import('./serve.js')
  return serve(command as 'web' | 'worker' | 'migrate', options)
}

/** The version in Ingot's package.json, beside src/ and dist/ alike. */
function ingotVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`ingot: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`)
  process.exit(1)
})
