// Pipelines' numbers per project (migration 0029, CI_PIPELINE_IID): new pipelines count up in their
// own project, and the migration numbers a database's existing pipelines in the order they were
// made, each project's sequence going on after them. Run on SQLite, and on PostgreSQL with
// INGOT_TEST_DATABASE_URL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Migrator } from 'kysely'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { migrations } from '../../src/db/migrations/index.js'

describe('pipeline iids', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  async function projectWithCiFile(owner: Awaited<ReturnType<typeof makeUser>>) {
    const project = await makeProject(t, owner)
    const commit = await t.api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, {
      token: owner.token, body: { branch: 'master', content: 'build: { script: make }', commit_message: 'CI' },
    })
    assert.equal(commit.status, 201, commit.text)
    return project
  }

  async function runPipeline(projectId: number, token: string): Promise<number> {
    const res = await t.api('POST', `/projects/${projectId}/pipeline`, { token, body: { ref: 'master' } })
    assert.equal(res.status, 201, res.text)
    const { iid } = await t.ctx.db.selectFrom('ci_pipelines').select('iid').where('id', '=', res.body.id).executeTakeFirstOrThrow()
    return iid
  }

  it('numbers pipelines per project, and numbers existing ones when migrating', async () => {
    const owner = await makeUser(t)
    const [first, second] = [await projectWithCiFile(owner), await projectWithCiFile(owner)]
    assert.deepEqual([await runPipeline(first.id, owner.token), await runPipeline(second.id, owner.token), await runPipeline(first.id, owner.token)], [1, 1, 2])

    const migrator = new Migrator({ db: t.ctx.db, provider: { getMigrations: async () => migrations({ secrets: t.ctx.secrets }) } })
    const down = await migrator.migrateTo('0028_badges')
    assert.equal(down.error, undefined)
    assert.equal(down.results?.at(-1)?.migrationName, '0029_pipeline_iids')
    const up = await migrator.migrateToLatest()
    assert.equal(up.error, undefined)

    const numbered = await t.ctx.db.selectFrom('ci_pipelines').select(['project_id', 'iid'])
      .where('project_id', 'in', [first.id, second.id]).orderBy('id').execute()
    assert.deepEqual(numbered, [{ project_id: first.id, iid: 1 }, { project_id: second.id, iid: 1 }, { project_id: first.id, iid: 2 }])
    assert.equal(await runPipeline(first.id, owner.token), 3)
    assert.equal(await runPipeline(second.id, owner.token), 2)
  })
})
