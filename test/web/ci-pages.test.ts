// The CI pages (web/projects/pipelines.ts, web/ansi.ts): the pipelines list, a pipeline with its
// stages and jobs, a job's log with its ANSI colours as classes and everything escaped, the log
// followed through trace.json while the job runs, retry and cancel for those who may run CI, and
// visibility as the API's (public_jobs off hides CI from non-members of a public project).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { newPipeline, runJob } from '../helpers/running-jobs.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { appendTrace } from '../../src/services/ci/trace.js'
import { finishJob } from '../../src/services/ci/transitions.js'
import { renderTerminal } from '../../src/web/ansi.js'
import { Browser, formToken } from './browser.js'

const CI_FILE = `
build: { stage: build, script: make }
test: { stage: test, script: make test }
`

describe('Web CI pages', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let reporter: TestUser
  let project: ProjectRow
  let base: string
  let pipeline: { id: number; jobs: Record<string, number> }
  before(async () => {
    t = await buildTestApp()
    ;[owner, developer, reporter] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await commitFiles(t, project.id, { '.gitlab-ci.yml': CI_FILE })
    pipeline = await newPipeline(t, project.id, developer.token)
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  const anonymous = () => new Browser(t)

  it('renders a log\'s colours as classes, escaping everything and leaving out section markers', () => {
    assert.equal(renderTerminal('\x1b[32;1mok\x1b[0m <b>&\n'), '<span class="term-fg-green term-bold">ok</span> &lt;b&gt;&amp;\n')
    assert.equal(renderTerminal('section_start:1700000000:build_script\r\x1b[0Kstep\n'), 'step\n')
    assert.equal(renderTerminal('10%\r50%\r100%\n'), '100%\n', 'a line rewritten with carriage returns shows as it ended')
    assert.equal(renderTerminal('\x1b[31mred\nstill red\x1b[39m\n'), '<span class="term-fg-red">red</span>\n<span class="term-fg-red">still red</span>\n')
  })

  it('lists the pipelines and shows one with its stages and jobs', async () => {
    const list = await anonymous().get(`${base}/pipelines`)
    assert.equal(list.status, 200, list.text)
    assert.ok(list.text.includes(`href="${base}/pipelines/${pipeline.id}"`))
    const one = await anonymous().get(`${base}/pipelines/${pipeline.id}`)
    assert.equal(one.status, 200)
    assert.match(one.text, /<h2 id="stage-build">build<\/h2>[\s\S]*<h2 id="stage-test">test<\/h2>/)
    assert.ok(one.text.includes(`href="${base}/-/jobs/${pipeline.jobs.build}"`))
    assert.equal((await anonymous().get(`${base}/pipelines/999999`)).status, 404)
  })

  it('shows a running job\'s log and follows it through trace.json, escaped, until the job ends', async () => {
    const running = await runJob(t, pipeline.jobs.build!)
    await appendTrace(t.ctx, running.id, 0, Buffer.from('\x1b[1mStarting\x1b[0m\n<script>alert(1)</script>\npartial'))
    const page = await anonymous().get(`${base}/-/jobs/${running.id}`)
    assert.equal(page.status, 200, page.text)
    assert.ok(page.text.includes('<span class="term-bold">Starting</span>'))
    assert.ok(page.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;') && !page.text.includes('<script>alert'))
    assert.ok(!page.text.includes('partial'), 'a running job\'s unfinished line waits for its end')
    assert.match(page.text, /<script src="\/-\/assets\/job-log\.[0-9a-f]{16}\.js" defer><\/script>/)
    assert.ok(page.text.includes('<noscript><meta http-equiv="refresh" content="5"></noscript>'))
    const offset = Number(/data-offset="(\d+)"/.exec(page.text)?.[1])
    assert.equal(offset, Buffer.byteLength('\x1b[1mStarting\x1b[0m\n<script>alert(1)</script>\n'))

    await appendTrace(t.ctx, running.id, Buffer.byteLength('\x1b[1mStarting\x1b[0m\n<script>alert(1)</script>\npartial'), Buffer.from(' line\nDone\n'))
    const next = await anonymous().get(`${base}/-/jobs/${running.id}/trace.json?offset=${offset}`)
    assert.equal(next.status, 200)
    const body = JSON.parse(next.text) as { offset: number; html: string; complete: boolean; status: string }
    assert.deepEqual(body, { offset: offset + Buffer.byteLength('partial line\nDone\n'), html: 'partial line\nDone\n', complete: false, status: 'running' })

    await finishJob(t.ctx, running.id, 'success')
    const ended = JSON.parse((await anonymous().get(`${base}/-/jobs/${running.id}/trace.json?offset=${body.offset}`)).text) as { complete: boolean; html: string }
    assert.deepEqual([ended.complete, ended.html], [true, ''])
    const done = await anonymous().get(`${base}/-/jobs/${running.id}`)
    assert.ok(!done.text.includes('job-log.') && done.text.includes('data-complete="true"'), 'an ended job\'s page neither polls nor reloads')
    assert.ok(done.text.includes(`/api/v4/projects/${project.id}/jobs/${running.id}/trace`), 'the raw log links to the API\'s trace')
  })

  it('retries and cancels for those who may run CI for the ref; not for a Reporter, nor without the token', async () => {
    const reporterBrowser = new Browser(t)
    await reporterBrowser.signIn(reporter.user.username)
    const reporterPage = await reporterBrowser.get(`${base}/-/jobs/${pipeline.jobs.build}`)
    assert.equal(reporterPage.status, 200)
    assert.ok(!reporterPage.text.includes('>Retry</button>'))
    assert.equal((await reporterBrowser.post(`${base}/-/jobs/${pipeline.jobs.build}/retry`, { authenticity_token: await reporterBrowser.csrfTokenFrom('/profile/personal_access_tokens') })).status, 404)

    const developerBrowser = new Browser(t)
    await developerBrowser.signIn(developer.user.username)
    const page = await developerBrowser.get(`${base}/-/jobs/${pipeline.jobs.build}`)
    const retried = await developerBrowser.post(`${base}/-/jobs/${pipeline.jobs.build}/retry`, { authenticity_token: formToken(page.text) })
    assert.equal(retried.status, 302, retried.text)
    const newest = await t.ctx.db.selectFrom('ci_builds').select(['id', 'status']).where('pipeline_id', '=', pipeline.id).where('name', '=', 'build')
      .orderBy('id', 'desc').executeTakeFirstOrThrow()
    assert.equal(retried.headers.location, `${base}/-/jobs/${newest.id}`)
    assert.equal(newest.status, 'pending')

    const pipelinePage = await developerBrowser.get(`${base}/pipelines/${pipeline.id}`)
    assert.ok(pipelinePage.text.includes('Cancel running'))
    assert.equal((await developerBrowser.post(`${base}/pipelines/${pipeline.id}/cancel`, {})).status, 422, 'no CSRF token')
    const canceled = await developerBrowser.post(`${base}/pipelines/${pipeline.id}/cancel`, { authenticity_token: formToken(pipelinePage.text) })
    assert.equal(canceled.status, 302)
    assert.equal((await t.ctx.db.selectFrom('ci_pipelines').select('status').where('id', '=', pipeline.id).executeTakeFirstOrThrow()).status, 'canceled')
  })

  it('hides CI from non-members when the project\'s jobs are not public, as the API does', async () => {
    const closed = await makeProject(t, owner, { visibility: 'public' })
    await t.ctx.db.updateTable('projects').set({ public_jobs: 0 }).where('id', '=', closed.id).execute()
    await commitFiles(t, closed.id, { '.gitlab-ci.yml': CI_FILE })
    const ownerToken = owner.token
    const hidden = await newPipeline(t, closed.id, ownerToken)
    const closedBase = `/${owner.user.username}/${closed.path}`
    for (const path of [`${closedBase}/pipelines`, `${closedBase}/pipelines/${hidden.id}`, `${closedBase}/-/jobs/${hidden.jobs.build}`, `${closedBase}/-/jobs/${hidden.jobs.build}/trace.json`]) {
      assert.equal((await anonymous().get(path)).status, 404, path)
    }
    const ownerBrowser = new Browser(t)
    await ownerBrowser.signIn(owner.user.username)
    assert.equal((await ownerBrowser.get(`${closedBase}/-/jobs/${hidden.jobs.build}`)).status, 200)
  })
})
