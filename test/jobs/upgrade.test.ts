// Jobs waiting when an instance is upgraded from the one-table queue survive it: their kinds take
// their new names and their keys still hold, recurring jobs give way to the cron schedules, and on
// PostgreSQL they move into pg-boss. Then they run.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Migrator, sql } from 'kysely'
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import { openContext, type AppContext } from '../../src/context.js'
import { openDatabase } from '../../src/db/index.js'
import { migrations } from '../../src/db/migrations/index.js'
import { openSecretBox } from '../../src/common/secret-box.js'
import { HOUSEKEEP_REPOSITORY, REFRESH_STATISTICS } from '../../src/services/projects/jobs.js'
import { DELIVER_WEB_HOOK } from '../../src/services/hooks/jobs.js'
import { createTestDatabase, testDatabaseServer } from '../helpers/app.js'

describe('jobs waiting across the upgrade to job states', () => {
  let dataDir: string
  let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null
  let ctx: AppContext
  const later = Date.now() + 3_600_000

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-upgrade-'))
    const server = testDatabaseServer()
    database = server === null ? null : await createTestDatabase(server)
    const config = loadConfig({ INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: database?.url ?? '' })
    const old = await openDatabase({ databaseUrl: config.databaseUrl, dataDir })
    const migrated = await new Migrator({ db: old.db, provider: { getMigrations: async () => migrations({ secrets: openSecretBox(config) }) } }).migrateTo('0010_housekeeping')
    assert.equal(migrated.error, undefined)
    const now = Date.now()
    const rows: [string, unknown, string | null, number, number, string | null][] = [
      ['project.refresh_statistics', { projectId: 7 }, 'statistics:7', now, 0, null],
      ['project.housekeeping', { projectId: 7, task: 'gc' }, 'housekeeping:7', now, 0, null],
      ['housekeeping.prune_old_events', null, 'recurring:housekeeping.prune_old_events', later, 0, null],
      ['web_hooks.deliver', { hookId: 404, event: 'Push Hook', payload: {} }, null, later, 1, 'HTTP 500'],
    ]
    for (const [kind, payload, key, runAt, attempts, error] of rows) {
      await sql`insert into jobs (kind, payload, unique_key, run_at, attempts, last_error, created_at)
        values (${kind}, ${JSON.stringify(payload)}, ${key}, ${runAt}, ${attempts}, ${error}, ${now})`.execute(old.db)
    }
    await old.close()
    ctx = await openContext(config, pino({ level: 'silent' }))
  })
  after(async () => {
    await ctx.close()
    await fs.rm(dataDir, { recursive: true, force: true })
    await database?.drop()
  })

  it('keeps them under their new kinds with their keys, drops the old recurring ones, and runs them', async () => {
    // Moved into pg-boss in one transaction, they share one creation time there: in kind order.
    const jobs = (await ctx.jobs.list()).sort((a, b) => a.kind.localeCompare(b.kind))
    assert.deepEqual(jobs.map((job) => [job.kind, job.payload, job.uniqueKey, job.state]), [
      [HOUSEKEEP_REPOSITORY.name, { projectId: 7, task: 'gc' }, 'housekeeping:7', 'waiting'],
      [REFRESH_STATISTICS.name, { projectId: 7 }, 'statistics:7', 'waiting'],
      [DELIVER_WEB_HOOK.name, { hookId: 404, event: 'Push Hook', payload: {} }, null, 'waiting'],
    ])
    const delivery = jobs[2]!
    assert.equal(delivery.runAt, later)
    // The table keeps the attempt made; pg-boss takes the job in afresh.
    if (ctx.dialect === 'sqlite') assert.deepEqual([delivery.attempts, delivery.lastError], [1, 'HTTP 500'])
    // The keys still hold: enqueuing the same again adds nothing.
    assert.equal(await ctx.jobs.enqueue(HOUSEKEEP_REPOSITORY, { projectId: 7, task: 'gc' }, { uniqueKey: 'housekeeping:7' }), null)
    // Project 7 and hook 404 are gone: each job ends at once.
    assert.equal(await ctx.jobs.runDue(later), 3)
    assert.deepEqual(await ctx.jobs.list(), [])
  })
})
