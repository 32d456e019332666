// Pipelines from CI files (which file, which jobs for which ref and source, what a file that does
// not read makes) and the status machine driven as the runner protocol will drive it: startJob
// and finishJob move stages in order, `when` and `allow_failure` decide what runs and what the
// pipeline's status is, retries and cancels, and jobs of one stage finishing at once.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { CiPipelineRow, ProjectRow } from '../../src/db/schema.js'
import { compositeStatus } from '../../src/services/ci/status.js'
import { deleteProject } from '../../src/services/projects/delete-project.js'
import { createPipeline, MISSING_CI_CONFIG, NO_JOBS, type CreatePipelineInput } from '../../src/services/ci/create-pipeline.js'
import {
  cancelJob, cancelPipeline, finishJob, playJob, retryJob, retryPipeline, startJob,
} from '../../src/services/ci/transitions.js'

describe('CI pipelines', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  type PipelineOptions = Partial<Pick<CreatePipelineInput, 'source' | 'tag' | 'ref' | 'changedPaths' | 'saveOnConfigError'>> & {
    project?: ProjectRow
  }

  /** A project whose master holds `files`, and the pipeline (or error) of its tip. */
  async function pipelineOf(files: Record<string, string>, options: PipelineOptions = {}) {
    const project = options.project ?? await makeProject(t, null)
    const sha = await commitFiles(t, project.id, files)
    const namespace = await t.ctx.db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
    const result = await createPipeline(t.ctx, {
      project, namespace, userId: t.root.user.id, source: options.source ?? 'push', ref: options.ref ?? 'master',
      tag: options.tag ?? false, sha, beforeSha: null, saveOnConfigError: options.saveOnConfigError ?? true,
      ...(options.changedPaths === undefined ? {} : { changedPaths: options.changedPaths }),
    })
    return { project, sha, result }
  }

  async function createdPipeline(ciFile: string, options: PipelineOptions = {}): Promise<CiPipelineRow> {
    const { result } = await pipelineOf({ '.gitlab-ci.yml': ciFile }, options)
    assert.ok(result.ok, result.ok ? '' : result.errors.join())
    return result.pipeline
  }

  async function statuses(pipelineId: number): Promise<Record<string, string>> {
    const jobs = await t.ctx.db.selectFrom('ci_builds').select(['name', 'status'])
      .where('pipeline_id', '=', pipelineId).where('retried', '=', 0).orderBy('id').execute()
    return Object.fromEntries(jobs.map((job) => [job.name, job.status]))
  }

  async function pipelineStatus(pipelineId: number): Promise<string> {
    return (await t.ctx.db.selectFrom('ci_pipelines').select('status').where('id', '=', pipelineId).executeTakeFirstOrThrow()).status
  }

  async function jobId(pipelineId: number, name: string): Promise<number> {
    return (await t.ctx.db.selectFrom('ci_builds').select('id')
      .where('pipeline_id', '=', pipelineId).where('name', '=', name).where('retried', '=', 0).executeTakeFirstOrThrow()).id
  }

  async function run(pipelineId: number, name: string, outcome: 'success' | 'failed'): Promise<void> {
    const id = await jobId(pipelineId, name)
    assert.ok(await startJob(t.ctx, id), `${name} starts`)
    assert.ok(await finishJob(t.ctx, id, outcome), `${name} finishes`)
  }

  const THREE_STAGES = `
build: { stage: build, script: make }
test: { stage: test, script: make test }
lint: { stage: test, script: make lint }
deploy: { stage: deploy, script: make deploy }
`

  describe('creation', () => {
    const cases: { name: string; files: Record<string, string>; options?: PipelineOptions; jobs?: Record<string, string>; error?: string }[] = [
      { name: 'the first stage pending, later ones created', files: { '.gitlab-ci.yml': THREE_STAGES },
        jobs: { build: 'pending', test: 'created', lint: 'created', deploy: 'created' } },
      { name: '.service-ci.yml before .gitlab-ci.yml', files: { '.service-ci.yml': 'a: { script: x }', '.gitlab-ci.yml': 'b: { script: x }' },
        jobs: { a: 'pending' } },
      { name: 'no CI file: no pipeline', files: { 'README.md': 'hi' }, error: MISSING_CI_CONFIG },
      { name: 'only tags on a branch: no jobs, no pipeline', files: { '.gitlab-ci.yml': 'a: { script: x, only: [tags] }' }, error: NO_JOBS },
      { name: 'only tags on a tag', files: { '.gitlab-ci.yml': 'a: { script: x, only: [tags] }\nb: { script: x, except: [tags] }' },
        options: { tag: true, ref: 'v1' }, jobs: { a: 'pending' } },
      { name: 'sources: web only', files: { '.gitlab-ci.yml': 'a: { script: x, only: [web] }\nb: { script: x, only: [pushes] }' },
        options: { source: 'web' }, jobs: { a: 'pending' } },
      { name: 'changes of a push to an existing branch', files: { '.gitlab-ci.yml': 'docs: { script: x, only: { changes: ["docs/*"] } }\nall: { script: x }' },
        options: { changedPaths: ['src/a.ts'] }, jobs: { all: 'pending' } },
      { name: 'a local include read from the same commit', files: { '.gitlab-ci.yml': 'include: /ci/more.yml\na: { script: x }', 'ci/more.yml': 'b: { script: y }' },
        jobs: { b: 'pending', a: 'pending' } },
      { name: 'variables expressions see the ref', files: { '.gitlab-ci.yml': 'a: { script: x, only: { variables: ["$CI_COMMIT_REF_NAME == \\"master\\""] } }\nb: { script: x, only: { variables: ["$CI_COMMIT_REF_NAME == \\"other\\""] } }' },
        jobs: { a: 'pending' } },
      { name: 'manual and delayed first jobs', files: { '.gitlab-ci.yml': 'a: { script: x, when: manual }\nb: { script: x, when: delayed, start_in: 1 hour }\nc: { script: x, when: on_failure }' },
        jobs: { a: 'manual', b: 'scheduled', c: 'skipped' } },
      { name: 'parallel instances', files: { '.gitlab-ci.yml': 'rspec: { script: x, parallel: 2 }' }, jobs: { 'rspec 1/2': 'pending', 'rspec 2/2': 'pending' } },
    ]
    for (const c of cases) {
      it(c.name, async () => {
        const { result } = await pipelineOf(c.files, c.options)
        if (c.error !== undefined) {
          assert.deepEqual(result, { ok: false, errors: [c.error] })
          return
        }
        assert.ok(result.ok, result.ok ? '' : result.errors.join())
        assert.deepEqual(await statuses(result.pipeline.id), c.jobs)
      })
    }

    it('the project\'s ci_config_path wins', async () => {
      const project = await makeProject(t, null, { ci_config_path: 'ci/pipeline.yml' })
      const { result } = await pipelineOf({ 'ci/pipeline.yml': 'mine: { script: x }', '.gitlab-ci.yml': 'other: { script: x }' }, { project })
      assert.ok(result.ok)
      assert.deepEqual(await statuses(result.pipeline.id), { mine: 'pending' })
    })

    it('an invalid file is a failed pipeline with yaml_errors, or only the error when not saved', async () => {
      const { result } = await pipelineOf({ '.gitlab-ci.yml': 'a: { stage: nope, script: x }' })
      assert.ok(result.ok)
      assert.equal(result.pipeline.status, 'failed')
      assert.equal(result.pipeline.failure_reason, 'config_error')
      assert.match(result.pipeline.yaml_errors ?? '', /a job: stage parameter should be build, test, deploy/)
      assert.ok(result.pipeline.finished_at !== null)
      const unsaved = await pipelineOf({ '.gitlab-ci.yml': 'a: { script: 1 }' }, { saveOnConfigError: false })
      assert.equal(unsaved.result.ok, false)
    })

    it('goes with its project', async () => {
      const { project, result } = await pipelineOf({ '.gitlab-ci.yml': THREE_STAGES }, {})
      assert.ok(result.ok)
      await deleteProject(t.ctx, project)
      assert.equal((await t.ctx.db.selectFrom('ci_pipelines').select('id').where('project_id', '=', project.id).execute()).length, 0)
      assert.equal((await t.ctx.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', result.pipeline.id).execute()).length, 0)
    })

    it('a delayed job is enqueued for when it is due, and then pending', async () => {
      const pipeline = await createdPipeline('a: { script: x, when: delayed, start_in: 1 second }')
      const id = await jobId(pipeline.id, 'a')
      const job = await t.ctx.db.selectFrom('ci_builds').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
      assert.ok(job.scheduled_at !== null && job.scheduled_at >= job.created_at + 1000)
      assert.equal(await pipelineStatus(pipeline.id), 'scheduled')
      await t.ctx.jobs.runDue(job.scheduled_at + 1)
      assert.deepEqual(await statuses(pipeline.id), { a: 'pending' })
      assert.equal(await pipelineStatus(pipeline.id), 'pending')
    })
  })

  describe('the status machine', () => {
    it('runs stages in order and succeeds', async () => {
      const pipeline = await createdPipeline(THREE_STAGES)
      assert.equal(await pipelineStatus(pipeline.id), 'pending')
      const buildId = await jobId(pipeline.id, 'build')
      await startJob(t.ctx, buildId)
      assert.equal(await pipelineStatus(pipeline.id), 'running')
      await finishJob(t.ctx, buildId, 'success')
      assert.deepEqual(await statuses(pipeline.id), { build: 'success', test: 'pending', lint: 'pending', deploy: 'created' })
      await run(pipeline.id, 'test', 'success')
      assert.equal((await statuses(pipeline.id)).deploy, 'created')
      await run(pipeline.id, 'lint', 'success')
      await run(pipeline.id, 'deploy', 'success')
      const done = await t.ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipeline.id).executeTakeFirstOrThrow()
      assert.equal(done.status, 'success')
      assert.ok(done.started_at !== null && done.finished_at !== null && done.duration !== null)
    })

    it('a failure skips later on_success jobs and runs on_failure and always ones', async () => {
      const pipeline = await createdPipeline(`
build: { stage: build, script: x }
deploy: { stage: deploy, script: x }
cleanup: { stage: deploy, script: x, when: always }
report: { stage: deploy, script: x, when: on_failure }
`)
      await run(pipeline.id, 'build', 'failed')
      assert.deepEqual(await statuses(pipeline.id), { build: 'failed', deploy: 'skipped', cleanup: 'pending', report: 'pending' })
      await run(pipeline.id, 'cleanup', 'success')
      await run(pipeline.id, 'report', 'success')
      assert.equal(await pipelineStatus(pipeline.id), 'failed')
    })

    it('an allowed failure lets later stages run and the pipeline succeed (with warnings)', async () => {
      const pipeline = await createdPipeline('a: { stage: build, script: x, allow_failure: true }\nb: { stage: test, script: x }')
      await run(pipeline.id, 'a', 'failed')
      assert.equal((await statuses(pipeline.id)).b, 'pending')
      await run(pipeline.id, 'b', 'success')
      assert.equal(await pipelineStatus(pipeline.id), 'success')
    })

    it('a manual-only stage does not hold later stages; a blocking manual job does', async () => {
      const optional = await createdPipeline('a: { stage: build, script: x, when: manual }\nb: { stage: test, script: x }')
      assert.deepEqual(await statuses(optional.id), { a: 'manual', b: 'pending' })
      const blocking = await createdPipeline('a: { stage: build, script: x, when: manual, allow_failure: false }\nb: { stage: test, script: x }')
      assert.deepEqual(await statuses(blocking.id), { a: 'manual', b: 'created' })
      assert.equal(await pipelineStatus(blocking.id), 'manual')
      const played = await playJob(t.ctx, await jobId(blocking.id, 'a'), t.root.user.id)
      assert.ok('played' in played && played.played.status === 'pending')
      await run(blocking.id, 'a', 'success')
      assert.equal((await statuses(blocking.id)).b, 'pending')
      assert.deepEqual(await playJob(t.ctx, await jobId(blocking.id, 'b'), t.root.user.id), { refused: 'unplayable' })
    })

    it('a retried job replaces the old one and lets skipped stages run again', async () => {
      const pipeline = await createdPipeline('a: { stage: build, script: x }\nb: { stage: test, script: x }')
      await run(pipeline.id, 'a', 'failed')
      assert.deepEqual(await statuses(pipeline.id), { a: 'failed', b: 'skipped' })
      assert.equal(await pipelineStatus(pipeline.id), 'failed')
      const oldId = await jobId(pipeline.id, 'a')
      const outcome = await retryJob(t.ctx, oldId, t.root.user.id)
      assert.ok('retried' in outcome)
      assert.notEqual(outcome.retried.id, oldId)
      assert.deepEqual(await statuses(pipeline.id), { b: 'created', a: 'pending' })
      assert.equal(await pipelineStatus(pipeline.id), 'pending')
      await run(pipeline.id, 'a', 'success')
      await run(pipeline.id, 'b', 'success')
      assert.equal(await pipelineStatus(pipeline.id), 'success')
      assert.deepEqual(await retryJob(t.ctx, oldId, t.root.user.id), { refused: 'not_retryable' })
    })

    it('retry: 2 retries a failure twice by itself', async () => {
      const pipeline = await createdPipeline('a: { script: x, retry: 2 }')
      await run(pipeline.id, 'a', 'failed')
      await run(pipeline.id, 'a', 'failed')
      assert.deepEqual(await statuses(pipeline.id), { a: 'pending' })
      await run(pipeline.id, 'a', 'failed')
      assert.deepEqual(await statuses(pipeline.id), { a: 'failed' })
      assert.equal(await pipelineStatus(pipeline.id), 'failed')
    })

    it('cancels a job and a pipeline; retrying the pipeline runs the canceled jobs again', async () => {
      const pipeline = await createdPipeline(THREE_STAGES)
      const canceled = await cancelJob(t.ctx, await jobId(pipeline.id, 'build'))
      assert.equal(canceled?.status, 'canceled')
      assert.deepEqual(await statuses(pipeline.id), { build: 'canceled', test: 'skipped', lint: 'skipped', deploy: 'skipped' })
      assert.equal(await pipelineStatus(pipeline.id), 'canceled')
      await retryPipeline(t.ctx, pipeline, t.root.user.id)
      assert.deepEqual(await statuses(pipeline.id), { test: 'created', lint: 'created', deploy: 'created', build: 'pending' })
      await run(pipeline.id, 'build', 'success')
      await startJob(t.ctx, await jobId(pipeline.id, 'test'))
      await cancelPipeline(t.ctx, pipeline)
      assert.deepEqual(await statuses(pipeline.id), { test: 'canceled', lint: 'canceled', deploy: 'canceled', build: 'success' })
      assert.equal(await pipelineStatus(pipeline.id), 'canceled')
      assert.equal(await finishJob(t.ctx, await jobId(pipeline.id, 'test'), 'success'), null, 'a canceled job cannot finish')
    })

    it('two jobs of a stage finishing at once leave the next stage pending', async () => {
      for (let round = 0; round < 5; round++) {
        const pipeline = await createdPipeline('a: { stage: build, script: x }\nb: { stage: build, script: x }\nc: { stage: test, script: x }')
        const [a, b] = [await jobId(pipeline.id, 'a'), await jobId(pipeline.id, 'b')]
        await Promise.all([startJob(t.ctx, a), startJob(t.ctx, b)])
        await Promise.all([finishJob(t.ctx, a, 'success'), finishJob(t.ctx, b, 'success')])
        assert.deepEqual(await statuses(pipeline.id), { a: 'success', b: 'success', c: 'pending' })
        assert.equal(await pipelineStatus(pipeline.id), 'running')
      }
    })
  })

  describe('composite status', () => {
    const job = (status: string, allowFailure = 0) => ({ status: status as never, allow_failure: allowFailure as 0 | 1 })
    const cases: [string, ReturnType<typeof job>[], string | null][] = [
      ['no jobs', [], null],
      ['all skipped', [job('skipped')], 'skipped'],
      ['skipped with an allowed failure', [job('skipped'), job('failed', 1)], 'success'],
      ['success and skipped', [job('success'), job('skipped')], 'success'],
      ['success and canceled', [job('success'), job('canceled')], 'canceled'],
      ['created and pending', [job('created'), job('pending')], 'pending'],
      ['success and pending', [job('success'), job('pending')], 'running'],
      ['success and blocking manual', [job('success'), job('manual')], 'manual'],
      ['success and optional manual', [job('success'), job('manual', 1)], 'success'],
      ['success and scheduled', [job('success'), job('scheduled')], 'scheduled'],
      ['success and created', [job('success'), job('created')], 'running'],
      ['failed', [job('success'), job('failed')], 'failed'],
    ]
    for (const [name, jobs, expected] of cases) it(name, () => assert.equal(compositeStatus(jobs), expected))
  })
})
