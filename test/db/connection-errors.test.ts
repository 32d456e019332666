// PostgreSQL ending a pool's idle connections (a restart, an administrator) must not end Ingot: the
// pool drops them and the next query opens another. Unheard, such an error ended the process.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildTestApp, testDatabaseServer } from '../helpers/app.js'

describe('database connections', () => {
  it('survives PostgreSQL ending its idle connections, and the next query opens another', async (t) => {
    const server = testDatabaseServer()
    if (server === null) return t.skip('PostgreSQL only: SQLite has no connections to lose')
    const app = await buildTestApp()
    try {
      await app.ctx.db.selectFrom('users').select('id').execute()
      const admin = new pg.Client({ connectionString: server })
      await admin.connect()
      try {
        const database = new URL(app.ctx.config.databaseUrl).pathname.slice(1)
        const ended = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database])
        assert.ok(ended.rowCount !== null && ended.rowCount > 0)
      } finally {
        await admin.end()
      }
      await sleep(200)
      const users = await app.ctx.db.selectFrom('users').select('id').execute()
      assert.ok(users.length > 0)
    } finally {
      await app.close()
    }
  })
})
