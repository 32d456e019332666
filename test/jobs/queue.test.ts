// The job queue's unique keys: a job waiting to run absorbs enqueues of the same key, but one that
// has started does not, so a change made while it runs gets a run of its own.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'

describe('job queue', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  it('runs a keyed job once for enqueues while it waits, and again for one made while it runs', async () => {
    const runs: number[] = []
    let enqueueWhileRunning = true
    t.ctx.jobs.define('test.keyed', async (payload) => {
      runs.push(payload as number)
      if (enqueueWhileRunning) {
        enqueueWhileRunning = false
        await t.ctx.jobs.enqueue('test.keyed', 3, { uniqueKey: 'keyed' })
      }
    })
    await t.ctx.jobs.enqueue('test.keyed', 1, { uniqueKey: 'keyed' })
    await t.ctx.jobs.enqueue('test.keyed', 2, { uniqueKey: 'keyed' })
    await t.ctx.jobs.runDue()
    await t.ctx.jobs.runDue(Date.now() + 1)
    assert.deepEqual(runs, [1, 3])
  })
})
