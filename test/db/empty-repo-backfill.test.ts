// Migration 0014 (projects.empty_repo) on a database from before it: the projects that have had a
// push or have counted commits are not empty, the others are. Run on SQLite, and on PostgreSQL
// with INGOT_TEST_DATABASE_URL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Migrator } from 'kysely'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { migrations } from '../../src/db/migrations/index.js'

describe('migration 0014: empty_repo of existing projects', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  it('counts a project empty unless it has a push or counted commits', async () => {
    const owner = await makeUser(t)
    const [pushed, counted, untouched] = [await makeProject(t, owner), await makeProject(t, owner), await makeProject(t, owner)]
    const commit = await t.api('POST', `/projects/${pushed.id}/repository/commits`, {
      token: owner.token, body: { branch: 'master', commit_message: 'One', actions: [{ action: 'create', file_path: 'a', content: 'a' }] },
    })
    assert.equal(commit.status, 201, commit.text)
    await t.ctx.db.updateTable('project_statistics').set({ commit_count: 3 }).where('project_id', '=', counted.id).execute()

    const migrator = new Migrator({ db: t.ctx.db, provider: { getMigrations: async () => migrations({ secrets: t.ctx.secrets }) } })
    const down = await migrator.migrateTo('0013_issue_counts_of_deleted_projects')
    // Down to just before it (later migrations go down first, whichever they are).
    assert.equal(down.error, undefined)
    assert.equal(down.results?.at(-1)?.migrationName, '0014_empty_repo')
    const up = await migrator.migrateToLatest()
    assert.equal(up.error, undefined)

    const rows = await t.ctx.db.selectFrom('projects').select(['id', 'empty_repo'])
      .where('id', 'in', [pushed.id, counted.id, untouched.id]).orderBy('id').execute()
    assert.deepEqual(rows, [{ id: pushed.id, empty_repo: 0 }, { id: counted.id, empty_repo: 0 }, { id: untouched.id, empty_repo: 1 }])
  })
})
