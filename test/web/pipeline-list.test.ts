// The pipelines list's stages and scopes (web/projects/pipelines.ts): each pipeline's stages as
// status badges made from its current jobs (a retried job's replacement counts, not the job it
// replaced), hostile stage names escaped, and the running, branches and tags tabs as the API's scopes.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { newPipeline, runJob } from '../helpers/running-jobs.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { finishJob, retryJob } from '../../src/services/ci/transitions.js'
import { Browser } from './browser.js'

const CI_FILE = `
stages: [build, "<b>test</b>"]
build: { stage: build, script: make }
check: { stage: "<b>test</b>", script: make check }
`

describe('Web pipelines list: stages and scopes', () => {
  let t: TestApp
  let owner: TestUser
  let project: ProjectRow
  let base: string
  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    project = await makeProject(t, owner, { visibility: 'public' })
    await commitFiles(t, project.id, { '.gitlab-ci.yml': CI_FILE })
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  it('shows each pipeline\'s stages as badges from its current jobs, escaped', async () => {
    const pipeline = await newPipeline(t, project.id, owner.token)
    await runJob(t, pipeline.jobs.build!)
    await finishJob(t.ctx, pipeline.jobs.build!, 'failed')
    const failed = await new Browser(t).get(`${base}/pipelines`)
    assert.equal(failed.status, 200, failed.text)
    assert.ok(failed.text.includes('<span class="badge status-failed">build: failed</span>'), failed.text)
    assert.ok(failed.text.includes('&lt;b&gt;test&lt;/b&gt;: skipped') && !failed.text.includes('<b>test'), 'a hostile stage name is escaped')
    const outcome = await retryJob(t.ctx, pipeline.jobs.build!, owner.user.id)
    assert.ok('retried' in outcome)
    const retried = await new Browser(t).get(`${base}/pipelines`)
    assert.ok(retried.text.includes('<span class="badge status-pending">build: pending</span>'), 'the retried job\'s replacement makes the stage\'s status')
  })

  it('filters by the API\'s scopes', async () => {
    const pipeline = await newPipeline(t, project.id, owner.token)
    const link = `href="${base}/pipelines/${pipeline.id}"`
    const running = await new Browser(t).get(`${base}/pipelines?scope=running`)
    assert.ok(running.text.includes('aria-current="page">Running</a>'))
    assert.ok(!running.text.includes(link), 'a pending pipeline is not running')
    await runJob(t, pipeline.jobs.build!)
    assert.ok((await new Browser(t).get(`${base}/pipelines?scope=running`)).text.includes(link))
    assert.ok((await new Browser(t).get(`${base}/pipelines?scope=branches`)).text.includes(link), 'the latest pipeline of master')
    assert.ok(!(await new Browser(t).get(`${base}/pipelines?scope=tags`)).text.includes(link))
    assert.ok((await new Browser(t).get(`${base}/pipelines?scope=bogus`)).text.includes(link), 'an unknown scope lists every pipeline')
  })
})
