// The trace on its way to the server, against a stand-in for the server's side of
// `PATCH /jobs/:id/trace` (append at the current size, else 416 with the size it has): output is
// sent in batches, not per write; an offset mismatch resyncs; a silent job is touched (PUT running);
// a 403 or a stopped Job-Status in either answer abandons the job.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { JobAnswer, TraceAnswer } from '../../src/runner/client.js'
import { TraceBuffer } from '../../src/runner/trace.js'

/** The server's copy of a trace, with the answers `PATCH /jobs/:id/trace` gives. */
class FakeServer {
  trace = Buffer.alloc(0)
  calls: { start: number; length: number }[] = []
  jobStatus = 'running'
  next: (() => TraceAnswer | Error) | null = null
  touches = 0

  /** PUT running: 200 while the job runs, else 403 with its status. */
  touch = async (): Promise<JobAnswer> => {
    this.touches += 1
    return this.jobStatus === 'running' ? { status: 200, jobStatus: null } : { status: 403, jobStatus: this.jobStatus }
  }

  send = async (start: number, bytes: Buffer): Promise<TraceAnswer> => {
    this.calls.push({ start, length: bytes.length })
    const scripted = this.next?.()
    this.next = null
    if (scripted instanceof Error) throw scripted
    if (scripted !== undefined) return scripted
    if (start !== this.trace.length) return { status: 416, jobStatus: null, remoteSize: this.trace.length }
    this.trace = Buffer.concat([this.trace, bytes])
    return { status: 202, jobStatus: this.jobStatus, remoteSize: this.trace.length }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('runner trace', () => {
  it('sends many small writes as one append per interval', async () => {
    const server = new FakeServer()
    const trace = new TraceBuffer({ send: server.send, touch: server.touch, onAbandoned: () => assert.fail('abandoned'), intervalMs: 100 })
    for (let i = 0; i < 100; i += 1) trace.write(`line ${i}\n`)
    assert.equal(server.calls.length, 0)
    await sleep(250)
    assert.equal(server.calls.length, 1)
    trace.write('last\n')
    assert.equal(await trace.close(), true)
    assert.equal(server.trace.toString(), `${Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join('')}last\n`)
    assert.equal(server.calls.length, 2)
  })

  it('sends at once when 64 KiB wait', async () => {
    const server = new FakeServer()
    const trace = new TraceBuffer({ send: server.send, touch: server.touch, onAbandoned: () => assert.fail('abandoned'), intervalMs: 60_000 })
    trace.write('x'.repeat(70 * 1024))
    await sleep(20)
    assert.equal(server.calls.length, 1)
    assert.equal(server.trace.length, 70 * 1024)
    await trace.close()
  })

  it('resyncs from the Range of a 416 and sends again from there', async () => {
    const server = new FakeServer()
    const trace = new TraceBuffer({ send: server.send, touch: server.touch, onAbandoned: () => assert.fail('abandoned'), intervalMs: 60_000 })
    trace.write('hello ')
    await trace.flush()
    // The server lost the end of what it had (a restore, a replaced trace): it has 2 bytes.
    server.trace = server.trace.subarray(0, 2)
    trace.write('world\n')
    await trace.close()
    assert.equal(server.trace.toString(), 'hello world\n')
    assert.deepEqual(server.calls.map((call) => call.start), [0, 6, 2])
  })

  it('keeps what failed to send and sends it on the next try', async () => {
    const server = new FakeServer()
    const trace = new TraceBuffer({ send: server.send, touch: server.touch, onAbandoned: () => assert.fail('abandoned'), intervalMs: 60_000 })
    trace.write('first ')
    server.next = () => new Error('connection reset')
    await trace.flush()
    server.next = () => ({ status: 500, jobStatus: null, remoteSize: null })
    await trace.flush()
    assert.equal(server.trace.length, 0)
    trace.write('second\n')
    assert.equal(await trace.close(), true)
    assert.equal(server.trace.toString(), 'first second\n')
  })

  it('abandons the job on a 403 and on a Job-Status of canceled', async () => {
    for (const answer of [{ status: 403, jobStatus: 'canceled', remoteSize: null }, { status: 202, jobStatus: 'canceled', remoteSize: 3 }, { status: 202, jobStatus: 'canceling', remoteSize: 3 }]) {
      const server = new FakeServer()
      const abandoned: string[] = []
      const trace = new TraceBuffer({ send: server.send, touch: server.touch, onAbandoned: (status) => abandoned.push(status), intervalMs: 60_000 })
      trace.write('abc')
      server.next = () => answer
      await trace.flush()
      assert.deepEqual(abandoned, [answer.jobStatus])
      trace.write('more')
      await trace.close()
      assert.equal(server.calls.length, 1, 'nothing is sent after the job was abandoned')
    }
  })

  it('touches a job that writes nothing, and abandons it when the touch answers canceled', async () => {
    const server = new FakeServer()
    const abandoned: string[] = []
    const trace = new TraceBuffer({ send: server.send, touch: server.touch, onAbandoned: (status) => abandoned.push(status), intervalMs: 50, touchIntervalMs: 200 })
    await sleep(500)
    assert.ok(server.touches >= 1 && server.touches <= 3, `${server.touches} touches`)
    assert.equal(server.calls.length, 0)
    server.jobStatus = 'canceled'
    await sleep(400)
    assert.deepEqual(abandoned, ['canceled'])
    const touches = server.touches
    await sleep(400)
    assert.equal(server.touches, touches, 'an abandoned job is touched no more')
    await trace.close()
  })

  it('does not touch a job whose output keeps the server informed', async () => {
    const server = new FakeServer()
    const trace = new TraceBuffer({ send: server.send, touch: server.touch, onAbandoned: () => assert.fail('abandoned'), intervalMs: 50, touchIntervalMs: 200 })
    for (let i = 0; i < 10; i += 1) {
      trace.write(`line ${i}\n`)
      await sleep(60)
    }
    assert.equal(server.touches, 0)
    await trace.close()
  })

  it('stops keeping output past its limit, and says so', async () => {
    const server = new FakeServer()
    const trace = new TraceBuffer({ send: server.send, touch: server.touch, onAbandoned: () => {}, intervalMs: 60_000, limitBytes: 10 })
    trace.write('0123456789abcdef')
    trace.write('more')
    await trace.close()
    assert.match(server.trace.toString(), /^0123456789\n.*Job's log exceeded limit of 10 bytes/s)
    assert.doesNotMatch(server.trace.toString(), /abcdef|more/)
  })
})
