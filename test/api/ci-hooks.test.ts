// Pipeline Hook and Job Hook: a real receiver gets the original's DataBuilder::Pipeline and ::Build
// bodies when a pipeline runs (its jobs started and finished by the test as a runner would), only
// hooks with pipeline_events or job_events get them, and the hook test endpoint sends them too. The
// chat webhook integration announces broken pipelines (and passed ones when asked) as the original.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startHookReceiver, type HookReceiver, type ReceivedHook } from '../helpers/hook-receiver.js'
import { until } from '../helpers/jobs.js'
import { runJob } from '../helpers/running-jobs.js'
import { cancelJob, finishJob } from '../../src/services/ci/transitions.js'
import type { ProjectRow } from '../../src/db/schema.js'

const CI_FILE = 'build: { stage: build, script: make }\ntest: { stage: test, script: make test }\n'
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('Pipeline Hook and Job Hook', () => {
  let t: TestApp
  let receiver: HookReceiver
  let owner: TestUser
  let project: ProjectRow
  let sha: string

  /** Runs the queued jobs (fan-outs, then deliveries) until none is due. */
  const deliverAll = async () => { while (await t.ctx.jobs.runDue(Date.now()) > 0) { /* until no job is due */ } }
  const received = (path: string, event: string) => receiver.received.filter((r) => r.path === path && r.headers['x-gitlab-event'] === event)

  before(async () => {
    t = await buildTestApp()
    receiver = await startHookReceiver()
    const settings = await t.api('PUT', '/application/settings', { body: { allow_local_requests_from_hooks_and_services: true } })
    assert.equal(settings.status, 200, settings.text)
    owner = await makeUser(t)
    project = await makeProject(t, owner)
    sha = await commitFiles(t, project.id, { '.gitlab-ci.yml': CI_FILE }, { message: 'Add CI' })
    const hooks = [
      { url: `${receiver.url}/ci`, push_events: false, pipeline_events: true, job_events: true, token: 'ci-secret' },
      { url: `${receiver.url}/pipelines-only`, push_events: false, pipeline_events: true },
      { url: `${receiver.url}/deaf`, push_events: true, issues_events: true, note_events: true },
    ]
    for (const body of hooks) {
      const res = await t.api('POST', `/projects/${project.id}/hooks`, { token: owner.token, body })
      assert.equal(res.status, 201, res.text)
    }
  })
  after(async () => {
    await receiver.close()
    await t.close()
  })

  it('tells each status of a pipeline and the start and end of each job, as the original builds them', async () => {
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, {
      token: owner.token, body: { ref: 'master', variables: [{ key: 'DEPLOY', value: 'no' }] },
    })
    assert.equal(created.status, 201, created.text)
    const pipelineId: number = created.body.id
    const jobs = await t.ctx.db.selectFrom('ci_builds').select(['id', 'name']).where('pipeline_id', '=', pipelineId).orderBy('id').execute()
    const [build, test] = jobs.map((job) => job.id) as [number, number]

    await runJob(t, build)
    await finishJob(t.ctx, build, 'success')
    await runJob(t, test)
    await finishJob(t.ctx, test, 'failed', 'script_failure')

    const failedPipeline = () => received('/ci', 'Pipeline Hook').find((r) => r.body.object_attributes.status === 'failed')
    await deliverAll()
    await until(() => failedPipeline() !== undefined && received('/ci', 'Job Hook').length >= 4 && received('/pipelines-only', 'Pipeline Hook').length >= 3, 'the CI hooks')
    // pending (created), running, failed: one delivery per move of the pipeline's status.
    assert.equal(received('/ci', 'Pipeline Hook').length, 3)

    const pipelineHook = failedPipeline()!
    assert.equal(pipelineHook.headers['x-gitlab-token'], 'ci-secret')
    assert.equal(pipelineHook.headers['x-service-event'], 'Pipeline Hook')
    const body = pipelineHook.body
    assert.deepEqual(Object.keys(body).sort(), ['builds', 'commit', 'object_attributes', 'object_kind', 'project', 'user'])
    assert.equal(body.object_kind, 'pipeline')
    const { created_at: createdAt, finished_at: finishedAt, duration, ...attributes } = body.object_attributes
    assert.match(createdAt, ISO_TIME)
    assert.match(finishedAt, ISO_TIME)
    assert.equal(typeof duration, 'number')
    assert.deepEqual(attributes, {
      id: pipelineId, ref: 'master', tag: false, sha, before_sha: null, status: 'failed', detailed_status: 'failed',
      stages: ['build', 'test'], variables: [{ key: 'DEPLOY', value: 'no' }],
    })
    assert.deepEqual(body.user, { name: owner.user.name, username: owner.user.username, avatar_url: body.user.avatar_url })
    assert.equal(body.project.id, project.id)
    assert.equal(body.project.homepage, undefined, 'the project without its old names, as hook_attrs(backward: false)')
    assert.equal(body.commit.id, sha)
    assert.equal(body.commit.message, 'Add CI')
    assert.deepEqual(body.builds.map((b: { name: string; status: string }) => [b.name, b.status]), [['build', 'success'], ['test', 'failed']])
    const { created_at: jobCreated, started_at: jobStarted, finished_at: jobFinished, user, ...job } = body.builds[1]
    for (const time of [jobCreated, jobStarted, jobFinished]) assert.match(time, ISO_TIME)
    assert.equal(user.username, owner.user.username)
    assert.deepEqual(job, {
      id: test, stage: 'test', name: 'test', status: 'failed', when: 'on_success', manual: false, runner: null,
      artifacts_file: { filename: null, size: null },
    })

    const jobHooks = received('/ci', 'Job Hook').map((r) => r.body)
    const testEnd = jobHooks.find((b) => b.build_id === test && b.build_status === 'failed')
    assert.ok(testEnd !== undefined, 'the failed job is told')
    assert.ok(jobHooks.some((b) => b.build_id === build && b.build_status === 'success'))
    assert.equal(jobHooks.filter((b) => b.build_id === test).length, 2, 'its start and its end')
    const { build_started_at: startedAt, build_finished_at: endedAt, build_duration: buildDuration, commit, repository, ...fields } = testEnd
    assert.match(startedAt, ISO_TIME)
    assert.match(endedAt, ISO_TIME)
    assert.equal(typeof buildDuration, 'number')
    assert.deepEqual(fields, {
      object_kind: 'build', ref: 'master', tag: false, before_sha: null, sha,
      build_id: test, build_name: 'test', build_stage: 'test', build_status: 'failed',
      build_allow_failure: false, build_failure_reason: 'script_failure',
      project_id: project.id, project_name: fields.project_name,
      user: { id: owner.user.id, name: owner.user.name, email: owner.user.email },
    })
    assert.match(fields.project_name, new RegExp(` / ${project.name}$`))
    assert.equal(commit.id, pipelineId, 'the original names the pipeline commit')
    assert.equal(commit.sha, sha)
    assert.equal(commit.message, 'Add CI')
    assert.equal(commit.status, 'failed')
    assert.equal(repository.name, project.name)
    assert.deepEqual(Object.keys(repository).sort(), ['description', 'git_http_url', 'git_ssh_url', 'homepage', 'name', 'url', 'visibility_level'])

    assert.equal(received('/pipelines-only', 'Job Hook').length, 0, 'a hook without job_events gets no job')
    assert.equal(receiver.received.filter((r) => r.path === '/deaf').length, 0, 'a hook without either gets nothing')
  })

  it('tells a canceled job and its pipeline', async () => {
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'master' } })
    assert.equal(created.status, 201, created.text)
    const job = await t.ctx.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', created.body.id).where('name', '=', 'build').executeTakeFirstOrThrow()
    await cancelJob(t.ctx, job.id)
    await deliverAll()
    const canceled = (r: ReceivedHook) => r.body.build_id === job.id && r.body.build_status === 'canceled'
    await until(() => received('/ci', 'Job Hook').some(canceled), 'the canceled job')
    await until(() => received('/ci', 'Pipeline Hook').some((r) => r.body.object_attributes.id === created.body.id && r.body.object_attributes.status === 'canceled'), 'the canceled pipeline')
  })

  it('sends the first pipeline and the first job as samples from the hook test endpoint', async () => {
    const hook = await t.ctx.db.selectFrom('web_hooks').select('id').where('url', '=', `${receiver.url}/deaf`).executeTakeFirstOrThrow()
    const first = await t.ctx.db.selectFrom('ci_pipelines').select('id').where('project_id', '=', project.id).orderBy('id').executeTakeFirstOrThrow()
    receiver.clear()
    for (const [trigger, event] of [['pipeline_events', 'Pipeline Hook'], ['job_events', 'Job Hook']] as const) {
      const res = await t.api('POST', `/projects/${project.id}/hooks/${hook.id}/test/${trigger}`, { token: owner.token })
      assert.equal(res.status, 201, res.text)
      const sent = received('/deaf', event)
      assert.equal(sent.length, 1, trigger)
      if (trigger === 'pipeline_events') assert.equal(sent[0]!.body.object_attributes.id, first.id)
      else assert.equal(sent[0]!.body.object_kind, 'build')
    }
  })

  it('the chat webhook announces a failed pipeline, a passed one only without notify_only_broken_pipelines', async () => {
    const base = `/projects/${project.id}/services/chat-webhook`
    // notify_only_default_branch is on: master must be the default branch.
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    const saved = await t.api('PUT', base, { token: owner.token, body: { webhook: `${receiver.url}/chat`, pipeline_events: true, push_events: false } })
    assert.equal(saved.status, 200, saved.text)
    const chat = () => receiver.received.filter((r) => r.path === '/chat').map((r) => r.body.text as string)
    const runTo = async (outcome: 'success' | 'failed') => {
      const created = await t.api('POST', `/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'master' } })
      assert.equal(created.status, 201, created.text)
      const jobs = await t.ctx.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', created.body.id).orderBy('id').execute()
      for (const job of jobs) {
        await runJob(t, job.id)
        await finishJob(t.ctx, job.id, outcome)
        if (outcome === 'failed') break
      }
      await deliverAll()
      return created.body.id as number
    }
    receiver.clear()
    const failed = await runTo('failed')
    await until(() => chat().length === 1, 'the chat message')
    const projectPath = `${owner.user.username}/${project.path}`
    assert.match(chat()[0]!, new RegExp(`^<http://ingot\\.test/${projectPath}\\|${projectPath}>: Pipeline <http://ingot\\.test/${projectPath}/pipelines/${failed}\\|#${failed}> of branch <http://ingot\\.test/${projectPath}/commits/master\\|master> by ${owner.user.name} \\(${owner.user.username}\\) failed in \\d+ seconds?$`))
    await runTo('success')
    assert.equal(chat().length, 1, 'a passed pipeline is not announced by default')
    const all = await t.api('PUT', base, { token: owner.token, body: { webhook: `${receiver.url}/chat`, notify_only_broken_pipelines: false } })
    assert.equal(all.status, 200, all.text)
    const passed = await runTo('success')
    await until(() => chat().length === 2, 'the passed pipeline')
    assert.match(chat()[1]!, new RegExp(`Pipeline <[^|]+\\|#${passed}> of branch .* passed in \\d+ seconds?$`))
  })
})
