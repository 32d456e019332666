// The job side of the runner protocol: POST /jobs/request (the job's payload, which runner may take
// which job, 204 with X-GitLab-Last-Update, parallel requests never sharing a job, a held request
// handed a job the moment one becomes pending) and PUT /jobs/:id (the runner's outcome, 403 with
// Job-Status once the job is not running).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeGroup, makeProject } from '../helpers/factories.js'
import { makeRunner, requestJob, updateJob, type TestRunner } from '../helpers/runners.js'
import { MULTIPART_TYPE, multipartBody, rawRequest } from '../helpers/running-jobs.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { cancelJob } from '../../src/services/ci/transitions.js'

const FULL_CI_FILE = `
variables: { GLOBAL_VAR: global }
image: ruby:2.5
services: [postgres, { name: 'redis:5', alias: cache, command: [redis-server] }]
before_script: [echo before]
build:
  stage: build
  script: [make, make install]
  after_script: [echo after]
  variables: { JOB_VAR: job }
  artifacts: { name: out, paths: [out/], expire_in: 1 week, reports: { junit: report.xml } }
  cache: { key: deps, paths: [vendor/] }
lint: { stage: build, script: make lint }
test: { stage: test, script: make test, dependencies: [build] }
`

describe('POST /jobs/request and PUT /jobs/:id', () => {
  let t: TestApp
  let runner: TestRunner

  before(async () => {
    t = await buildTestApp({ env: { INGOT_RUNNER_LONG_POLL_SECONDS: '0' } })
    runner = await makeRunner(t, { maximumTimeout: 1800, description: 'shared one', tags: ['docker'] })
  })
  after(async () => { await t.close() })

  /** A project of root with a CI file, and a pipeline of it on master; the pipeline's id. */
  async function projectWithPipeline(ciFile: string, input: Parameters<typeof makeProject>[2] = {}, variables: { key: string; value: string }[] = []) {
    const project = await makeProject(t, null, input)
    await commitFiles(t, project.id, { '.gitlab-ci.yml': ciFile })
    const pipeline = await createPipeline(project, 'master', variables)
    return { project, pipeline }
  }

  async function createPipeline(project: ProjectRow, ref: string, variables: { key: string; value: string }[] = []): Promise<number> {
    const res = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref, variables } })
    assert.equal(res.status, 201, res.text)
    return res.body.id
  }

  /** Takes every job the runner is given now, so that later tests start from an empty queue. */
  async function drain(taker: TestRunner): Promise<number[]> {
    const taken: number[] = []
    for (let res = await requestJob(t, taker); res.status === 201; res = await requestJob(t, taker)) taken.push(res.body.id)
    return taken
  }

  it('hands the oldest fitting job with the whole payload', async () => {
    const { project, pipeline } = await projectWithPipeline(FULL_CI_FILE, {}, [{ key: 'PIPELINE_VAR', value: 'from-api' }])
    const res = await requestJob(t, runner)
    assert.equal(res.status, 201, res.text)
    const job = res.body
    assert.deepEqual(Object.keys(job).sort(), [
      'allow_git_fetch', 'artifacts', 'cache', 'credentials', 'dependencies', 'features', 'git_info', 'id', 'image', 'job_info',
      'runner_info', 'services', 'steps', 'token', 'variables',
    ])
    const build = await t.ctx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipeline).where('name', '=', 'build').executeTakeFirstOrThrow()
    assert.equal(job.id, build.id)
    assert.equal(build.status, 'running')
    // The pipeline's first take moves the pipeline to running, as every transition would.
    const started = await t.ctx.db.selectFrom('ci_pipelines').select(['status', 'started_at']).where('id', '=', pipeline).executeTakeFirstOrThrow()
    assert.equal(started.status, 'running')
    assert.notEqual(started.started_at, null)
    assert.equal(build.runner_id, runner.row.id)
    assert.equal(build.timeout, 1800)
    assert.equal(job.allow_git_fetch, true)
    assert.deepEqual(job.job_info, { name: 'build', stage: 'build', project_id: project.id, project_name: project.name })
    const fullPath = `root/${project.path}`
    const sha = await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master')
    assert.deepEqual(job.git_info, {
      repo_url: `http://gitlab-ci-token:${job.token}@ingot.test/${fullPath}.git`,
      ref: 'master', sha, before_sha: '0000000000000000000000000000000000000000', ref_type: 'branch',
      refspecs: ['+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*'], depth: 0,
    })
    assert.deepEqual(job.runner_info, { timeout: 1800, runner_session_url: null })
    assert.deepEqual(job.steps, [
      { name: 'script', script: ['echo before', 'make', 'make install'], timeout: 1800, when: 'on_success', allow_failure: false },
      { name: 'after_script', script: ['echo after'], timeout: 1800, when: 'always', allow_failure: true },
    ])
    assert.deepEqual(job.image, { name: 'ruby:2.5', entrypoint: null })
    assert.deepEqual(job.services, [
      { name: 'postgres', entrypoint: null, alias: null, command: null },
      { name: 'redis:5', entrypoint: null, alias: 'cache', command: ['redis-server'] },
    ])
    assert.deepEqual(job.artifacts, [
      { name: 'out', untracked: false, paths: ['out/'], when: 'on_success', expire_in: '1 week', artifact_type: 'archive', artifact_format: 'zip' },
      { name: 'junit.xml.gz', untracked: false, paths: ['report.xml'], when: 'always', expire_in: '1 week', artifact_type: 'junit', artifact_format: 'gzip' },
    ])
    assert.deepEqual(job.cache, [{ key: 'deps', untracked: false, paths: ['vendor/'], policy: 'pull-push' }])
    assert.deepEqual(job.credentials, [])
    assert.deepEqual(job.dependencies, [])
    assert.equal(job.features.trace_sections, true)
    assert.ok(job.features.failure_reasons.includes('script_failure'))

    const variables = new Map<string, { value: string; public: boolean; masked: boolean }>(job.variables.map((v: any) => [v.key, v]))
    assert.ok(job.variables.every((v: any) => Object.keys(v).sort().join() === 'key,masked,public,value' && v.masked === false))
    assert.deepEqual(variables.get('CI_JOB_TOKEN'), { key: 'CI_JOB_TOKEN', value: job.token, public: false, masked: false })
    assert.equal(variables.get('CI_REPOSITORY_URL')?.value, job.git_info.repo_url)
    assert.equal(variables.get('CI_REPOSITORY_URL')?.public, false)
    const expected: Record<string, string> = {
      CI_JOB_ID: String(build.id), CI_JOB_NAME: 'build', CI_JOB_STAGE: 'build', CI_JOB_URL: `http://ingot.test/${fullPath}/-/jobs/${build.id}`,
      CI_PIPELINE_ID: String(pipeline), CI_PIPELINE_URL: `http://ingot.test/${fullPath}/pipelines/${pipeline}`,
      CI_SERVER_NAME: 'GitLab', CI_SERVER_VERSION: '11.5.0', CI_SERVER_URL: 'http://ingot.test', CI_API_V4_URL: 'http://ingot.test/api/v4',
      CI_COMMIT_SHA: sha!, CI_COMMIT_SHORT_SHA: sha!.slice(0, 8), CI_COMMIT_REF_NAME: 'master', CI_COMMIT_BRANCH: 'master',
      CI_PROJECT_ID: String(project.id), CI_PROJECT_PATH: fullPath, CI_PROJECT_URL: `http://ingot.test/${fullPath}`,
      CI_CONFIG_PATH: '.gitlab-ci.yml', CI_PIPELINE_SOURCE: 'api',
      CI_RUNNER_ID: String(runner.row.id), CI_RUNNER_DESCRIPTION: 'shared one', CI_RUNNER_TAGS: 'docker', CI_NODE_TOTAL: '1',
      GITLAB_USER_LOGIN: 'root', GITLAB_USER_ID: String(t.root.user.id),
      GLOBAL_VAR: 'global', JOB_VAR: 'job', PIPELINE_VAR: 'from-api',
    }
    for (const [key, value] of Object.entries(expected)) assert.equal(variables.get(key)?.value, value, key)
    const { iid } = await t.ctx.db.selectFrom('ci_pipelines').select('iid').where('id', '=', pipeline).executeTakeFirstOrThrow()
    assert.equal(variables.get('CI_PIPELINE_IID')?.value, String(iid))
    assert.ok(!variables.has('CI_COMMIT_TAG') && !variables.has('CI_NODE_INDEX'))
    // The original's order: the job's own first, the file's, then the pipeline's, which win in the shell.
    const keys = job.variables.map((v: any) => v.key)
    assert.equal(keys[0], 'CI_PIPELINE_ID')
    assert.ok(keys.indexOf('CI_RUNNER_ID') < keys.indexOf('JOB_VAR'))
    assert.ok(keys.indexOf('JOB_VAR') < keys.indexOf('GITLAB_USER_ID'))
    assert.ok(keys.indexOf('GITLAB_USER_ID') < keys.indexOf('PIPELINE_VAR'))

    // The next stage's job lists the jobs whose artifacts it downloads, with its own token.
    const lint = await requestJob(t, runner)
    assert.equal(lint.body.name ?? lint.body.job_info.name, 'lint')
    assert.equal((await updateJob(t, job.id, job.token, { state: 'success' })).status, 200)
    assert.equal((await updateJob(t, lint.body.id, lint.body.token, { state: 'success' })).status, 200)
    const test = await requestJob(t, runner)
    assert.equal(test.status, 201, test.text)
    assert.equal(test.body.job_info.name, 'test')
    assert.deepEqual(test.body.dependencies, [{ id: build.id, name: 'build', token: test.body.token }])
    assert.deepEqual(test.body.artifacts, null)
    assert.deepEqual(test.body.cache, [])
    assert.equal(test.body.steps.length, 1)
    await updateJob(t, test.body.id, test.body.token, { state: 'success' })
  })

  it('answers 204 with X-GitLab-Last-Update when nothing fits, at once when last_update is still current', async () => {
    await drain(runner)
    const none = await requestJob(t, runner)
    assert.equal(none.status, 204)
    assert.equal(none.text, '')
    const lastUpdate = none.headers['x-gitlab-last-update']
    assert.equal(typeof lastUpdate, 'string')
    const again = await requestJob(t, runner, { last_update: lastUpdate })
    assert.equal(again.status, 204)
    assert.equal(again.headers['x-gitlab-last-update'], lastUpdate)
    // A change of the runner changes it, as the original ticks the queue when a runner is saved.
    const edited = await makeRunner(t)
    const before = (await requestJob(t, edited)).headers['x-gitlab-last-update']
    await t.ctx.db.updateTable('ci_runners').set({ updated_at: Date.now() + 1 }).where('id', '=', edited.row.id).execute()
    assert.notEqual((await requestJob(t, edited, { last_update: before })).headers['x-gitlab-last-update'], before)
    // A job becoming pending changes it.
    await projectWithPipeline('only: { script: x }')
    const changed = await requestJob(t, runner, { last_update: lastUpdate })
    assert.equal(changed.status, 201)
    await updateJob(t, changed.body.id, changed.body.token, { state: 'success' })
  })

  it('authenticates the runner by token or RUNNER-TOKEN; records what it says of itself', async () => {
    assert.equal((await t.api('POST', '/jobs/request', { token: null, body: {} })).status, 400)
    const unknown = await t.api('POST', '/jobs/request', { token: null, body: { token: 'not-a-runner-token' } })
    assert.equal(unknown.status, 403)
    assert.deepEqual(unknown.body, { message: '403 Forbidden' })
    const fresh = await makeRunner(t)
    const byHeader = await t.api('POST', '/jobs/request', { token: null, headers: { 'runner-token': fresh.token }, body: { info: { version: '19.4.0', platform: 'linux' } } })
    assert.equal(byHeader.status, 204)
    const row = await t.ctx.db.selectFrom('ci_runners').selectAll().where('id', '=', fresh.row.id).executeTakeFirstOrThrow()
    assert.equal(row.version, '19.4.0')
    assert.equal(row.platform, 'linux')
    assert.notEqual(row.contacted_at, null)
    assert.equal(row.ip_address, '127.0.0.1')
    // Polls within the minute write nothing.
    await t.api('POST', '/jobs/request', { token: null, headers: { 'runner-token': fresh.token }, body: { info: { version: '19.5.0' } } })
    const unchanged = await t.ctx.db.selectFrom('ci_runners').select(['version', 'contacted_at']).where('id', '=', fresh.row.id).executeTakeFirstOrThrow()
    assert.deepEqual(unchanged, { version: '19.4.0', contacted_at: row.contacted_at })
  })

  it('matches by tags and run_untagged', async () => {
    await drain(runner)
    const { pipeline } = await projectWithPipeline(`
untagged: { script: x }
docker: { script: x, tags: [docker] }
docker_linux: { script: x, tags: [docker, linux] }
`)
    const jobsOf = async () => Object.fromEntries((await t.ctx.db.selectFrom('ci_builds').select(['id', 'name']).where('pipeline_id', '=', pipeline).execute()).map((j) => [j.name, j.id]))
    const jobs = await jobsOf()
    const untaggedOnly = await makeRunner(t)
    const dockerOnly = await makeRunner(t, { tags: ['docker'], runUntagged: false })
    const both = await makeRunner(t, { tags: ['docker', 'linux', 'arm'], runUntagged: false })
    assert.deepEqual(await drain(dockerOnly), [jobs.docker])
    assert.deepEqual(await drain(both), [jobs.docker_linux])
    assert.deepEqual(await drain(untaggedOnly), [jobs.untagged])
  })

  it('gives instance runners jobs of projects with shared runners on, group runners their groups\' and subgroups\', project runners their projects\'', async () => {
    await drain(runner)
    const group = await makeGroup(t)
    const subgroup = await makeGroup(t, { parent: group })
    const inSubgroup = await projectWithPipeline('only: { script: x }', { namespace: subgroup })
    const elsewhere = await projectWithPipeline('only: { script: x }')
    await t.ctx.db.updateTable('projects').set({ shared_runners_enabled: 0 }).where('id', 'in', [inSubgroup.project.id, elsewhere.project.id]).execute()
    assert.equal((await requestJob(t, runner)).status, 204)
    const groupRunner = await makeRunner(t, { type: 'group_type', groupIds: [group.id] })
    const projectRunner = await makeRunner(t, { type: 'project_type', projectIds: [elsewhere.project.id] })
    const subgroupJob = await requestJob(t, groupRunner)
    assert.equal(subgroupJob.status, 201)
    assert.equal(subgroupJob.body.job_info.project_id, inSubgroup.project.id)
    assert.equal((await requestJob(t, groupRunner)).status, 204)
    const projectJob = await requestJob(t, projectRunner)
    assert.equal(projectJob.body.job_info.project_id, elsewhere.project.id)
    assert.equal((await requestJob(t, projectRunner)).status, 204)
  })

  it('gives protected-ref runners jobs of protected refs only, and inactive runners nothing', async () => {
    await drain(runner)
    const { project } = await projectWithPipeline('only: { script: x }')
    const master = await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master')
    await commitFiles(t, project.id, { 'b.txt': 'b' }, { branch: 'feature', parent: master })
    await createPipeline(project, 'feature')
    const inactive = await makeRunner(t, { active: false })
    const paused = await requestJob(t, inactive)
    assert.equal(paused.status, 204)
    assert.equal(typeof paused.headers['x-gitlab-last-update'], 'string')
    const protectedRunner = await makeRunner(t, { protectedOnly: true })
    assert.equal((await requestJob(t, protectedRunner)).status, 204)
    assert.equal((await t.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'master' } })).status, 201)
    const taken = await requestJob(t, protectedRunner)
    assert.equal(taken.status, 201)
    assert.equal(taken.body.git_info.ref, 'master')
    assert.equal((await requestJob(t, protectedRunner)).status, 204)
  })

  it('fails a job with report artifacts for a runner that cannot upload them (runner_unsupported)', async () => {
    await drain(runner)
    const { pipeline } = await projectWithPipeline('reports: { script: x, artifacts: { reports: { junit: r.xml } } }')
    const old = await t.api('POST', '/jobs/request', { token: null, body: { token: runner.token, info: { version: '10.0.0' } } })
    assert.equal(old.status, 204)
    const job = await t.ctx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipeline).executeTakeFirstOrThrow()
    assert.equal(job.status, 'failed')
    assert.equal(job.failure_reason, 'runner_unsupported')
  })

  it('never hands one job to two runners, whatever the requests racing', async () => {
    await drain(runner)
    const { pipeline } = await projectWithPipeline('many: { script: x, parallel: 24 }')
    const runners = await Promise.all([0, 1, 2, 3].map(() => makeRunner(t)))
    const answers = await Promise.all(runners.flatMap((r) => Array.from({ length: 10 }, () => requestJob(t, r))))
    assert.ok(answers.every((res) => [201, 204, 409].includes(res.status)), answers.map((res) => res.status).join())
    const handed = answers.filter((res) => res.status === 201).map((res) => res.body.id as number)
    assert.equal(new Set(handed).size, handed.length, 'a job was handed out twice')
    const rest = await drain(runners[0]!)
    assert.deepEqual([...handed, ...rest].sort((a, b) => a - b),
      (await t.ctx.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', pipeline).orderBy('id').execute()).map((j) => j.id))
    const rows = await t.ctx.db.selectFrom('ci_builds').select(['status', 'token_digest']).where('pipeline_id', '=', pipeline).execute()
    assert.ok(rows.every((row) => row.status === 'running' && row.token_digest !== null))
    assert.equal(new Set(rows.map((row) => row.token_digest)).size, 24)
    const { status } = await t.ctx.db.selectFrom('ci_pipelines').select('status').where('id', '=', pipeline).executeTakeFirstOrThrow()
    assert.equal(status, 'running')
  })

  it('PUT moves the job by the runner\'s state; 403 with Job-Status once it is not running', async () => {
    await drain(runner)
    const { pipeline } = await projectWithPipeline('a: { script: x }\nb: { script: x }\nc: { script: x }\nd: { script: x }')
    const take = async () => (await requestJob(t, runner)).body as { id: number; token: string }
    const [a, b, c, d] = [await take(), await take(), await take(), await take()]
    // Newer runners say `running` at once, and send fields 11.5 does not know.
    const running = await updateJob(t, a.id, a.token, { state: 'running', checksum: 'crc32:1', output: { checksum: 'x', bytesize: 3 } })
    assert.equal(running.status, 200)
    assert.equal((await updateJob(t, a.id, a.token, { state: 'success', exit_code: 0, trace: 'whole trace' })).status, 200)
    assert.equal((await updateJob(t, b.id, b.token, { state: 'failed', failure_reason: 'script_failure' })).status, 200)
    assert.equal((await updateJob(t, c.id, c.token, { state: 'failed', failure_reason: 'image_pull_failure' })).status, 200)
    const rows = Object.fromEntries((await t.ctx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipeline).execute()).map((j) => [j.name, j]))
    assert.deepEqual([rows.a!.status, rows.a!.failure_reason], ['success', null])
    assert.deepEqual([rows.b!.status, rows.b!.failure_reason], ['failed', 'script_failure'])
    assert.deepEqual([rows.c!.status, rows.c!.failure_reason], ['failed', 'unknown_failure'])
    // The token dies with its job: the runner is told the job's status.
    const ended = await updateJob(t, a.id, a.token, { state: 'running' })
    assert.equal(ended.status, 403)
    assert.equal(ended.headers['job-status'], 'success')
    await cancelJob(t.ctx, d.id)
    const canceled = await updateJob(t, d.id, d.token, { state: 'running' })
    assert.equal(canceled.status, 403)
    assert.equal(canceled.headers['job-status'], 'canceled')
    assert.equal((await updateJob(t, d.id, 'wrong-token', { state: 'success' })).status, 403)
    assert.equal((await updateJob(t, 99999999, d.token, { state: 'success' })).status, 404)
  })

  it('PUT\'s trace replaces the trace; dependencies carry their archive, and a job whose dependency lost its artifacts fails missing_dependency_failure', async () => {
    await drain(runner)
    const ciFile = 'build: { stage: build, script: x }\ntest: { stage: test, script: x }\n'
    const { project } = await projectWithPipeline(ciFile)
    const build = (await requestJob(t, runner)).body as { id: number; token: string }
    const archive = Buffer.from('PK\u0005\u0006' + '\u0000'.repeat(18), 'latin1')
    const upload = await rawRequest(t, 'POST', `/jobs/${build.id}/artifacts?artifact_type=archive&artifact_format=zip`,
      { 'job-token': build.token, 'content-type': MULTIPART_TYPE }, multipartBody({ name: 'artifacts.zip', data: archive }))
    assert.equal(upload.status, 201, upload.text)
    assert.equal((await updateJob(t, build.id, build.token, { state: 'success', trace: 'the whole trace\n' })).status, 200)
    const trace = await t.api('GET', `/projects/${project.id}/jobs/${build.id}/trace`)
    assert.equal(trace.text, 'the whole trace\n')

    const test = (await requestJob(t, runner)).body as { id: number; token: string; dependencies: unknown[] }
    assert.deepEqual(test.dependencies, [{ id: build.id, name: 'build', token: test.token, artifacts_file: { filename: 'artifacts.zip', size: archive.length } }])
    // The job's token downloads the archive of its dependency through the API too (JOB-TOKEN), as the job's user.
    const download = await rawRequest(t, 'GET', `/projects/${project.id}/jobs/${build.id}/artifacts`, { 'job-token': test.token })
    assert.equal(download.status, 200)
    assert.deepEqual(download.raw, archive)
    assert.equal((await rawRequest(t, 'GET', `/projects/${project.id}/jobs/${build.id}/artifacts?job_token=${test.token}`, {})).status, 200)
    assert.equal((await rawRequest(t, 'GET', `/projects/${project.id}/jobs/${build.id}/artifacts`, { 'job-token': 'not-a-job-token' })).status, 401)
    // Its pipeline's only: a job of another pipeline is not found for it.
    const other = await projectWithPipeline('build: { script: x }')
    const otherBuild = (await requestJob(t, runner)).body as { id: number; token: string }
    assert.equal((await rawRequest(t, 'GET', `/projects/${other.project.id}/jobs/${otherBuild.id}/artifacts`, { 'job-token': test.token })).status, 404)
    await updateJob(t, otherBuild.id, otherBuild.token, { state: 'success' })
    await updateJob(t, test.id, test.token, { state: 'success' })
    assert.equal((await rawRequest(t, 'GET', `/projects/${project.id}/jobs/${build.id}/artifacts`, { 'job-token': test.token })).status, 401,
      'the token dies with its job')

    // Erased artifacts: the next pipeline's test job cannot have them.
    const second = await createPipeline(project, 'master')
    const build2 = (await requestJob(t, runner)).body as { id: number; token: string }
    await updateJob(t, build2.id, build2.token, { state: 'success', trace: 'built\n' })
    assert.equal((await t.api('POST', `/projects/${project.id}/jobs/${build2.id}/erase`)).status, 201)
    assert.equal((await requestJob(t, runner)).status, 204)
    const test2 = await t.ctx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', second).where('name', '=', 'test').executeTakeFirstOrThrow()
    assert.deepEqual([test2.status, test2.failure_reason], ['failed', 'missing_dependency_failure'])
  })
})

describe('POST /jobs/request held open (long polling)', () => {
  let t: TestApp

  before(async () => { t = await buildTestApp({ env: { INGOT_RUNNER_LONG_POLL_SECONDS: '5' } }) })
  after(async () => { await t.close() })

  it('hands a job made pending while the request waits, at once', async () => {
    const runner = await makeRunner(t)
    const project = await makeProject(t, null)
    await commitFiles(t, project.id, { '.gitlab-ci.yml': 'wait: { script: x }' })
    const started = Date.now()
    const held = requestJob(t, runner)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal((await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'master' } })).status, 201)
    const res = await held
    assert.equal(res.status, 201, res.text)
    assert.equal(res.body.job_info.name, 'wait')
    const waited = Date.now() - started
    assert.ok(waited >= 300 && waited < 2000, `answered after ${waited} ms`)
  })

  it('finds a job another process made pending within a second', async () => {
    const runner = await makeRunner(t)
    const project = await makeProject(t, null)
    await commitFiles(t, project.id, { '.gitlab-ci.yml': 'elsewhere: { script: x }' })
    assert.equal((await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'master' } })).status, 201)
    const job = await t.ctx.db.selectFrom('ci_builds').select('id').where('project_id', '=', project.id).executeTakeFirstOrThrow()
    // Hidden from the runner, then shown by a write this process's signal does not hear.
    await t.ctx.db.updateTable('projects').set({ jobs_enabled: 0 }).where('id', '=', project.id).execute()
    const held = requestJob(t, runner)
    await new Promise((resolve) => setTimeout(resolve, 200))
    await t.ctx.db.updateTable('projects').set({ jobs_enabled: 1 }).where('id', '=', project.id).execute()
    await t.ctx.db.updateTable('ci_builds').set({ queued_at: Date.now() }).where('id', '=', job.id).execute()
    const started = Date.now()
    const res = await held
    assert.equal(res.status, 201, res.text)
    assert.ok(Date.now() - started < 2000)
  })

  it('answers 204 at the end of the hold, and at once when the app closes', async () => {
    const other = await buildTestApp({ env: { INGOT_RUNNER_LONG_POLL_SECONDS: '30' } })
    const runner = await makeRunner(other)
    const started = Date.now()
    const held = requestJob(other, runner)
    await new Promise((resolve) => setTimeout(resolve, 500))
    // (A server waits for its requests as it closes; injected ones are waited for here.)
    const closing = other.app.close()
    const res = await held
    await closing
    await other.close()
    assert.equal(res.status, 204)
    assert.ok(Date.now() - started < 5000)
  })
})
