// The count of a project's jobs (migration 0032, the X-Total of an unfiltered jobs list): kept by
// triggers as pipelines are made, jobs retried and pipelines deleted, blind to external commit
// statuses, made from existing jobs when migrating, and no obstacle to deleting a project. Run on
// SQLite, and on PostgreSQL with INGOT_TEST_DATABASE_URL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Migrator } from 'kysely'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { migrations } from '../../src/db/migrations/index.js'

describe('CI job counts', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  async function jobsTotal(projectId: number, token: string): Promise<{ header: number; rows: number }> {
    const res = await t.api('GET', `/projects/${projectId}/jobs?per_page=1`, { token })
    assert.equal(res.status, 200, res.text)
    const { count } = await t.ctx.db.selectFrom('ci_builds').select((eb) => eb.fn.countAll<number>().as('count'))
      .where('project_id', '=', projectId).where('kind', '=', 'ci').executeTakeFirstOrThrow()
    return { header: Number(res.headers['x-total']), rows: Number(count) }
  }

  it('counts jobs as pipelines are made, jobs retried and pipelines deleted, and when migrating', async () => {
    const owner = await makeUser(t)
    const project = await makeProject(t, owner)
    const commit = await t.api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, {
      token: owner.token, body: { branch: 'master', content: 'build: { script: make }\ntest: { script: make test }', commit_message: 'CI' },
    })
    assert.equal(commit.status, 201, commit.text)
    const made = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'master' } })
    assert.equal(made.status, 201, made.text)
    assert.deepEqual(await jobsTotal(project.id, owner.token), { header: 2, rows: 2 })

    const status = await t.api('POST', `/projects/${project.id}/statuses/${made.body.sha}`, { token: owner.token, body: { state: 'running', name: 'external' } })
    assert.equal(status.status, 201, status.text)
    assert.deepEqual(await jobsTotal(project.id, owner.token), { header: 2, rows: 2 }, 'an external status is no job')

    const jobs = await t.api('GET', `/projects/${project.id}/pipelines/${made.body.id}/jobs`, { token: owner.token })
    const first = jobs.body[0].id as number
    assert.equal((await t.api('POST', `/projects/${project.id}/jobs/${first}/cancel`, { token: owner.token })).status, 201)
    assert.equal((await t.api('POST', `/projects/${project.id}/jobs/${first}/retry`, { token: owner.token })).status, 201)
    assert.deepEqual(await jobsTotal(project.id, owner.token), { header: 3, rows: 3 }, 'a retry is a new job')

    const migrator = new Migrator({ db: t.ctx.db, provider: { getMigrations: async () => migrations({ secrets: t.ctx.secrets }) } })
    assert.equal((await migrator.migrateTo('0029_pipeline_iids')).error, undefined)
    assert.equal((await migrator.migrateToLatest()).error, undefined)
    assert.deepEqual(await jobsTotal(project.id, owner.token), { header: 3, rows: 3 }, 'counted from the jobs when migrating')

    assert.equal((await t.api('DELETE', `/projects/${project.id}/pipelines/${made.body.id}`, { token: owner.token })).status, 204)
    assert.deepEqual(await jobsTotal(project.id, owner.token), { header: 0, rows: 0 })

    const again = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'master' } })
    assert.equal(again.status, 201, again.text)
    assert.equal((await t.api('DELETE', `/projects/${project.id}`, { token: owner.token })).status, 202)
    await t.ctx.jobs.runDue()
    assert.equal(await t.ctx.db.selectFrom('ci_job_counts').select('value').where('project_id', '=', project.id).executeTakeFirst(), undefined)
  })
})
