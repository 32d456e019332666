// CI in a team's flow, end to end: a real Ingot on a socket, a real `ingot runner` process running
// the jobs in its sandbox, CI files pushed with git over HTTP, and the test only a user of the API
// (it never speaks the runner protocol). Deployments and environments, stopped by their on_stop
// job; merge when pipeline succeeds (and only_allow_merge_if_pipeline_succeeds); the pipeline and
// coverage badges; Pipeline Hook and Job Hook delivered to a real receiver, and the failed-pipeline
// email delivered to a real SMTP listener.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js'
import { until } from '../helpers/jobs.js'
import { projectFullPath } from '../helpers/projects.js'
import { startRunnerProcess, type RunnerProcess } from '../helpers/runner-process.js'
import { startSmtpListener, type SmtpListener } from '../helpers/smtp.js'
import type { ProjectRow } from '../../src/db/schema.js'

const FINISHED = ['success', 'failed', 'canceled', 'skipped']

interface Pipeline { id: number; status: string; ref: string; sha: string }
interface Job { id: number; name: string; status: string; stage: string }

describe('CI flow end to end with ingot runner', () => {
  let t: TestApp
  let client: GitClient
  let smtp: SmtpListener
  let receiver: HookReceiver
  let owner: TestUser
  let runner: RunnerProcess
  const gates: Gate[] = []
  let counter = 0

  before(async () => {
    smtp = await startSmtpListener()
    receiver = await startHookReceiver()
    t = await buildTestApp({ env: { INGOT_SMTP_URL: smtp.url } })
    client = await startGitClient(t)
    await t.ctx.jobs.start()
    const settings = await t.api('PUT', '/application/settings', { body: { allow_local_requests_from_hooks_and_services: true } })
    assert.equal(settings.status, 200, settings.text)
    owner = await makeUser(t)
    // Room for the four jobs that wait at once at the merge test's gate, and one more.
    runner = await startRunnerProcess(t, client, { INGOT_RUNNER_CONCURRENCY: '5' })
  })

  after(async () => {
    // Jobs still waiting at a gate (a test that failed early) end with the runner.
    const code = await runner.stop()
    for (const gate of gates) await gate.close()
    await client.close()
    await t.close()
    await receiver.close()
    await smtp.close()
    assert.equal(code, 0, runner.log())
  })

  /** A new project of `owner`, cloned, with `files` pushed to master over HTTP. */
  async function pushProject(files: Record<string, string>, input: Parameters<typeof makeProject>[2] = {}): Promise<{ project: ProjectRow; sha: string; dir: string }> {
    const project = await makeProject(t, owner, input)
    const dir = path.join(client.dir, `work${(counter += 1)}`)
    await client.ok(['clone', '-q', client.url(await projectFullPath(t, project), { username: owner.user.username, password: owner.token }), dir])
    return { project, dir, sha: await pushCommit(dir, files) }
  }

  /** Commits `files` on what `dir` has checked out and pushes it to `branch`; the commit. */
  async function pushCommit(dir: string, files: Record<string, string>, branch = 'master'): Promise<string> {
    for (const [name, content] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true })
      await fs.writeFile(path.join(dir, name), content)
    }
    await client.ok(['add', ...Object.keys(files)], { cwd: dir })
    await client.ok(['commit', '-q', '-m', `Change ${Object.keys(files).join(', ')}`], { cwd: dir })
    await client.ok(['push', '-q', 'origin', `HEAD:${branch}`], { cwd: dir })
    return (await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim()
  }

  async function pipelineOf(project: ProjectRow, sha: string, ref: string): Promise<Pipeline | null> {
    const res = await t.api('GET', `/projects/${project.id}/pipelines`, { token: owner.token, query: { sha, ref } })
    assert.equal(res.status, 200, res.text)
    return res.body[0] ?? null
  }

  /** The pipeline of `sha` on `ref` once `done` says so of it (by default: once it has finished). */
  async function pipelineWhen(project: ProjectRow, sha: string, ref: string, done = (p: Pipeline) => FINISHED.includes(p.status), what = 'finished'): Promise<Pipeline> {
    let pipeline: Pipeline | null = null
    await poll(async () => {
      pipeline = await pipelineOf(project, sha, ref)
      return pipeline !== null && done(pipeline)
    }, `the pipeline of ${ref} ${sha} ${what}`, 90_000)
    return pipeline!
  }

  async function jobsOf(project: ProjectRow, pipelineId: number): Promise<Job[]> {
    const res = await t.api('GET', `/projects/${project.id}/pipelines/${pipelineId}/jobs`, { token: owner.token, query: { per_page: 100 } })
    assert.equal(res.status, 200, res.text)
    return (res.body as Job[]).sort((a, b) => a.id - b.id)
  }

  async function traceOf(project: ProjectRow, jobId: number): Promise<string> {
    const res = await t.api('GET', `/projects/${project.id}/jobs/${jobId}/trace`, { token: owner.token })
    assert.equal(res.status, 200, res.text)
    return res.text
  }

  async function openGate(): Promise<Gate> {
    const gate = await startGate()
    gates.push(gate)
    return gate
  }

  it('deploys to a review environment per branch, numbers the deployments, and stops it with its on_stop job', async () => {
    const { project, dir } = await pushProject({ 'README.md': 'environments\n' })
    const ciFile = [
      'deploy:',
      '  script: [ \'echo "name=$CI_ENVIRONMENT_NAME slug=$CI_ENVIRONMENT_SLUG url=$CI_ENVIRONMENT_URL"\' ]',
      '  environment:',
      '    name: review/$CI_COMMIT_REF_NAME',
      '    url: https://$CI_COMMIT_REF_SLUG.example.test',
      '    on_stop: stop_review',
      'stop_review:',
      '  script: [ \'echo "stopping $CI_ENVIRONMENT_NAME"\' ]',
      '  when: manual',
      '  environment: { name: review/$CI_COMMIT_REF_NAME, action: stop }',
    ].join('\n')
    await client.ok(['checkout', '-q', '-b', 'feature'], { cwd: dir })
    const sha = await pushCommit(dir, { '.gitlab-ci.yml': ciFile }, 'feature')
    // The deploy job ran; stop_review waits to be played.
    const pipeline = await pipelineWhen(project, sha, 'feature', (p) => [...FINISHED, 'manual'].includes(p.status))
    assert.equal(pipeline.status, 'success')
    const [deploy, stop] = await jobsOf(project, pipeline.id)
    assert.deepEqual([deploy!.name, deploy!.status, stop!.name, stop!.status], ['deploy', 'success', 'stop_review', 'manual'])

    const environments = await t.api('GET', `/projects/${project.id}/environments`, { token: owner.token })
    assert.equal(environments.status, 200, environments.text)
    assert.equal(environments.body.length, 1)
    const environment = environments.body[0]
    assert.equal(environment.name, 'review/feature')
    assert.match(environment.slug, /^review-feature-[a-z0-9]{6}$/)
    assert.equal(environment.external_url, 'https://feature.example.test')
    const row = await t.ctx.db.selectFrom('environments').select('state').where('id', '=', environment.id).executeTakeFirstOrThrow()
    assert.equal(row.state, 'available')
    assert.match(await traceOf(project, deploy!.id), new RegExp(`^name=review/feature slug=${environment.slug} url=https://feature\\.example\\.test$`, 'm'))

    const deployments = await t.api('GET', `/projects/${project.id}/deployments`, { token: owner.token })
    assert.equal(deployments.status, 200, deployments.text)
    assert.equal(deployments.body.length, 1)
    const [first] = deployments.body
    assert.equal(first.iid, 1)
    assert.equal(first.ref, 'feature')
    assert.equal(first.sha, sha)
    assert.equal(first.user.username, owner.user.username)
    assert.deepEqual(first.environment, { id: environment.id, name: 'review/feature', slug: environment.slug, external_url: 'https://feature.example.test' })
    assert.equal(first.deployable.id, deploy!.id)
    assert.equal(first.deployable.name, 'deploy')
    assert.equal(first.deployable.status, 'success')
    assert.equal(first.deployable.pipeline.id, pipeline.id)

    // A second push deploys again, to the same environment: iid 2.
    const secondSha = await pushCommit(dir, { 'README.md': 'environments, again\n' }, 'feature')
    const second = await pipelineWhen(project, secondSha, 'feature', (p) => [...FINISHED, 'manual'].includes(p.status))
    assert.equal(second.status, 'success')
    const [secondDeploy, secondStop] = await jobsOf(project, second.id)
    const both = await t.api('GET', `/projects/${project.id}/deployments`, { token: owner.token, query: { order_by: 'iid', sort: 'asc' } })
    assert.deepEqual(both.body.map((d: { iid: number; sha: string; deployable: { id: number }; environment: { id: number } }) => [d.iid, d.sha, d.deployable.id, d.environment.id]), [
      [1, sha, deploy!.id, environment.id],
      [2, secondSha, secondDeploy!.id, environment.id],
    ])

    // Stopping plays the stop job of the last deployment's pipeline, which the runner runs.
    const stopped = await t.api('POST', `/projects/${project.id}/environments/${environment.id}/stop`, { token: owner.token })
    assert.equal(stopped.status, 200, stopped.text)
    assert.equal(stopped.body.id, environment.id)
    let stopJob: Job | undefined
    await poll(async () => {
      stopJob = (await jobsOf(project, second.id)).find((job) => job.id === secondStop!.id)
      return stopJob !== undefined && FINISHED.includes(stopJob.status)
    }, 'the stop job finished', 90_000)
    assert.equal(stopJob!.status, 'success', await traceOf(project, stopJob!.id))
    assert.match(await traceOf(project, stopJob!.id), /^stopping review\/feature$/m)
    // The first pipeline's stop job was not played.
    assert.equal((await jobsOf(project, pipeline.id))[1]!.status, 'manual')
    const after = await t.ctx.db.selectFrom('environments').select('state').where('id', '=', environment.id).executeTakeFirstOrThrow()
    assert.equal(after.state, 'stopped')
    // Stopping deploys nothing.
    const total = await t.api('GET', `/projects/${project.id}/deployments`, { token: owner.token })
    assert.equal(total.body.length, 2)
  })

  it('merges when the pipeline succeeds with the options given, not after a failure or a new push, and refuses merging while it runs', async () => {
    // Jobs of branches wait at a gate the test opens, so the pipelines are running while the test merges.
    const gate = await openGate()
    const ciFile = [
      'check:',
      '  except: [master]',
      '  script:',
      `    - ${gate.waitCommand}`,
      '    - test "$CI_COMMIT_REF_NAME" != broken',
    ].join('\n')
    const { project, dir } = await pushProject({ '.gitlab-ci.yml': ciFile })
    const settings = await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { only_allow_merge_if_pipeline_succeeds: true } })
    assert.equal(settings.status, 200, settings.text)
    assert.equal(settings.body.only_allow_merge_if_pipeline_succeeds, true)

    const shas: Record<string, string> = {}
    const iids: Record<string, number> = {}
    for (const branch of ['feature', 'broken', 'moved']) {
      await client.ok(['checkout', '-q', '-b', branch, 'master'], { cwd: dir })
      shas[branch] = await pushCommit(dir, { [`${branch}.txt`]: `${branch}\n` }, branch)
      await pipelineWhen(project, shas[branch]!, branch, (p) => p.status === 'running', 'running')
      const created = await t.api('POST', `/projects/${project.id}/merge_requests`, {
        token: owner.token, body: { source_branch: branch, target_branch: 'master', title: `Merge ${branch}` },
      })
      assert.equal(created.status, 201, created.text)
      iids[branch] = created.body.iid
    }
    const mrPath = (branch: string) => `/projects/${project.id}/merge_requests/${iids[branch]}`

    for (const branch of ['feature', 'broken', 'moved']) {
      const shown = await t.api('GET', mrPath(branch), { token: owner.token })
      assert.equal(shown.body.pipeline?.status, 'running', shown.text)
      assert.equal(shown.body.pipeline.sha, shas[branch])
      // The head pipeline has not succeeded: merging now is refused.
      const now = await t.api('PUT', `${mrPath(branch)}/merge`, { token: owner.token })
      assert.equal(now.status, 405, now.text)
      const options = branch === 'feature' ? { should_remove_source_branch: true } : {}
      const later = await t.api('PUT', `${mrPath(branch)}/merge`, { token: owner.token, body: { merge_when_pipeline_succeeds: true, ...options } })
      assert.equal(later.status, 200, later.text)
      assert.equal(later.body.merge_when_pipeline_succeeds, true)
      assert.equal(later.body.state, 'opened')
    }

    // A new push to a waiting merge request's branch turns the automatic merge off, silently.
    const movedFirst = shas.moved!
    shas.moved = await pushCommit(dir, { 'moved.txt': 'moved again\n' }, 'moved')
    await poll(async () => (await t.api('GET', mrPath('moved'), { token: owner.token })).body.merge_when_pipeline_succeeds === false, 'the automatic merge turned off by the push', 30_000)
    await pipelineWhen(project, shas.moved, 'moved', (p) => p.status === 'running', 'running')

    gate.open()
    const succeeded = await pipelineWhen(project, shas.feature!, 'feature')
    assert.equal(succeeded.status, 'success')
    const failed = await pipelineWhen(project, shas.broken!, 'broken')
    assert.equal(failed.status, 'failed')
    for (const sha of [movedFirst, shas.moved]) assert.equal((await pipelineWhen(project, sha, 'moved')).status, 'success')

    let merged: any
    await poll(async () => {
      merged = (await t.api('GET', mrPath('feature'), { token: owner.token })).body
      return merged.state === 'merged'
    }, 'the merge request merged', 30_000)
    assert.equal(merged.merged_by.username, owner.user.username)
    assert.equal(merged.merge_when_pipeline_succeeds, true)
    const master = await t.api('GET', `/projects/${project.id}/repository/branches/master`, { token: owner.token })
    assert.equal(master.body.commit.id, merged.merge_commit_sha)
    const parents = (await t.api('GET', `/projects/${project.id}/repository/commits/${merged.merge_commit_sha}`, { token: owner.token })).body.parent_ids
    assert.ok(parents.includes(shas.feature), parents)
    // As the caller asked: the source branch removed after the merge.
    await poll(async () => (await t.api('GET', `/projects/${project.id}/repository/branches/feature`, { token: owner.token })).status === 404, 'the source branch removed', 30_000)
    const notes = await t.api('GET', `${mrPath('feature')}/notes`, { token: owner.token, query: { sort: 'asc', order_by: 'created_at' } })
    assert.deepEqual(notes.body.filter((note: { system: boolean }) => note.system).map((note: { body: string; author: { username: string } }) => [note.body, note.author.username]), [
      [`enabled an automatic merge when the pipeline for ${shas.feature} succeeds`, owner.user.username],
      ['merged', owner.user.username],
    ])

    // The failed pipeline merges nothing (only a success enqueues a merge): the merge request stays
    // open, still set to merge (as the original 11.5, which drops the flag only on a new push or a
    // cancel), and merging it is refused.
    const open = (await t.api('GET', mrPath('broken'), { token: owner.token })).body
    assert.equal(open.state, 'opened')
    assert.equal(open.merge_when_pipeline_succeeds, true)
    assert.equal(open.pipeline.status, 'failed')
    assert.equal((await t.api('PUT', `${mrPath('broken')}/merge`, { token: owner.token })).status, 405)
    const systemNotes = async (branch: string) => (await t.api('GET', `${mrPath(branch)}/notes`, { token: owner.token, query: { sort: 'asc', order_by: 'created_at' } })).body
      .filter((note: { system: boolean }) => note.system).map((note: { body: string }) => note.body)
    assert.deepEqual(await systemNotes('broken'), [`enabled an automatic merge when the pipeline for ${shas.broken} succeeds`])

    // Neither the old commit's pipeline nor the new one merged the merge request the push reset.
    const moved = (await t.api('GET', mrPath('moved'), { token: owner.token })).body
    assert.equal(moved.state, 'opened')
    assert.equal(moved.merge_when_pipeline_succeeds, false)
    assert.equal(moved.sha, shas.moved)
    assert.equal(moved.pipeline.status, 'success')
    const movedNotes = await systemNotes('moved')
    assert.equal(movedNotes[0], `enabled an automatic merge when the pipeline for ${movedFirst} succeeds`)
    assert.ok(!movedNotes.some((body: string) => /merged|canceled the automatic merge/.test(body)), movedNotes.join('\n'))
  })

  it('shows the pipeline and coverage badges of what the runner ran, to anyone for a public project', async () => {
    const ciFile = [
      'test:',
      "  coverage: '/Coverage: \\d+\\.\\d+%/'",
      '  script:',
      '    - \'echo "Coverage: 87.50%"\'',
      '    - test "$CI_COMMIT_REF_NAME" != broken',
    ].join('\n')
    const { project, dir, sha } = await pushProject({ '.gitlab-ci.yml': ciFile }, { visibility: 'public' })
    const base = `${client.baseUrl}/${await projectFullPath(t, project)}/badges`
    const badge = async (ref: string, kind: string, query = '') => {
      const res = await fetch(`${base}/${ref}/${kind}.svg${query}`)
      assert.equal(res.status, 200)
      assert.match(String(res.headers.get('content-type')), /^image\/svg\+xml/)
      return badgeValue(await res.text())
    }
    assert.equal((await pipelineWhen(project, sha, 'master')).status, 'success')
    assert.equal(await badge('master', 'pipeline'), 'passed')
    // The coverage is read from the trace once it is archived, just after the job ended.
    await poll(async () => await badge('master', 'coverage') === '87.50%', 'the coverage badge', 30_000)
    assert.equal(await badge('master', 'coverage', '?job=test'), '87.50%')
    const pipeline = await t.api('GET', `/projects/${project.id}/pipelines/${(await pipelineOf(project, sha, 'master'))!.id}`, { token: null })
    assert.equal(pipeline.body.coverage, '87.50')

    const brokenSha = await pushCommit(dir, { 'broken.txt': 'broken\n' }, 'broken')
    assert.equal((await pipelineWhen(project, brokenSha, 'broken')).status, 'failed')
    assert.equal(await badge('broken', 'pipeline'), 'failed')
    assert.equal(await badge('broken', 'coverage'), 'unknown')
    assert.equal(await badge('master', 'pipeline'), 'passed')
  })

  it('delivers Pipeline Hook and Job Hook to a web hook, and mails the pusher a failed pipeline', async () => {
    const { project, dir } = await pushProject({ 'README.md': 'hooks\n' })
    const hook = await t.api('POST', `/projects/${project.id}/hooks`, {
      token: owner.token, body: { url: `${receiver.url}/ci-${project.id}`, push_events: false, pipeline_events: true, job_events: true },
    })
    assert.equal(hook.status, 201, hook.text)
    const ciFile = [
      'stages: [build, test]',
      'build: { stage: build, script: [ "echo building" ] }',
      'test: { stage: test, script: [ "echo testing", \'test "$CI_COMMIT_REF_NAME" != broken\' ] }',
    ].join('\n')
    const sha = await pushCommit(dir, { '.gitlab-ci.yml': ciFile })
    const pipeline = await pipelineWhen(project, sha, 'master')
    assert.equal(pipeline.status, 'success')
    const jobs = await jobsOf(project, pipeline.id)

    const hooksOf = (event: string) => receiver.received.filter((r) => r.path === `/ci-${project.id}` && r.headers['x-gitlab-event'] === event)
    // One delivery per move of the pipeline's status (pending, running, success), each built when it is sent.
    const pipelineHooks = () => hooksOf('Pipeline Hook').filter((r) => r.body.object_attributes.id === pipeline.id)
    const finalPipelineHook = () => pipelineHooks().find((r) => r.body.object_attributes.status === 'success')
    // A job's start and its end, each told with the job as it is when its delivery is built.
    const jobHooks = () => hooksOf('Job Hook').filter((r) => r.body.sha === sha)
    const endedJobs = () => new Set(jobHooks().filter((r) => r.body.build_status === 'success').map((r) => r.body.build_name))
    await until(() => pipelineHooks().length === 3 && finalPipelineHook() !== undefined && jobHooks().length === 4 && endedJobs().size === 2, 'the hooks of the run', 30_000)
    const pipelineHook = finalPipelineHook()!.body
    assert.equal(pipelineHook.object_kind, 'pipeline')
    assert.equal(pipelineHook.object_attributes.ref, 'master')
    assert.equal(pipelineHook.object_attributes.sha, sha)
    assert.deepEqual(pipelineHook.object_attributes.stages, ['build', 'test'])
    assert.equal(pipelineHook.user.username, owner.user.username)
    assert.equal(pipelineHook.commit.id, sha)
    assert.deepEqual(pipelineHook.builds.map((b: { id: number; name: string; status: string }) => [b.id, b.name, b.status]).sort(), jobs.map((j) => [j.id, j.name, 'success']).sort())
    for (const hookBody of jobHooks().map((r) => r.body)) {
      assert.equal(hookBody.object_kind, 'build')
      assert.equal(hookBody.ref, 'master')
      assert.equal(hookBody.commit.id, pipeline.id)
      assert.equal(hookBody.project_id, project.id)
      assert.ok(jobs.some((job) => job.id === hookBody.build_id && job.name === hookBody.build_name), JSON.stringify(hookBody))
    }
    assert.deepEqual([...endedJobs()].sort(), ['build', 'test'])
    // A pipeline that succeeded mails no one at the default level.
    const mailsOf = (ref: string) => smtp.messages.filter((mail) => mail.subject.startsWith(`${project.name} | `) && mail.subject.includes(` | ${ref} | `))
    assert.deepEqual(mailsOf('master'), [])

    // A failing pipeline: the pusher gets the failed-pipeline email.
    const brokenSha = await pushCommit(dir, { 'broken.txt': 'broken\n' }, 'broken')
    const broken = await pipelineWhen(project, brokenSha, 'broken')
    assert.equal(broken.status, 'failed')
    await until(() => mailsOf('broken').length > 0, 'the failed-pipeline email', 30_000)
    const [mail] = mailsOf('broken')
    assert.deepEqual(mail!.to, [owner.user.email.toLowerCase()])
    assert.equal(mail!.subject, `${project.name} | Failed | broken | ${brokenSha.slice(0, 8)}`)
    assert.equal(mail!.headers['x-gitlab-pipeline-id'], String(broken.id))
    assert.equal(mail!.headers['x-gitlab-pipeline-status'], 'failed')
    assert.match(mail!.text, /Your pipeline has failed\./)
    await until(() => hooksOf('Pipeline Hook').some((r) => r.body.object_attributes.id === broken.id && r.body.object_attributes.status === 'failed'), 'the failed pipeline\'s hook', 30_000)
    assert.equal(mailsOf('master').length, 0)
    assert.equal(pipelineHooks().length, 3)
    assert.equal(jobHooks().length, 4)
  })
})

/** until(), but checking every 100 ms: each check here is a request, and the machine's CPUs are shared. */
function poll(condition: () => Promise<boolean>, what: string, timeoutMs?: number): Promise<void> {
  return until(async () => await condition() || (await delay(100), false), what, timeoutMs)
}

/** The value (right-hand) text of an SVG badge. */
function badgeValue(svg: string): string | undefined {
  const texts = [...svg.matchAll(/<text[^>]*>\s*([^<]*?)\s*<\/text>/g)].map((match) => match[1])
  return texts[3]
}

interface Gate {
  /** A shell command that returns once the gate is open (bash's /dev/tcp; jobs share the host's network). */
  waitCommand: string
  open(): void
  close(): Promise<void>
}

/** A TCP server on 127.0.0.1 that tells each connection `wait` until opened, then `open`. */
async function startGate(): Promise<Gate> {
  let opened = false
  const server = net.createServer((socket) => socket.end(opened ? 'open\n' : 'wait\n'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    waitCommand: `until [ "$(cat < /dev/tcp/127.0.0.1/${port})" = open ]; do sleep 0.2; done`,
    open() { opened = true },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
