// Pipeline emails through a real SMTP listener: a failed pipeline mails its user (the default level
// lets failures through), a successful one only a user whose custom level asks for it, a disabled
// level none; subject and headers as the original's Emails::Pipelines. The pipelines-email
// integration mails its recipients about failures, and successes too without notify_only_broken_pipelines.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startSmtpListener, type SmtpListener } from '../helpers/smtp.js'
import { runJob } from '../helpers/running-jobs.js'
import { finishJob } from '../../src/services/ci/transitions.js'
import { createPipeline } from '../../src/services/ci/create-pipeline.js'
import type { ProjectRow } from '../../src/db/schema.js'

describe('pipeline emails', () => {
  let t: TestApp
  let smtp: SmtpListener
  let owner: TestUser
  let project: ProjectRow
  let sha: string

  const deliverAll = async () => { while (await t.ctx.jobs.runDue(Date.now()) > 0) { /* until no job is due */ } }

  /** Runs a one-job pipeline to `outcome` and delivers what follows. */
  async function finishedPipeline(outcome: 'success' | 'failed'): Promise<number> {
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'master' } })
    assert.equal(created.status, 201, created.text)
    const job = await t.ctx.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', created.body.id).executeTakeFirstOrThrow()
    await runJob(t, job.id)
    await finishJob(t.ctx, job.id, outcome)
    await deliverAll()
    return created.body.id
  }

  const setLevel = async (body: Record<string, unknown>) => {
    const res = await t.api('PUT', `/projects/${project.id}/notification_settings`, { token: owner.token, body })
    assert.equal(res.status, 200, res.text)
  }

  before(async () => {
    smtp = await startSmtpListener()
    t = await buildTestApp({ env: { INGOT_SMTP_URL: smtp.url } })
    owner = await makeUser(t)
    project = await makeProject(t, owner)
    sha = await commitFiles(t, project.id, { '.gitlab-ci.yml': 'test: { script: make test }\n' })
  })
  after(async () => {
    await t.close()
    await smtp.close()
  })
  beforeEach(() => { smtp.messages.length = 0 })

  it('mails the user of a failed pipeline, in Bcc, with the original subject and headers', async () => {
    const id = await finishedPipeline('failed')
    const [mail] = await smtp.waitFor(1)
    assert.equal(smtp.messages.length, 1)
    assert.deepEqual(mail!.to, [owner.user.email.toLowerCase()])
    assert.equal(mail!.headers.bcc, undefined, 'Bcc never shows in the message')
    assert.equal(mail!.subject, `${project.name} | Failed | master | ${sha.slice(0, 8)}`)
    assert.equal(mail!.headers['x-gitlab-pipeline-id'], String(id))
    assert.equal(mail!.headers['x-gitlab-pipeline-ref'], 'master')
    assert.equal(mail!.headers['x-gitlab-pipeline-status'], 'failed')
    assert.match(mail!.text, /Your pipeline has failed\./)
    assert.match(mail!.text, new RegExp(`/pipelines/${id}`))
    assert.match(mail!.text, new RegExp(`triggered by ${owner.user.name} \\( http://ingot\\.test/${owner.user.username} \\)`))
    assert.match(mail!.text, /had 1 failed job\.\n\nJob #\d+ \( http:\/\/ingot\.test\/[^ ]+\/-\/jobs\/\d+ \)\n\nStage: test\nName: test\n/)
    // html_emails_enabled (on by default): the same facts with their links.
    assert.match(String(mail!.html), /<p>Your pipeline has failed\.<\/p>/)
    assert.match(String(mail!.html), new RegExp(`<p>Pipeline #${id} <a href="http://ingot\\.test/[^"]+/pipelines/${id}">`))
  })

  it('mails the failure of a pipeline whose CI file does not read', async () => {
    await commitFiles(t, project.id, { '.gitlab-ci.yml': 'test: { script: [[1]] }\n' }, { branch: 'broken', parent: null })
    const sha = (await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/broken'))!
    const namespace = await t.ctx.db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
    // As a push creates it: kept, failed with config_error.
    const created = await createPipeline(t.ctx, {
      project, namespace, userId: owner.user.id, source: 'push', ref: 'broken', tag: false, sha, beforeSha: null, saveOnConfigError: true,
    })
    assert.ok(created.ok && created.pipeline.status === 'failed')
    await deliverAll()
    const [mail] = await smtp.waitFor(1)
    assert.match(mail!.subject, / \| Failed \| broken \| /)
  })

  it('mails a successful pipeline only to a custom level that asks for it', async () => {
    await finishedPipeline('success')
    assert.equal(smtp.messages.length, 0, 'participating users are not told of successes')
    await setLevel({ level: 'custom', success_pipeline: true })
    await finishedPipeline('success')
    const [mail] = await smtp.waitFor(1)
    assert.equal(mail!.subject, `${project.name} | Succeeded | master | ${sha.slice(0, 8)}`)
    assert.match(mail!.text, /Your pipeline has passed\./)
    assert.match(mail!.text, /successfully completed 1 job in 1 stage\./)
  })

  it('mails nothing to a disabled level, nor to a custom level without failed_pipeline', async () => {
    await setLevel({ level: 'disabled' })
    await finishedPipeline('failed')
    await setLevel({ level: 'custom', failed_pipeline: false })
    await finishedPipeline('failed')
    assert.equal(smtp.messages.length, 0)
  })

  it('pipelines-email integration: set over the API, mails its recipients about broken pipelines, successes when asked', async () => {
    await setLevel({ level: 'disabled' })
    const base = `/projects/${project.id}/services/pipelines-email`
    const missing = await t.api('PUT', base, { token: owner.token, body: {} })
    assert.equal(missing.status, 400, missing.text)
    const saved = await t.api('PUT', base, { token: owner.token, body: { recipients: 'ci@example.com, team@example.com\nops@example.com', pipeline_events: true } })
    assert.equal(saved.status, 200, saved.text)
    assert.equal(saved.body.pipeline_events, true)
    assert.equal(saved.body.properties.notify_only_broken_pipelines, true)
    const shown = await t.api('GET', base, { token: owner.token })
    assert.equal(shown.status, 200, shown.text)

    await finishedPipeline('success')
    assert.equal(smtp.messages.length, 0, 'only broken pipelines by default')
    await finishedPipeline('failed')
    const [mail] = await smtp.waitFor(1)
    assert.deepEqual([...mail!.to].sort(), ['ci@example.com', 'ops@example.com', 'team@example.com'])
    assert.match(mail!.subject, / \| Failed \| master \| /)

    smtp.messages.length = 0
    const all = await t.api('PUT', base, { token: owner.token, body: { recipients: 'ci@example.com', notify_only_broken_pipelines: false } })
    assert.equal(all.status, 200, all.text)
    await finishedPipeline('success')
    const [success] = await smtp.waitFor(1)
    assert.deepEqual(success!.to, ['ci@example.com'])

    smtp.messages.length = 0
    const off = await t.api('PUT', base, { token: owner.token, body: { recipients: 'ci@example.com', pipeline_events: false } })
    assert.equal(off.status, 200, off.text)
    await finishedPipeline('failed')
    assert.equal(smtp.messages.length, 0, 'pipeline_events off: nothing')
  })
})
