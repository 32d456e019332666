// /projects/:id/jobs and /projects/:id/pipelines/:pipeline_id/jobs: the Job entity with the
// spec's fields, `scope` as one status or several, pagination, one job, its trace, cancel, retry
// and play, who may do each, and a page of jobs loading its users and pipelines in one query each.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeProject } from '../helpers/factories.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { finishJob, startJob } from '../../src/services/ci/transitions.js'

const CI_FILE = `
build: { stage: build, script: make }
lint: { stage: build, script: make lint }
test: { stage: test, script: make test }
deploy: { stage: deploy, script: make deploy, when: manual }
`

describe('jobs API', () => {
  let t: TestApp
  let m: Matrix
  let base: string
  let sha: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t)
    base = `/projects/${m.project.id}`
    sha = await commitFiles(t, m.project.id, { '.gitlab-ci.yml': CI_FILE })
  })
  after(async () => { await t.close() })

  async function newPipeline(): Promise<{ id: number; jobs: Record<string, number> }> {
    const res = await t.api('POST', `${base}/pipeline`, { token: m.tokens.developer, body: { ref: 'master' } })
    assert.equal(res.status, 201, res.text)
    const rows = await t.ctx.db.selectFrom('ci_builds').select(['id', 'name']).where('pipeline_id', '=', res.body.id).execute()
    return { id: res.body.id, jobs: Object.fromEntries(rows.map((row) => [row.name, row.id])) }
  }

  it('GET one job answers the spec\'s fields', async () => {
    const pipeline = await newPipeline()
    await startJob(t.ctx, pipeline.jobs.build!)
    const res = await t.api('GET', `${base}/jobs/${pipeline.jobs.build}`, { token: m.tokens.reporter })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), [
      'artifacts', 'artifacts_expire_at', 'commit', 'coverage', 'created_at', 'duration', 'finished_at', 'id', 'name', 'pipeline', 'ref',
      'runner', 'stage', 'started_at', 'status', 'tag', 'user', 'web_url',
    ])
    assert.equal(res.body.name, 'build')
    assert.equal(res.body.stage, 'build')
    assert.equal(res.body.status, 'running')
    assert.equal(res.body.ref, 'master')
    assert.equal(res.body.tag, false)
    assert.equal(typeof res.body.duration, 'number')
    assert.deepEqual(res.body.artifacts, [])
    assert.equal(res.body.runner, null)
    assert.equal(res.body.commit.id, sha)
    assert.deepEqual(res.body.pipeline, { id: pipeline.id, ref: 'master', sha, status: 'running' })
    assert.equal(res.body.user.username, m.users.developer.user.username)
    assert.ok('bio' in res.body.user)
    assert.equal(res.body.web_url, `http://ingot.test/${m.group.full_path}/${m.project.path}/-/jobs/${pipeline.jobs.build}`)
    const missing = await t.api('GET', `${base}/jobs/99999999`, { token: m.tokens.reporter })
    assert.equal(missing.status, 404)
    assert.deepEqual(missing.body, { message: '404 Not found' })
    const elsewhere = await makeProject(t, null)
    assert.equal((await t.api('GET', `/projects/${elsewhere.id}/jobs/${pipeline.jobs.build}`)).status, 404)
  })

  it('lists a project\'s jobs newest first, filtered by one or several statuses, paginated', async () => {
    const pipeline = await newPipeline()
    const all = await t.api('GET', `${base}/jobs?per_page=100`, { token: m.tokens.reporter })
    assert.equal(all.status, 200)
    const ids = all.body.map((job: { id: number }) => job.id)
    assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a))
    const scoped = async (query: string) =>
      (await t.api('GET', `${base}/jobs?per_page=100&${query}`, { token: m.tokens.reporter })).body.map((job: { status: string }) => job.status)
    assert.ok((await scoped('scope=created')).every((status: string) => status === 'created'))
    const several = await scoped('scope[]=pending&scope[]=created')
    assert.ok(several.includes('pending') && several.includes('created') && several.every((s: string) => s === 'pending' || s === 'created'))
    const bad = await t.api('GET', `${base}/jobs?scope=nope`, { token: m.tokens.reporter })
    assert.equal(bad.status, 400)
    assert.deepEqual(bad.body, { message: 'Scope contains invalid value(s)' })
    await expectPaginates({ t, path: `${base}/jobs`, token: m.tokens.reporter, total: ids.length })
    await expectRejectsBadPagination(t, `${base}/jobs`, m.tokens.reporter)

    const ofPipeline = await t.api('GET', `${base}/pipelines/${pipeline.id}/jobs`, { token: m.tokens.reporter })
    assert.equal(ofPipeline.status, 200)
    assert.deepEqual(ofPipeline.body.map((job: { name: string }) => job.name), ['build', 'lint', 'test', 'deploy'])
    await expectPaginates({ t, path: `${base}/pipelines/${pipeline.id}/jobs`, token: m.tokens.reporter, total: 4 })
    const manual = await t.api('GET', `${base}/pipelines/${pipeline.id}/jobs?scope=manual`, { token: m.tokens.reporter })
    assert.deepEqual(manual.body.map((job: { name: string }) => job.name), [])
    assert.equal((await t.api('GET', `${base}/pipelines/99999999/jobs`, { token: m.tokens.reporter })).status, 404)
  })

  it('loads a page of jobs with one query for their users and one for their pipelines', async () => {
    for (let i = 0; i < 3; i++) await newPipeline()
    const few = await countQueries(t, () => t.api('GET', `${base}/jobs?per_page=2`, { token: m.tokens.reporter }))
    const many = await countQueries(t, () => t.api('GET', `${base}/jobs?per_page=12`, { token: m.tokens.reporter }))
    assert.equal(many.result.body.length, 12)
    assert.equal(many.queries, few.queries)
  })

  it('reads are for Reporters (and Guests while jobs are public); 403 while jobs are disabled', async () => {
    const pipeline = await newPipeline()
    for (const path of [`${base}/jobs`, `${base}/pipelines/${pipeline.id}/jobs`, `${base}/jobs/${pipeline.jobs.build}`, `${base}/jobs/${pipeline.jobs.build}/trace`]) {
      await expectStatuses(m, (token) => t.api('GET', path, { token }), {
        anonymous: 404, nonMember: 404, guest: 200, reporter: 200, admin: 200, external: 404,
      })
    }
    const project = await makeProject(t, m.users.owner, { jobs_enabled: false })
    assert.equal((await t.api('GET', `/projects/${project.id}/jobs`, { token: m.users.owner.token })).status, 403)
  })

  it('trace is text/plain, empty until a runner writes one', async () => {
    const pipeline = await newPipeline()
    const res = await t.api('GET', `${base}/jobs/${pipeline.jobs.build}/trace`, { token: m.tokens.reporter })
    assert.equal(res.status, 200)
    assert.match(String(res.headers['content-type']), /^text\/plain/)
    assert.equal(res.text, '')
  })

  it('cancel: Developers, 201 with the job, unchanged when it cannot be canceled', async () => {
    const pipeline = await newPipeline()
    const path = `${base}/jobs/${pipeline.jobs.build}/cancel`
    await expectStatuses(m, (token) => t.api('POST', path, { token }), { anonymous: 401, nonMember: 404, guest: 403, reporter: 403 })
    const res = await t.api('POST', path, { token: m.tokens.developer })
    assert.equal(res.status, 201, res.text)
    assert.equal(res.body.status, 'canceled')
    const again = await t.api('POST', path, { token: m.tokens.developer })
    assert.equal(again.status, 201)
    assert.equal(again.body.status, 'canceled')
  })

  it('retry: a new job for a finished one; 403 for one that has not finished', async () => {
    const pipeline = await newPipeline()
    const pending = await t.api('POST', `${base}/jobs/${pipeline.jobs.build}/retry`, { token: m.tokens.developer })
    assert.equal(pending.status, 403)
    assert.deepEqual(pending.body, { message: '403 Forbidden - Job is not retryable' })
    await startJob(t.ctx, pipeline.jobs.build!)
    await finishJob(t.ctx, pipeline.jobs.build!, 'failed', 'script_failure')
    assert.equal((await t.api('POST', `${base}/jobs/${pipeline.jobs.build}/retry`, { token: m.tokens.reporter })).status, 403)
    const res = await t.api('POST', `${base}/jobs/${pipeline.jobs.build}/retry`, { token: m.tokens.maintainer })
    assert.equal(res.status, 201, res.text)
    assert.notEqual(res.body.id, pipeline.jobs.build)
    assert.equal(res.body.name, 'build')
    assert.equal(res.body.status, 'pending')
    assert.equal(res.body.user.id, m.users.maintainer.user.id)
  })

  it('play: a manual job becomes pending; 400 for a job that is not playable', async () => {
    const pipeline = await newPipeline()
    for (const name of ['build', 'lint', 'test']) {
      await startJob(t.ctx, pipeline.jobs[name]!)
      await finishJob(t.ctx, pipeline.jobs[name]!, 'success')
    }
    const unplayable = await t.api('POST', `${base}/jobs/${pipeline.jobs.build}/play`, { token: m.tokens.developer })
    assert.equal(unplayable.status, 400)
    assert.deepEqual(unplayable.body, { message: '400 (Bad request) "Unplayable Job" not given' })
    assert.equal((await t.api('POST', `${base}/jobs/${pipeline.jobs.deploy}/play`, { token: m.tokens.reporter })).status, 403)
    const res = await t.api('POST', `${base}/jobs/${pipeline.jobs.deploy}/play`, { token: m.tokens.developer })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.status, 'pending')
    assert.equal(res.body.pipeline.status, 'running')
  })
})
