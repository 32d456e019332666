// The built-in runner end to end: a real Ingot on a socket, a real `ingot runner` process
// (the `ingot` command) registered with the instance's registration token, and CI files pushed
// with git over HTTP. The jobs really run, in the bubblewrap sandbox: traces, artifacts passed
// between stages, a cache kept between pipelines, a failing script, cancel, timeout and retry,
// each seen from the API as a user sees it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import path from 'node:path'
import yauzl from 'yauzl'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { until } from '../helpers/jobs.js'
import { projectFullPath } from '../helpers/projects.js'
import { startRunnerProcess, type RunnerProcess } from '../helpers/runner-process.js'
import { runDueSchedules } from '../../src/services/ci/pipeline-schedules.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { ingotMain } from '../helpers/ingot-command.js'

const FINISHED = ['success', 'failed', 'canceled', 'skipped']

describe('ingot runner end to end', () => {
  let t: TestApp
  let client: GitClient
  let owner: TestUser
  let runnerDir: string
  let runner: RunnerProcess
  let counter = 0

  before(async () => {
    t = await buildTestApp()
    client = await startGitClient(t)
    await t.ctx.jobs.start()
    owner = await makeUser(t)
    runner = await startRunnerProcess(t, client, { RUNNER_ONLY_SECRET: 'the runner process has this, jobs must not' })
    runnerDir = runner.dir
  })

  after(async () => {
    assert.equal(await runner.stop(), 0, runner.log())
    await client.close()
    await t.close()
  })

  /** A new project of `owner` with `files` pushed to master over HTTP; the pushed commit. */
  async function pushProject(files: Record<string, string>, input: Parameters<typeof makeProject>[2] = {}): Promise<{ project: ProjectRow; sha: string; dir: string }> {
    const project = await makeProject(t, owner, input)
    const dir = path.join(client.dir, `work${(counter += 1)}`)
    await client.ok(['clone', '-q', client.url(await projectFullPath(t, project), { username: owner.user.username, password: owner.token }), dir])
    return { project, dir, sha: await pushCommit(dir, files) }
  }

  async function pushCommit(dir: string, files: Record<string, string>): Promise<string> {
    for (const [name, content] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true })
      await fs.writeFile(path.join(dir, name), content)
    }
    await client.ok(['add', ...Object.keys(files)], { cwd: dir })
    await client.ok(['commit', '-q', '-m', `Change ${Object.keys(files).join(', ')}`], { cwd: dir })
    await client.ok(['push', '-q', 'origin', 'HEAD:master'], { cwd: dir })
    return (await client.ok(['rev-parse', 'HEAD'], { cwd: dir })).trim()
  }

  async function pipelineOf(project: ProjectRow, sha: string, ref?: string): Promise<{ id: number; status: string } | null> {
    const res = await t.api('GET', `/projects/${project.id}/pipelines`, { token: owner.token, query: { sha, ...(ref === undefined ? {} : { ref }) } })
    assert.equal(res.status, 200, res.text)
    return res.body[0] ?? null
  }

  /** The pipeline of `sha` once it has finished. */
  async function finishedPipeline(project: ProjectRow, sha: string, timeoutMs = 60_000, ref?: string): Promise<{ id: number; status: string }> {
    let pipeline: { id: number; status: string } | null = null
    await until(async () => {
      pipeline = await pipelineOf(project, sha, ref)
      return pipeline !== null && FINISHED.includes(pipeline.status)
    }, `the pipeline of ${sha} finished`, timeoutMs)
    return pipeline!
  }

  async function jobsOf(project: ProjectRow, pipelineId: number): Promise<{ id: number; name: string; status: string; stage: string; failure_reason?: string }[]> {
    const res = await t.api('GET', `/projects/${project.id}/pipelines/${pipelineId}/jobs`, { token: owner.token, query: { per_page: 100 } })
    assert.equal(res.status, 200, res.text)
    return (res.body as { id: number; name: string; status: string; stage: string }[]).sort((a, b) => a.id - b.id)
  }

  async function traceOf(project: ProjectRow, jobId: number): Promise<string> {
    const res = await t.api('GET', `/projects/${project.id}/jobs/${jobId}/trace`, { token: owner.token })
    assert.equal(res.status, 200, res.text)
    return res.text
  }

  async function failureReason(jobId: number): Promise<string | null> {
    return (await t.ctx.db.selectFrom('ci_builds').select('failure_reason').where('id', '=', jobId).executeTakeFirstOrThrow()).failure_reason
  }

  it('registered as an instance runner and keeps its token to itself', async () => {
    const saved = path.join(runnerDir, 'runner.json')
    assert.equal((await fs.stat(saved)).mode & 0o777, 0o600)
    const { id } = JSON.parse(await fs.readFile(saved, 'utf8')) as { id: number }
    const row = await t.ctx.db.selectFrom('ci_runners').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    assert.equal(row.runner_type, 'instance_type')
  })

  it('keeps a second runner process out of its directory', async () => {
    const second = spawn(process.execPath, [ingotMain(), 'runner'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', INGOT_RUNNER_URL: client.baseUrl, INGOT_RUNNER_DIR: runnerDir, INGOT_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    second.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString() })
    const code = await new Promise<number | null>((resolve) => second.once('exit', resolve))
    assert.equal(code, 78, output)
    assert.match(output, /another runner process uses/)
  })

  it('runs a pushed CI file: the pipeline succeeds and the trace has the output, in a sandbox with the job\'s variables only', async () => {
    const { project, sha } = await pushProject({
      'hello.txt': 'hello from the repository\n',
      '.gitlab-ci.yml': [
        'image: ruby:2.5',
        'variables: { GREETING: "hi there" }',
        'before_script: [ "echo before" ]',
        'hello:',
        '  script:',
        '    - cat hello.txt',
        '    - echo "$GREETING from $CI_JOB_NAME in $CI_PROJECT_DIR"',
        '    - echo "server=$CI_SERVER sha=$CI_COMMIT_SHA"',
        '    - echo "secret=[${RUNNER_ONLY_SECRET:-}] registration=[${INGOT_RUNNER_REGISTRATION_TOKEN:-}]"',
        `    - ls ${runnerDir} || echo "no runner directory"`,
        '  after_script: [ "echo cleaning up" ]',
      ].join('\n'),
    })
    const pipeline = await finishedPipeline(project, sha)
    const [job] = await jobsOf(project, pipeline.id)
    const trace = await traceOf(project, job!.id)
    assert.equal(pipeline.status, 'success', trace)
    assert.equal(job!.status, 'success')
    assert.match(trace, /\$ cat hello\.txt/)
    assert.match(trace, /^hello from the repository$/m)
    assert.match(trace, /^hi there from hello in \/builds\/[^ ]+$/m)
    assert.match(trace, new RegExp(`^server=yes sha=${sha}$`, 'm'))
    assert.match(trace, /^secret=\[\] registration=\[\]$/m)
    assert.match(trace, /^no runner directory$/m)
    assert.match(trace, /^before$/m)
    assert.match(trace, /^cleaning up$/m)
    assert.match(trace, /image ruby:2\.5 ignored/)
    assert.match(trace, /bubblewrap sandbox/)
    assert.match(trace, /Job succeeded/)
    // The runner logs the job's end once its final update has been answered: maybe just after the pipeline ended.
    await until(() => new RegExp(`"job":${job!.id}.*"msg":"job finished"`).test(runner.log()), 'the runner logged the job finished')
    // The work directory is gone with the job.
    await until(async () => (await fs.readdir(path.join(runnerDir, 'builds'))).length === 0, 'the work directory removed')
  })

  it('passes artifacts to the next stage (dependencies) and keeps them for download', async () => {
    const { project, sha } = await pushProject({
      '.gitlab-ci.yml': [
        'stages: [build, test]',
        'build:',
        '  stage: build',
        '  script: [ "mkdir -p out/deep", "echo built-$CI_JOB_ID > out/result.txt", "echo deeper > out/deep/file.txt", "echo nope > ignored.txt", "echo \'<testsuite/>\' > out/junit.xml" ]',
        '  artifacts: { paths: [ "out/" ], expire_in: "1 week", reports: { junit: "out/junit.xml" } }',
        'test:',
        '  stage: test',
        '  script: [ "cat out/result.txt out/deep/file.txt", "test ! -e ignored.txt" ]',
      ].join('\n'),
    })
    const pipeline = await finishedPipeline(project, sha)
    const [build, test] = await jobsOf(project, pipeline.id)
    assert.equal(pipeline.status, 'success', await traceOf(project, test!.id))
    const trace = await traceOf(project, test!.id)
    assert.match(trace, new RegExp(`^built-${build!.id}$`, 'm'))
    assert.match(trace, /^deeper$/m)
    const download = await t.app.inject({ url: `/api/v4/projects/${project.id}/jobs/${build!.id}/artifacts`, headers: { 'private-token': owner.token } })
    assert.equal(download.statusCode, 200)
    assert.deepEqual(await zipNames(download.rawPayload), ['out/', 'out/deep/', 'out/deep/file.txt', 'out/junit.xml', 'out/result.txt'])
    // The junit report went up too, as one gzip member per file, as the original runner sends it.
    const shown = await t.app.inject({ url: `/api/v4/projects/${project.id}/jobs/${build!.id}`, headers: { 'private-token': owner.token } })
    const junit = (shown.json().artifacts as { file_type: string; file_format: string; size: number }[]).find((artifact) => artifact.file_type === 'junit')
    assert.equal(junit?.file_format, 'gzip')
    const report = await t.ctx.db.selectFrom('ci_job_artifacts').select('blob_key').where('job_id', '=', build!.id).where('file_type', '=', 'junit').executeTakeFirstOrThrow()
    const stored = await t.ctx.blobs.get(report.blob_key)
    const parts: Buffer[] = []
    for await (const part of stored!) parts.push(part as Buffer)
    assert.equal(gunzipSync(Buffer.concat(parts)).toString(), '<testsuite/>\n')
  })

  it('keeps the cache between pipelines', async () => {
    const ciFile = [
      'counter:',
      '  cache: { key: "$CI_COMMIT_REF_SLUG", paths: [ "cache/" ] }',
      '  script: [ "mkdir -p cache", "n=$(cat cache/count 2>/dev/null || echo 0)", "echo count=$n", "echo $((n + 1)) > cache/count" ]',
    ].join('\n')
    const { project, sha, dir } = await pushProject({ '.gitlab-ci.yml': ciFile })
    const first = await finishedPipeline(project, sha)
    assert.equal(first.status, 'success')
    assert.match(await traceOf(project, (await jobsOf(project, first.id))[0]!.id), /^count=0$/m)
    const secondSha = await pushCommit(dir, { 'other.txt': 'a change' })
    const second = await finishedPipeline(project, secondSha)
    assert.equal(second.status, 'success')
    assert.match(await traceOf(project, (await jobsOf(project, second.id))[0]!.id), /^count=1$/m)
  })

  it('fails a job whose script fails, with script_failure, and uploads its on_failure artifacts', async () => {
    const { project, sha } = await pushProject({
      '.gitlab-ci.yml': [
        'broken:',
        '  script: [ "echo about to fail > report.txt", "cat report.txt", "exit 7", "echo never" ]',
        '  artifacts: { when: on_failure, paths: [ report.txt ] }',
      ].join('\n'),
    })
    const pipeline = await finishedPipeline(project, sha)
    assert.equal(pipeline.status, 'failed')
    const [job] = await jobsOf(project, pipeline.id)
    assert.equal(job!.status, 'failed')
    assert.equal(await failureReason(job!.id), 'script_failure')
    const trace = await traceOf(project, job!.id)
    assert.match(trace, /^about to fail$/m)
    assert.doesNotMatch(trace, /^never$/m)
    assert.match(trace, /exit code 7/)
    const download = await t.app.inject({ url: `/api/v4/projects/${project.id}/jobs/${job!.id}/artifacts`, headers: { 'private-token': owner.token } })
    assert.equal(download.statusCode, 200)
    assert.deepEqual(await zipNames(download.rawPayload), ['report.txt'])
  })

  it('stops a job canceled while it runs, and is free for the next', async () => {
    const marker = `sleep ${4000 + Math.floor(Math.random() * 1000)}`
    const { project, sha } = await pushProject({ '.gitlab-ci.yml': `long:\n  script: [ "echo started", "${marker}" ]\n` })
    let job: { id: number } | undefined
    await until(async () => {
      const pipeline = await pipelineOf(project, sha)
      if (pipeline === null) return false
      job = (await jobsOf(project, pipeline.id))[0]
      return job !== undefined && /^started$/m.test(await traceOf(project, job.id))
    }, 'the job running')
    const cancel = await t.api('POST', `/projects/${project.id}/jobs/${job!.id}/cancel`, { token: owner.token })
    assert.equal(cancel.status, 201, cancel.text)
    const pipeline = await finishedPipeline(project, sha)
    assert.equal(pipeline.status, 'canceled')
    // The runner hears of it at its next trace append (about a second) and kills the step.
    await until(async () => !(await processRunning(marker)), 'the canceled job\'s processes gone', 10_000)
    await until(async () => (await fs.readdir(path.join(runnerDir, 'builds'))).length === 0, 'the work directory removed')
  })

  it('fails a job that runs past the project\'s timeout with job_execution_timeout', async () => {
    const project = await makeProject(t, owner)
    await t.ctx.db.updateTable('projects').set({ build_timeout: 2 }).where('id', '=', project.id).execute()
    const dir = path.join(client.dir, `work${(counter += 1)}`)
    await client.ok(['clone', '-q', client.url(await projectFullPath(t, project), { username: owner.user.username, password: owner.token }), dir])
    const marker = `sleep ${5000 + Math.floor(Math.random() * 1000)}`
    const sha = await pushCommit(dir, { '.gitlab-ci.yml': `slow:\n  script: [ "echo waiting", "${marker}" ]\n` })
    const started = Date.now()
    const pipeline = await finishedPipeline(project, sha)
    assert.equal(pipeline.status, 'failed')
    assert.ok(Date.now() - started < 20_000)
    const [job] = await jobsOf(project, pipeline.id)
    assert.equal(await failureReason(job!.id), 'job_execution_timeout')
    assert.match(await traceOf(project, job!.id), /execution took longer than 2 seconds/)
    assert.equal(await processRunning(marker), false)
  })

  it('retries a failing job as its retry says', async () => {
    const { project, sha } = await pushProject({ '.gitlab-ci.yml': 'flaky:\n  retry: 1\n  script: [ "echo attempt $CI_JOB_ID", "exit 1" ]\n' })
    await until(async () => {
      const pipeline = await pipelineOf(project, sha)
      return pipeline !== null && FINISHED.includes(pipeline.status) && (await allJobs(project.id)).length === 2
    }, 'the retried pipeline finished')
    const jobs = await allJobs(project.id)
    assert.deepEqual(jobs.map((job) => [job.name, job.status, job.retried]), [['flaky', 'failed', 1], ['flaky', 'failed', 0]])
    for (const job of jobs) assert.match(await traceOf(project, job.id), new RegExp(`^attempt ${job.id}$`, 'm'))
  })

  it('gives jobs the group\'s and project\'s variables, protected ones on protected branches only, masked in the trace', async () => {
    const group = await makeGroup(t, {}, owner)
    // A first push without a CI file: no pipeline yet, and master protected as the default branch.
    const { project, dir } = await pushProject({ 'README.md': 'variables\n' }, { namespace: group })
    const protectedBranches = await t.api('GET', `/projects/${project.id}/protected_branches`, { token: owner.token })
    assert.deepEqual(protectedBranches.body.map((rule: { name: string }) => rule.name), ['master'])
    const secrets = { GROUP_VAR: 'group-value-1234', PROJECT_VAR: 'project-value-5678', DEPLOY_SECRET: 'protected-secret-9999' }
    await t.api('POST', `/groups/${group.id}/variables`, { token: owner.token, body: { key: 'GROUP_VAR', value: secrets.GROUP_VAR } })
    await t.api('POST', `/projects/${project.id}/variables`, { token: owner.token, body: { key: 'PROJECT_VAR', value: secrets.PROJECT_VAR } })
    await t.api('POST', `/projects/${project.id}/variables`, { token: owner.token, body: { key: 'DEPLOY_SECRET', value: secrets.DEPLOY_SECRET, protected: true } })
    // A value naming another variable is masked as the shell has it, expanded.
    await t.api('POST', `/projects/${project.id}/variables`, { token: owner.token, body: { key: 'EXPANDED_VAR', value: 'secret-$CI_JOB_NAME-value' } })
    // Each value echoed (masked) and reversed (which shows it arrived); one written in two parts, a flush apart.
    const sha = await pushCommit(dir, {
      '.gitlab-ci.yml': [
        'show:',
        '  script:',
        '    - echo "group $GROUP_VAR"; echo "$GROUP_VAR" | rev',
        '    - echo "project $PROJECT_VAR"; echo "$PROJECT_VAR" | rev',
        '    - echo "protected ${DEPLOY_SECRET:-unset}"; echo "${DEPLOY_SECRET:-unset}" | rev',
        '    - echo "token $CI_JOB_TOKEN"',
        '    - echo "expanded $EXPANDED_VAR"',
        '    - printf "split %s" "$(echo "$PROJECT_VAR" | cut -c1-7)"; sleep 1.5; echo "$PROJECT_VAR" | cut -c8-',
      ].join('\n'),
    })
    await client.ok(['push', '-q', 'origin', 'HEAD:feature'], { cwd: dir })
    const reversed = (text: string) => [...text].reverse().join('')
    for (const ref of ['master', 'feature']) {
      const pipeline = await finishedPipeline(project, sha, 60_000, ref)
      const [job] = await jobsOf(project, pipeline.id)
      const trace = await traceOf(project, job!.id)
      assert.equal(pipeline.status, 'success', trace)
      assert.match(trace, /^group \[MASKED\]$/m)
      assert.match(trace, new RegExp(`^${reversed(secrets.GROUP_VAR)}$`, 'm'))
      assert.match(trace, /^project \[MASKED\]$/m)
      assert.match(trace, new RegExp(`^${reversed(secrets.PROJECT_VAR)}$`, 'm'))
      assert.match(trace, /^token \[MASKED\]$/m)
      assert.match(trace, /^expanded \[MASKED\]$/m)
      assert.ok(!trace.includes('secret-show-value'))
      assert.match(trace, /^split \[MASKED\]$/m)
      if (ref === 'master') {
        assert.match(trace, /^protected \[MASKED\]$/m)
        assert.match(trace, new RegExp(`^${reversed(secrets.DEPLOY_SECRET)}$`, 'm'))
      } else {
        assert.match(trace, /^protected unset$/m)
      }
      for (const value of Object.values(secrets)) assert.ok(!trace.includes(value), `${value} in the trace of ${ref}`)
    }
  })

  it('runs a triggered and a scheduled pipeline, their jobs given their variables', async () => {
    const { project, sha } = await pushProject({
      '.gitlab-ci.yml': [
        'triggered:',
        '  only: [triggers]',
        '  script: [ \'echo "to=$DEPLOY_TO triggered=$CI_PIPELINE_TRIGGERED source=$CI_PIPELINE_SOURCE"\' ]',
        'scheduled:',
        '  only: [schedules]',
        '  script: [ \'echo "nightly=$NIGHTLY source=$CI_PIPELINE_SOURCE"\' ]',
      ].join('\n'),
    })
    const trigger = await t.api('POST', `/projects/${project.id}/triggers`, { token: owner.token, body: { description: 'e2e' } })
    const triggered = await t.api('POST', `/projects/${project.id}/trigger/pipeline`, {
      token: null, body: { token: trigger.body.token, ref: 'master', variables: { DEPLOY_TO: 'staging' } },
    })
    assert.equal(triggered.status, 201, triggered.text)
    const byTrigger = await finishedPipeline(project, sha)
    const [triggeredJob] = await jobsOf(project, byTrigger.id)
    assert.equal(triggeredJob!.name, 'triggered')
    assert.match(await traceOf(project, triggeredJob!.id), /^to=staging triggered=true source=trigger$/m)

    const schedule = await t.api('POST', `/projects/${project.id}/pipeline_schedules`, {
      token: owner.token, body: { description: 'nightly', ref: 'master', cron: '0 3 * * *' },
    })
    await t.api('POST', `/projects/${project.id}/pipeline_schedules/${schedule.body.id}/variables`, {
      token: owner.token, body: { key: 'NIGHTLY', value: 'yes' },
    })
    await t.ctx.db.updateTable('ci_pipeline_schedules').set({ next_run_at: Date.now() - 1000 }).where('id', '=', schedule.body.id).execute()
    await runDueSchedules(t.ctx, Date.now())
    const bySchedule = await finishedPipeline(project, sha)
    assert.notEqual(bySchedule.id, byTrigger.id)
    const [scheduledJob] = await jobsOf(project, bySchedule.id)
    assert.equal(scheduledJob!.name, 'scheduled')
    assert.match(await traceOf(project, scheduledJob!.id), /^nightly=yes source=schedule$/m)
  })

  async function allJobs(projectId: number) {
    return t.ctx.db.selectFrom('ci_builds').select(['id', 'name', 'status', 'retried']).where('project_id', '=', projectId).orderBy('id').execute()
  }
})

/** Whether a process with `commandLine` runs on this machine (a job's, seen from outside its sandbox). */
async function processRunning(commandLine: string): Promise<boolean> {
  for (const pid of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.split('\0').join(' ').trim() === commandLine) return true
  }
  return false
}

/** The entry names of a zip archive, sorted. */
function zipNames(bytes: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err)
      const names: string[] = []
      zip!.on('entry', (entry: yauzl.Entry) => { names.push(entry.fileName); zip!.readEntry() })
      zip!.on('end', () => resolve(names.sort()))
      zip!.on('error', reject)
      zip!.readEntry()
    })
  })
}
