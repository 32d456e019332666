// /projects/:id/statuses/:sha and /projects/:id/repository/commits/:sha/statuses: external commit
// statuses as the original 11.5 keeps them (jobs of kind external in a pipeline of the sha and
// ref), their state machine and the pipeline's status following, the list and its filters, who may
// do each, and that the jobs API never shows them.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeProject } from '../helpers/factories.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'

const CI_FILE = 'build: { stage: build, script: make }\n'

describe('commit statuses API', () => {
  let t: TestApp
  let m: Matrix
  let base: string
  let sha: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t)
    base = `/projects/${m.project.id}`
    sha = await commitFiles(t, m.project.id, { 'README.md': 'hello' })
  })
  after(async () => { await t.close() })

  const post = (body: Record<string, unknown>, token: string | null = m.tokens.developer, commit = sha) =>
    t.api('POST', `${base}/statuses/${commit}`, { token, body })

  it('creates a status in a new external pipeline, then moves it through its states', async () => {
    const res = await post({ state: 'pending', name: 'lint', target_url: 'https://ci.example/1', description: 'queued' })
    assert.equal(res.status, 201, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), [
      'allow_failure', 'author', 'coverage', 'created_at', 'description', 'finished_at', 'id', 'name', 'ref', 'sha', 'started_at', 'status', 'target_url',
    ])
    assert.equal(res.body.sha, sha)
    assert.equal(res.body.ref, 'master')
    assert.equal(res.body.status, 'pending')
    assert.equal(res.body.name, 'lint')
    assert.equal(res.body.target_url, 'https://ci.example/1')
    assert.equal(res.body.description, 'queued')
    assert.equal(res.body.allow_failure, false)
    assert.equal(res.body.author.username, m.users.developer.user.username)
    const pipelines = await t.ctx.db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', m.project.id).execute()
    assert.equal(pipelines.length, 1)
    assert.equal(pipelines[0]!.source, 'external')
    assert.equal(pipelines[0]!.status, 'pending')

    const running = await post({ state: 'running', name: 'lint', coverage: 12.5 })
    assert.equal(running.status, 201, running.text)
    assert.equal(running.body.id, res.body.id)
    assert.equal(running.body.status, 'running')
    assert.equal(running.body.target_url, 'https://ci.example/1')
    assert.equal(running.body.coverage, 12.5)
    assert.ok(running.body.started_at !== null)

    const again = await post({ state: 'running', name: 'lint' })
    assert.equal(again.status, 400)
    assert.deepEqual(again.body, { message: 'Cannot transition status via :run from :running (Reason(s): Status cannot transition via "run")' })
    const back = await post({ state: 'pending', name: 'lint' })
    assert.equal(back.status, 400)
    assert.match(back.body.message, /^Cannot transition status via :enqueue from :running/)

    let pipeline = await t.api('GET', `${base}/pipelines/${pipelines[0]!.id}`, { token: m.tokens.reporter })
    assert.equal(pipeline.body.status, 'running')
    const done = await post({ state: 'success', name: 'lint' })
    assert.equal(done.status, 201)
    assert.equal(done.body.id, res.body.id)
    assert.equal(done.body.status, 'success')
    assert.ok(done.body.finished_at !== null)
    pipeline = await t.api('GET', `${base}/pipelines/${pipelines[0]!.id}`, { token: m.tokens.reporter })
    assert.equal(pipeline.body.status, 'success')

    const commit = await t.api('GET', `${base}/repository/commits/${sha}`, { token: m.tokens.reporter })
    assert.equal(commit.body.status, 'success')
    assert.deepEqual(commit.body.last_pipeline, { id: pipelines[0]!.id, ref: 'master', sha, status: 'success' })

    // A finished status of the same name is replaced by a new one; `context` names it too.
    const failed = await post({ state: 'failed', context: 'lint' })
    assert.equal(failed.status, 201)
    assert.notEqual(failed.body.id, res.body.id)
    assert.equal(failed.body.status, 'failed')
    pipeline = await t.api('GET', `${base}/pipelines/${pipelines[0]!.id}`, { token: m.tokens.reporter })
    assert.equal(pipeline.body.status, 'failed')
    const def = await post({ state: 'canceled' })
    assert.equal(def.body.name, 'default')
    assert.equal(def.body.status, 'canceled')

    // The list: latest per name by default, every status with all.
    const list = await t.api('GET', `${base}/repository/commits/${sha}/statuses`, { token: m.tokens.reporter })
    assert.equal(list.status, 200)
    assert.deepEqual(list.body.map((s: { name: string; status: string }) => [s.name, s.status]), [['lint', 'failed'], ['default', 'canceled']])
    const all = await t.api('GET', `${base}/repository/commits/${sha}/statuses?all=true`, { token: m.tokens.reporter })
    assert.deepEqual(all.body.map((s: { name: string; status: string }) => [s.name, s.status]), [['lint', 'success'], ['lint', 'failed'], ['default', 'canceled']])
    const named = await t.api('GET', `${base}/repository/commits/${sha}/statuses?name=default`, { token: m.tokens.reporter })
    assert.deepEqual(named.body.map((s: { name: string }) => s.name), ['default'])
    const staged = await t.api('GET', `${base}/repository/commits/${sha}/statuses?stage=external`, { token: m.tokens.reporter })
    assert.equal(staged.body.length, 2)
    const otherRef = await t.api('GET', `${base}/repository/commits/${sha}/statuses?ref=other`, { token: m.tokens.reporter })
    assert.deepEqual(otherRef.body, [])
    await expectPaginates({ t, path: `${base}/repository/commits/${sha}/statuses?all=true`, token: m.tokens.reporter, total: 3 })
    await expectRejectsBadPagination(t, `${base}/repository/commits/${sha}/statuses`, m.tokens.reporter)

    // Not jobs: the jobs API lists none and finds none.
    const jobs = await t.api('GET', `${base}/jobs`, { token: m.tokens.reporter })
    assert.deepEqual(jobs.body, [])
    assert.equal((await t.api('GET', `${base}/jobs/${res.body.id}`, { token: m.tokens.reporter })).status, 404)
  })

  it('joins the pipeline of the sha and ref, after its CI jobs', async () => {
    const project = await makeProject(t, null)
    const ciSha = await commitFiles(t, project.id, { '.gitlab-ci.yml': CI_FILE })
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'master' } })
    assert.equal(created.status, 201, created.text)
    const res = await t.api('POST', `/projects/${project.id}/statuses/${ciSha}`, { body: { state: 'success', ref: 'master', name: 'review' } })
    assert.equal(res.status, 201, res.text)
    const pipelines = await t.ctx.db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', project.id).execute()
    assert.equal(pipelines.length, 1)
    const rows = await t.ctx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', created.body.id).orderBy('id').execute()
    assert.deepEqual(rows.map((row) => [row.name, row.kind, row.status]), [['build', 'ci', 'pending'], ['review', 'external', 'success']])
    // A pending job and a successful status: the original's composite status is running.
    assert.equal(pipelines[0]!.status, 'running')
    const list = await t.api('GET', `/projects/${project.id}/repository/commits/${ciSha}/statuses`)
    assert.deepEqual(list.body.map((s: { name: string; target_url: string | null }) => [s.name, s.target_url]), [['build', null], ['review', null]])
    const jobs = await t.api('GET', `/projects/${project.id}/jobs`)
    assert.deepEqual(jobs.body.map((job: { name: string }) => job.name), ['build'])
    const pipelineJobs = await t.api('GET', `/projects/${project.id}/pipelines/${created.body.id}/jobs`)
    assert.deepEqual(pipelineJobs.body.map((job: { name: string }) => job.name), ['build'])
  })

  it('defaults the ref only to the one branch headed by the sha', async () => {
    const project = await makeProject(t, null)
    const first = await commitFiles(t, project.id, { 'a.txt': 'a' })
    await commitFiles(t, project.id, { 'b.txt': 'b' })
    const res = await t.api('POST', `/projects/${project.id}/statuses/${first}`, { body: { state: 'pending' } })
    assert.equal(res.status, 400)
    const other = await commitFiles(t, project.id, { 'c.txt': 'c' }, { branch: 'feature', parent: null })
    const ok = await t.api('POST', `/projects/${project.id}/statuses/${other}`, { body: { state: 'pending' } })
    assert.equal(ok.status, 201, ok.text)
    assert.equal(ok.body.ref, 'feature')
  })

  it('answers 400 for bad input and 404 for an unknown commit', async () => {
    assert.equal((await post({})).status, 400)
    assert.equal((await post({ state: 'bogus' })).status, 400)
    assert.equal((await post({ state: 'pending', coverage: 'lots' })).status, 400)
    const missing = await post({ state: 'pending' }, m.tokens.developer, 'a'.repeat(40))
    assert.equal(missing.status, 404)
    assert.deepEqual(missing.body, { message: '404 Commit Not Found' })
    const list = await t.api('GET', `${base}/repository/commits/${'a'.repeat(40)}/statuses`, { token: m.tokens.reporter })
    assert.equal(list.status, 404)
  })

  it('lets Developers set statuses and Reporters read them', async () => {
    await expectStatuses(m, (token) => post({ state: 'success', name: 'perm', ref: 'master' }, token), {
      anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 201, maintainer: 201, owner: 201, admin: 201,
    })
    await expectStatuses(m, (token) => t.api('GET', `${base}/repository/commits/${sha}/statuses`, { token }), {
      // As the jobs API: a guest reads them when the project's jobs are public.
      anonymous: 404, nonMember: 404, guest: 200, reporter: 200, developer: 200, admin: 200,
    })
  })
})
