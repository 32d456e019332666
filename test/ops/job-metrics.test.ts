// The job system in /-/metrics, on whichever database the suite runs on: counters of what this
// process enqueued and ran (done, failed, dead) by kind, gauges of the whole database (jobs by kind
// and state, the oldest due job's age); and `ingot worker`, a real child process, serving them on
// INGOT_WORKER_METRICS_PORT to the addresses INGOT_METRICS_ALLOW names.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { buildTestApp, ROOT_PASSWORD, type TestApp } from '../helpers/app.js'
import { openTestQueue, until } from '../helpers/jobs.js'
import { sample } from '../helpers/metrics.js'
import { ConfigError, loadConfig } from '../../src/config.js'
import type { AppContext } from '../../src/context.js'
import { defineJobKind } from '../../src/jobs/kind.js'
import { ALL_JOB_KINDS } from '../../src/jobs/kinds.js'
import type { JobQueue } from '../../src/jobs/queue.js'
import { Metrics } from '../../src/metrics/metrics.js'
import { REFRESH_STATISTICS } from '../../src/services/projects/jobs.js'
import { freePort } from '../helpers/ports.js'
import { ingotMain } from '../helpers/ingot-command.js'

const run = promisify(execFile)

const scrape = async (t: TestApp) => {
  const res = await t.app.inject({ url: '/-/metrics', remoteAddress: '127.0.0.1' })
  assert.equal(res.statusCode, 200)
  return res.body
}

describe('job metrics', () => {
  let t: TestApp
  const queues: JobQueue[] = []
  before(async () => { t = await buildTestApp() })
  after(async () => {
    for (const queue of queues) await queue.close()
    await t.close()
  })

  it("count the app's enqueues and runs by kind, from zero for every kind, and show the database's jobs", async () => {
    const kind = REFRESH_STATISTICS.name
    const before = await scrape(t)
    for (const { name } of ALL_JOB_KINDS) {
      assert.equal(sample(before, 'ingot_jobs_enqueued_total', { kind: name }), 0, name)
      for (const outcome of ['done', 'failed', 'dead']) assert.equal(sample(before, 'ingot_jobs_finished_total', { kind: name, outcome }), 0, `${name} ${outcome}`)
      for (const state of ['waiting', 'running', 'dead']) assert.equal(sample(before, 'ingot_jobs', { kind: name, state }), 0, `${name} ${state}`)
    }
    assert.equal(sample(before, 'ingot_jobs_oldest_due_age_seconds'), 0, 'none is due')

    // A project that does not exist: the refresh has nothing to do and is done.
    await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: 404_404 })
    await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: 404_405 }, { runAt: Date.now() + 3_600_000 })
    await sleep(20)
    const waiting = await scrape(t)
    assert.equal(sample(waiting, 'ingot_jobs_enqueued_total', { kind }), 2)
    assert.equal(sample(waiting, 'ingot_jobs', { kind, state: 'waiting' }), 2)
    const age = sample(waiting, 'ingot_jobs_oldest_due_age_seconds') ?? 0
    assert.ok(age >= 0.015 && age < 60, `the due job waited ${age} s`)

    assert.equal(await t.ctx.jobs.runDue(), 1)
    const ran = await scrape(t)
    assert.equal(sample(ran, 'ingot_jobs_finished_total', { kind, outcome: 'done' }), 1)
    assert.equal(sample(ran, 'ingot_jobs', { kind, state: 'waiting' }), 1, 'the delayed one still waits')
    assert.equal(sample(ran, 'ingot_jobs_oldest_due_age_seconds'), 0, 'and is not due')
    await t.ctx.jobs.remove((await t.ctx.jobs.list({ kind })).map((job) => job.id))
    assert.equal(sample(await scrape(t), 'ingot_jobs', { kind, state: 'waiting' }), 0)
  })

  it("count failed and dead attempts of this process's queue only; the gauges count every process's jobs", async () => {
    let succeed = false
    const FLAKY = defineJobKind<{ n: number }>({
      name: 'test_metrics.flaky', attempts: 2, timeLimitMs: 5_000, retryDelayMs: 1_000, concurrency: 1,
      async run() {
        if (!succeed) throw new Error('the receiver said no')
      },
    })
    const ours = await openTestQueue(t, [FLAKY])
    const theirs = await openTestQueue(t, [FLAKY])
    queues.push(ours, theirs)
    // The metrics of a process whose queue is `ours`, as an app on it builds them.
    const metrics = new Metrics(Object.create(t.ctx, { jobs: { value: ours } }) as AppContext)
    try {
      await ours.enqueue(FLAKY, { n: 1 })
      await theirs.enqueue(FLAKY, { n: 2 })
      await theirs.enqueue(FLAKY, { n: 3 })
      let text = await metrics.scrape()
      assert.equal(sample(text, 'ingot_jobs_enqueued_total', { kind: FLAKY.name }), 1)
      assert.equal(sample(text, 'ingot_jobs', { kind: FLAKY.name, state: 'waiting' }), 3)

      // Every job's first attempt here, then (after its delay) its last.
      assert.equal(await ours.runDue(), 3)
      assert.equal(await ours.runDue(Date.now() + 60_000), 3)
      succeed = true
      assert.equal(await ours.retryDead((await ours.list({ kind: FLAKY.name, state: 'dead' }))[0]!.id), true)
      assert.equal(await theirs.runDue(), 1, 'the retried job, run by the other process')
      text = await metrics.scrape()
      assert.equal(sample(text, 'ingot_jobs_finished_total', { kind: FLAKY.name, outcome: 'failed' }), 3)
      assert.equal(sample(text, 'ingot_jobs_finished_total', { kind: FLAKY.name, outcome: 'dead' }), 3)
      assert.equal(sample(text, 'ingot_jobs_finished_total', { kind: FLAKY.name, outcome: 'done' }), 0, 'done by the other process')
      assert.equal(sample(text, 'ingot_jobs', { kind: FLAKY.name, state: 'dead' }), 2)
      assert.equal(sample(text, 'ingot_jobs', { kind: FLAKY.name, state: 'waiting' }), 0)
      assert.equal(sample(text, 'ingot_jobs_enqueued_total', { kind: FLAKY.name }), 1)
    } finally {
      metrics.close()
    }
    await ours.enqueue(FLAKY, { n: 4 })
    assert.equal(sample(await metrics.scrape(), 'ingot_jobs_enqueued_total', { kind: FLAKY.name }), 1, 'closed metrics hear nothing more')
  })
})

describe('INGOT_WORKER_METRICS_PORT', () => {
  it('is 0 (no listener) unless set to a port', () => {
    assert.equal(loadConfig({}).workerMetricsPort, 0)
    assert.equal(loadConfig({ INGOT_WORKER_METRICS_PORT: '9464' }).workerMetricsPort, 9464)
    assert.equal(loadConfig({ INGOT_WORKER_METRICS_PORT: '0' }).workerMetricsPort, 0)
    for (const value of ['x', '-1', '65536', '9464.5']) {
      assert.throws(() => loadConfig({ INGOT_WORKER_METRICS_PORT: value }),
        (err: unknown) => err instanceof ConfigError && err.message.includes('INGOT_WORKER_METRICS_PORT'), value)
    }
  })

  it('is named by `ingot --help`', async () => {
    const help = await run(process.execPath, [ingotMain(), '--help'])
    assert.match(help.stdout, /INGOT_WORKER_METRICS_PORT \(0: none; a port on INGOT_HOST where `ingot worker` serves \/-\/metrics\)/)
  })

  describe('ingot worker', () => {
    let t: TestApp
    before(async () => { t = await buildTestApp() })
    after(() => t.close())

    it('serves the counters of the jobs it ran on its own listener, to the allowed addresses only', async () => {
      const port = await freePort()
      const child = spawn(process.execPath, [ingotMain(), 'worker'], {
        env: {
          ...process.env, INGOT_DATA_DIR: t.ctx.config.dataDir, INGOT_DATABASE_URL: t.ctx.config.databaseUrl,
          INGOT_ROOT_PASSWORD: ROOT_PASSWORD, INGOT_LOG_LEVEL: 'info', INGOT_LOG_FORMAT: 'json',
          INGOT_HOST: '127.0.0.1', INGOT_WORKER_METRICS_PORT: String(port),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      const url = `http://127.0.0.1:${port}/-/metrics`
      try {
        await until(() => /worker started/.test(output), 'the worker started', 60_000)
        assert.match(output, new RegExp(`"msg":"serving metrics"`))
        const kind = REFRESH_STATISTICS.name
        await t.ctx.jobs.enqueue(REFRESH_STATISTICS, { projectId: 404_404 })
        let text = ''
        await until(async () => {
          text = await (await fetch(url)).text()
          return sample(text, 'ingot_jobs_finished_total', { kind, outcome: 'done' }) === 1
        }, 'the job done by the worker, in its metrics')
        assert.equal(sample(text, 'ingot_jobs_enqueued_total', { kind }), 0, 'enqueued by another process')
        assert.equal(sample(text, 'ingot_jobs', { kind, state: 'waiting' }), 0)
        assert.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 0)

        const refused = await fetch(url, { headers: { 'x-forwarded-for': '203.0.113.7' } })
        const unknown = await fetch(`http://127.0.0.1:${port}/api/v4/projects`)
        assert.deepEqual([refused.status, await refused.json()], [404, { error: '404 Not Found' }])
        assert.deepEqual([unknown.status, await unknown.json()], [404, { error: '404 Not Found' }])
      } finally {
        child.kill('SIGTERM')
      }
      assert.equal(await exited, 0)
      await assert.rejects(fetch(url), 'the listener is closed with the worker')
    })
  })
})
