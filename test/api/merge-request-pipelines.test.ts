// CI in the merge flow: a merge request's head pipeline (`pipeline` on the single form only), GET
// …/pipelines, merge when pipeline succeeds end to end (jobs finished by the test, the merge job run
// from the queue: merged as who set it with their options, not merged after a failure, turned off
// by a push and by POST …/cancel_merge_when_pipeline_succeeds), only_allow_merge_if_pipeline_succeeds,
// and who may do each. On SQLite, and on PostgreSQL when INGOT_TEST_DATABASE_URL is set.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { newPipeline } from '../helpers/running-jobs.js'
import { projectFullPath } from '../helpers/projects.js'
import { expectPaginates } from '../shared/pagination.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { finishJob } from '../../src/services/ci/transitions.js'

const CI_FILE = 'test: { script: make test }\n'

describe('merge requests and their pipelines', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let reporter: TestUser
  let stranger: TestUser

  const headOf = (projectId: number, branch: string) => t.ctx.repositories.open(projectId).resolveCommit(`refs/heads/${branch}`)
  const rowOf = (projectId: number, iid: number) => t.ctx.db.selectFrom('merge_requests').selectAll()
    .where('target_project_id', '=', projectId).where('iid', '=', iid).executeTakeFirstOrThrow()
  const notesOf = async (mergeRequestId: number) => (await t.ctx.db.selectFrom('notes').select('body')
    .where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', mergeRequestId).orderBy('id').execute()).map((n) => n.body)
  const runQueuedJobs = () => t.ctx.jobs.runDue(Date.now() + 5_000)

  /** A private project (owner's; developer and reporter members) with CI on master and a feature branch. */
  async function projectWithFeature() {
    const project = await makeProject(t, owner)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    const base = await commitFiles(t, project.id, { '.gitlab-ci.yml': CI_FILE })
    const feature = await commitFiles(t, project.id, { 'feature.txt': 'feature\n' }, { branch: 'feature', parent: base })
    const res = await t.api('POST', `/projects/${project.id}/merge_requests`, {
      token: owner.token, body: { source_branch: 'feature', target_branch: 'master', title: 'Add feature' },
    })
    assert.equal(res.status, 201, res.text)
    return { project, feature, mr: res.body as { id: number; iid: number } }
  }

  const single = (project: ProjectRow, iid: number) => `/projects/${project.id}/merge_requests/${iid}`
  const merge = (project: ProjectRow, iid: number, body: Record<string, unknown>, token: string | null = developer.token) =>
    t.api('PUT', `${single(project, iid)}/merge`, { token, body })
  const cancel = (project: ProjectRow, iid: number, token: string | null = developer.token) =>
    t.api('POST', `${single(project, iid)}/cancel_merge_when_pipeline_succeeds`, { token })

  /** A pipeline of the feature branch; its one job `test`. */
  async function featurePipeline(project: ProjectRow) {
    const pipeline = await newPipeline(t, project.id, developer.token, 'feature')
    return { id: pipeline.id, job: pipeline.jobs.test! }
  }

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    developer = await makeUser(t)
    reporter = await makeUser(t)
    stranger = await makeUser(t)
  })
  after(async () => { await t.close() })

  describe('pipeline and pipelines', () => {
    it('shows the head pipeline as PipelineBasic on one merge request, not in lists', async () => {
      const { project, feature, mr } = await projectWithFeature()
      assert.equal((await t.api('GET', single(project, mr.iid), { token: reporter.token })).body.pipeline, null)
      const older = await featurePipeline(project)
      const head = await featurePipeline(project)
      await newPipeline(t, project.id, developer.token, 'master')
      const shown = await t.api('GET', single(project, mr.iid), { token: reporter.token })
      assert.equal(shown.status, 200)
      assert.deepEqual(shown.body.pipeline, {
        id: head.id, sha: feature, ref: 'feature', status: 'pending',
        web_url: `http://ingot.test/${await projectFullPath(t, project)}/pipelines/${head.id}`,
      })
      assert.equal(shown.body.latest_build_started_at, null, 'the head pipeline has not started')
      assert.notEqual(older.id, head.id)
      const list = await t.api('GET', `/projects/${project.id}/merge_requests`, { token: reporter.token })
      assert.equal(list.status, 200)
      assert.ok(!('pipeline' in list.body[0]))
    })

    it('lists the pipelines of its commits on the source branch, newest first, paginated', async () => {
      const { project, mr } = await projectWithFeature()
      const first = await featurePipeline(project)
      const second = await featurePipeline(project)
      await newPipeline(t, project.id, developer.token, 'master')
      // A second commit on the source branch (through the push path, which refreshes the merge request).
      const pushed = await t.api('POST', `/projects/${project.id}/repository/commits`, {
        token: developer.token, body: { branch: 'feature', commit_message: 'More', actions: [{ action: 'create', file_path: 'more.txt', content: 'more' }] },
      })
      assert.equal(pushed.status, 201, pushed.text)
      const third = await featurePipeline(project)
      const res = await t.api('GET', `${single(project, mr.iid)}/pipelines`, { token: reporter.token })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.map((p: { id: number }) => p.id), [third.id, second.id, first.id])
      assert.deepEqual(Object.keys(res.body[0]).sort(), ['id', 'ref', 'sha', 'status', 'web_url'])
      assert.equal(res.body[0].sha, pushed.body.id)
      assert.equal((await t.api('GET', single(project, mr.iid), { token: reporter.token })).body.pipeline.id, third.id)
      await expectPaginates({ t, path: `${single(project, mr.iid)}/pipelines`, token: reporter.token, total: 3 })
      assert.equal((await t.api('GET', `${single(project, mr.iid)}/pipelines`, { token: stranger.token })).status, 404)
      assert.equal((await t.api('GET', `${single(project, mr.iid)}/pipelines`, { token: null })).status, 404)
      assert.equal((await t.api('GET', `${single(project, 999)}/pipelines`, { token: reporter.token })).status, 404)
      // A public project whose jobs are not public: its merge requests are read, their pipelines are not.
      const changed = await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { visibility: 'public', public_jobs: false } })
      assert.equal(changed.status, 200, changed.text)
      assert.equal((await t.api('GET', single(project, mr.iid), { token: stranger.token })).status, 200)
      assert.equal((await t.api('GET', `${single(project, mr.iid)}/pipelines`, { token: stranger.token })).status, 403)
      assert.equal((await t.api('GET', `${single(project, mr.iid)}/pipelines`, { token: reporter.token })).status, 200)
    })
  })

  describe('merge when pipeline succeeds', () => {
    it('waits for a running head pipeline, then merges as who set it with their options', async () => {
      const { project, feature, mr } = await projectWithFeature()
      const pipeline = await featurePipeline(project)
      const res = await merge(project, mr.iid, {
        merge_when_pipeline_succeeds: true, merge_commit_message: 'Merged by the pipeline', should_remove_source_branch: true, sha: feature,
      })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.state, 'opened')
      assert.equal(res.body.merge_when_pipeline_succeeds, true)
      assert.equal(res.body.pipeline.id, pipeline.id)
      const row = await rowOf(project.id, mr.iid)
      assert.equal(row.merge_user_id, developer.user.id)
      assert.deepEqual(await notesOf(mr.id), [`enabled an automatic merge when the pipeline for ${feature} succeeds`])
      // Asking again keeps who set it and writes no second note.
      assert.equal((await merge(project, mr.iid, { merge_when_pipeline_succeeds: true }, owner.token)).status, 200)
      assert.equal((await rowOf(project.id, mr.iid)).merge_user_id, developer.user.id)
      assert.equal((await notesOf(mr.id)).length, 1)

      assert.ok(await finishJob(t.ctx, pipeline.job, 'success'))
      await runQueuedJobs()
      const merged = await t.api('GET', single(project, mr.iid), { token: reporter.token })
      assert.equal(merged.body.state, 'merged')
      assert.equal(merged.body.merged_by.id, developer.user.id)
      // The head pipeline's run, as the original's merge request metrics record it.
      const run = (await t.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`, { token: reporter.token })).body
      assert.ok(run.finished_at !== null)
      assert.deepEqual([merged.body.latest_build_started_at, merged.body.latest_build_finished_at], [run.started_at, run.finished_at])
      const head = (await headOf(project.id, 'master'))!
      assert.equal(merged.body.merge_commit_sha, head)
      const commit = (await t.ctx.repositories.open(project.id).readCommit(head))!
      assert.equal(commit.message.trimEnd(), 'Merged by the pipeline')
      assert.equal(commit.committer.email, developer.user.email)
      assert.equal(await headOf(project.id, 'feature'), null)
    })

    it('does not merge when the pipeline fails, and keeps the flag', async () => {
      const { project, mr } = await projectWithFeature()
      const pipeline = await featurePipeline(project)
      assert.equal((await merge(project, mr.iid, { merge_when_pipeline_succeeds: true })).status, 200)
      assert.ok(await finishJob(t.ctx, pipeline.job, 'failed'))
      await runQueuedJobs()
      const row = await rowOf(project.id, mr.iid)
      assert.equal(row.state, 'opened')
      assert.equal(row.merge_when_pipeline_succeeds, 1)
    })

    it('merges now when the head pipeline is not running, or there is none', async () => {
      const { project, mr } = await projectWithFeature()
      const res = await merge(project, mr.iid, { merge_when_pipeline_succeeds: true })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.state, 'merged')
    })

    it('is turned off by a push to the source branch, without a note', async () => {
      const { project, mr } = await projectWithFeature()
      const pipeline = await featurePipeline(project)
      assert.equal((await merge(project, mr.iid, { merge_when_pipeline_succeeds: true })).status, 200)
      const pushed = await t.api('POST', `/projects/${project.id}/repository/commits`, {
        token: developer.token, body: { branch: 'feature', commit_message: 'More', actions: [{ action: 'create', file_path: 'more.txt', content: 'more' }] },
      })
      assert.equal(pushed.status, 201, pushed.text)
      const row = await rowOf(project.id, mr.iid)
      assert.equal(row.merge_when_pipeline_succeeds, 0)
      assert.equal(row.merge_user_id, null)
      assert.ok(!(await notesOf(mr.id)).some((body) => body.includes('aborted')))
      // The old pipeline succeeding merges nothing: it is no longer the head pipeline.
      assert.ok(await finishJob(t.ctx, pipeline.job, 'success'))
      await runQueuedJobs()
      assert.equal((await rowOf(project.id, mr.iid)).state, 'opened')
    })

    it('is canceled by POST …/cancel_merge_when_pipeline_succeeds (201 with the original\'s result)', async () => {
      const { project, mr } = await projectWithFeature()
      const pipeline = await featurePipeline(project)
      assert.equal((await merge(project, mr.iid, { merge_when_pipeline_succeeds: true })).status, 200)
      assert.equal((await cancel(project, mr.iid, reporter.token)).status, 401)
      assert.equal((await cancel(project, mr.iid, stranger.token)).status, 404)
      assert.equal((await cancel(project, mr.iid, null)).status, 401)
      const res = await cancel(project, mr.iid)
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, { status: 'success' })
      assert.equal((await notesOf(mr.id)).at(-1), 'canceled the automatic merge')
      const shown = await t.api('GET', single(project, mr.iid), { token: reporter.token })
      assert.equal(shown.body.merge_when_pipeline_succeeds, false)
      const again = await cancel(project, mr.iid, owner.token)
      assert.equal(again.status, 201)
      assert.deepEqual(again.body, { status: 'error', message: "Can't cancel the automatic merge", http_status: 406 })
      assert.ok(await finishJob(t.ctx, pipeline.job, 'success'))
      await runQueuedJobs()
      assert.equal((await rowOf(project.id, mr.iid)).state, 'opened')
    })

    it('is refused to a Reporter (401) and hidden from outsiders (404)', async () => {
      const { project, mr } = await projectWithFeature()
      await featurePipeline(project)
      assert.equal((await merge(project, mr.iid, { merge_when_pipeline_succeeds: true }, reporter.token)).status, 401)
      assert.equal((await merge(project, mr.iid, { merge_when_pipeline_succeeds: true }, stranger.token)).status, 404)
      assert.equal((await merge(project, mr.iid, { merge_when_pipeline_succeeds: 'maybe' })).status, 400)
      assert.equal((await rowOf(project.id, mr.iid)).merge_when_pipeline_succeeds, 0)
    })
  })

  describe('only_allow_merge_if_pipeline_succeeds', () => {
    it('refuses (405) a merge whose head pipeline has not succeeded, allows one without a pipeline', async () => {
      const { project, mr } = await projectWithFeature()
      const setting = await t.api('PUT', `/projects/${project.id}`, { token: owner.token, body: { only_allow_merge_if_pipeline_succeeds: true } })
      assert.equal(setting.status, 200, setting.text)
      const pipeline = await featurePipeline(project)
      const running = await merge(project, mr.iid, {})
      assert.equal(running.status, 405)
      assert.deepEqual(running.body, { message: '405 Method Not Allowed' })
      assert.ok(await finishJob(t.ctx, pipeline.job, 'failed'))
      assert.equal((await merge(project, mr.iid, {})).status, 405)
      assert.equal((await merge(project, mr.iid, { merge_when_pipeline_succeeds: true })).status, 405)
      const retried = await featurePipeline(project)
      assert.ok(await finishJob(t.ctx, retried.job, 'success'))
      const res = await merge(project, mr.iid, {})
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.state, 'merged')

      // As the original 11.5, a merge request without any pipeline is not held back.
      const other = await projectWithFeature()
      assert.equal((await t.api('PUT', `/projects/${other.project.id}`, { token: owner.token, body: { only_allow_merge_if_pipeline_succeeds: true } })).status, 200)
      assert.equal((await merge(other.project, other.mr.iid, {})).status, 200)
    })
  })
})
