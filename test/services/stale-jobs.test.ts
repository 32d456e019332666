// The sweep of stale CI jobs (ci.drop_stale_jobs): a job pending a day, a job running without an
// update for an hour, and a job running past its timeout are failed, with the original's reasons;
// fresh jobs, and jobs a runner updated meanwhile, are left alone.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeProject } from '../helpers/factories.js'
import { makeRunner, requestJob } from '../helpers/runners.js'
import { DROP_STALE_JOBS } from '../../src/services/ci/jobs.js'
import { ALL_JOB_KINDS } from '../../src/jobs/kinds.js'
import { PENDING_OUTDATED_MS, RUNNING_OUTDATED_MS, TIMEOUT_GRACE_MS, dropStaleJobs } from '../../src/services/ci/stale-jobs.js'

describe('stale CI jobs', () => {
  let t: TestApp

  before(async () => { t = await buildTestApp({ env: { INGOT_RUNNER_LONG_POLL_SECONDS: '0' } }) })
  after(async () => { await t.close() })

  it('fails stuck and timed-out jobs, and only those', async () => {
    assert.ok(ALL_JOB_KINDS.includes(DROP_STALE_JOBS))
    const runner = await makeRunner(t, { maximumTimeout: 600 })
    const project = await makeProject(t, null)
    const ids: Record<string, number> = {}
    const pipelineIds: number[] = []
    // The first pipeline's jobs are taken by the runner; the second's stay pending.
    for (const names of [['silent_running', 'slow_running', 'fresh_running'], ['stuck_pending', 'fresh_pending']]) {
      await commitFiles(t, project.id, { '.gitlab-ci.yml': names.map((name) => `${name}: { script: x }`).join('\n') })
      const created = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'master' } })
      assert.equal(created.status, 201)
      pipelineIds.push(created.body.id)
      for (const job of await t.ctx.db.selectFrom('ci_builds').select(['id', 'name']).where('pipeline_id', '=', created.body.id).execute()) ids[job.name] = job.id
      if (names.length === 3) for (const _ of names) assert.equal((await requestJob(t, runner)).status, 201)
    }

    const now = Date.now()
    const age = (id: number, values: { updated_at?: number; started_at?: number }) => t.ctx.db.updateTable('ci_builds').set(values).where('id', '=', id).execute()
    await age(ids.stuck_pending!, { updated_at: now - PENDING_OUTDATED_MS - 60_000 })
    await age(ids.fresh_pending!, { updated_at: now - PENDING_OUTDATED_MS + 60_000 })
    await age(ids.silent_running!, { updated_at: now - RUNNING_OUTDATED_MS - 60_000 })
    await age(ids.slow_running!, { started_at: now - 600_000 - TIMEOUT_GRACE_MS - 60_000 })
    await age(ids.fresh_running!, { started_at: now - 600_000 })

    assert.deepEqual(await dropStaleJobs(t.ctx), { stuck: 2, timedOut: 1 })
    const rows = Object.fromEntries((await t.ctx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', 'in', pipelineIds).execute()).map((j) => [j.name, [j.status, j.failure_reason]]))
    assert.deepEqual(rows, {
      stuck_pending: ['failed', 'stuck_or_timeout_failure'],
      fresh_pending: ['pending', null],
      silent_running: ['failed', 'stuck_or_timeout_failure'],
      slow_running: ['failed', 'job_execution_timeout'],
      fresh_running: ['running', null],
    })
    // A second sweep finds nothing more.
    assert.deepEqual(await dropStaleJobs(t.ctx), { stuck: 0, timedOut: 0 })
  })
})
