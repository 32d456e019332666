// A small Ingot process for the job tests, started as a child process: it opens the context from
// the environment (INGOT_DATA_DIR, INGOT_DATABASE_URL), works the test kinds of process-kinds.ts
// (lease from TEST_JOBS_LEASE_MS), says `ready`, and stops gracefully on SIGTERM.
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import { openContext } from '../../src/context.js'
import { openJobQueue } from '../../src/jobs/queue.js'
import { PROCESS_KINDS } from './process-kinds.js'

const config = loadConfig()
const log = pino({ level: process.env.INGOT_TEST_LOG_LEVEL ?? 'silent' })
const ctx = await openContext(config, log)
const lease = process.env.TEST_JOBS_LEASE_MS
const queue = await openJobQueue({
  config, db: ctx.db, dialect: ctx.dialect, log, kinds: PROCESS_KINDS, contextOf: () => ctx,
  tuning: { ...(lease === undefined ? {} : { leaseMs: Number(lease) }), pollMs: 200 },
})
await queue.start()
process.stdout.write('ready\n')
process.once('SIGTERM', () => {
  queue.close().then(() => ctx.close()).then(() => process.exit(0), (err: unknown) => {
    process.stderr.write(`${String(err)}\n`)
    process.exit(1)
  })
})
