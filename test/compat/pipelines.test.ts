// @gitbeaker/rest against a real Ingot socket: pipelines (create with variables, list with filters
// and page following, show, cancel, retry, remove) and jobs (a pipeline's, the project's by scope,
// show, the log, retry).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { expectStatus, startCompatServer, type Client, type CompatServer } from './server.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { ProjectRow } from '../../src/db/schema.js'

describe('compat: pipelines and jobs', () => {
  let server: CompatServer
  let owner: TestUser
  let client: Client
  let project: ProjectRow

  before(async () => {
    server = await startCompatServer()
    owner = await makeUser(server.t)
    client = server.client(owner.token)
    project = await makeProject(server.t, owner)
    await commitFiles(server.t, project.id, { '.gitlab-ci.yml': 'build: { stage: build, script: make }\ntest: { stage: test, script: make test }\n' })
  })
  after(async () => { await server.close() })

  it('creates, lists, shows, cancels, retries and removes pipelines', async () => {
    const created = await client.Pipelines.create(project.id, 'master', { variables: [{ key: 'GREETING', value: 'hello' }] })
    assert.equal(created.ref, 'master')
    assert.equal(created.status, 'pending')
    for (let i = 0; i < 2; i++) await client.Pipelines.create(project.id, 'master')
    const all = await client.Pipelines.all(project.id, { perPage: 2 })
    assert.equal(all.length, 3, 'gitbeaker follows the pages')
    assert.deepEqual((await client.Pipelines.all(project.id, { status: 'pending', ref: 'master', orderBy: 'id', sort: 'asc' })).map((p) => p.id),
      all.map((p) => p.id).reverse())
    const shown = await client.Pipelines.show(project.id, created.id)
    assert.equal(shown.sha, created.sha)
    assert.equal((await client.Pipelines.cancel(project.id, created.id)).status, 'canceled')
    assert.equal((await client.Pipelines.retry(project.id, created.id)).status, 'pending')
    await client.Pipelines.remove(project.id, created.id)
    await expectStatus(client.Pipelines.show(project.id, created.id), 404)
    await expectStatus(client.Pipelines.create(project.id, 'no-such-branch'), 400)
  })

  it('lists, shows, logs and retries jobs', async () => {
    const pipeline = await client.Pipelines.create(project.id, 'master')
    const jobs = await client.Jobs.all(project.id, { pipelineId: pipeline.id })
    assert.deepEqual(jobs.map((job) => [job.name, job.status]), [['build', 'pending'], ['test', 'created']])
    const pending = await client.Jobs.all(project.id, { scope: 'pending' })
    assert.ok(pending.length >= 1 && pending.every((job) => job.status === 'pending'))
    const build = await client.Jobs.show(project.id, jobs[0]!.id)
    assert.equal(build.pipeline.id, pipeline.id)
    assert.equal(await client.Jobs.showLog(project.id, build.id), '')
    const canceled = await client.Jobs.cancel(project.id, build.id)
    assert.equal(canceled.status, 'canceled')
    const retried = await client.Jobs.retry(project.id, build.id)
    assert.notEqual(retried.id, build.id)
    assert.equal(retried.status, 'pending')
  })
})
