// receive-pack's report read from its output as it goes to the client: with and without the side
// band, in any chunking, report-status-v2's option lines, and output that holds no report.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ReportStatusReader } from '../../src/git/report-status.js'

const pkt = (payload: string | Buffer) => {
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes])
}
const FLUSH = Buffer.from('0000')
/** `inner` on band 1, cut into packets of at most `size` bytes, as receive-pack sends it. */
const sideBanded = (inner: Buffer, size: number) => {
  const packets: Buffer[] = [pkt(Buffer.concat([Buffer.from([2]), Buffer.from('Resolving deltas: 100% (1/1)\n')]))]
  for (let at = 0; at < inner.length; at += size) packets.push(pkt(Buffer.concat([Buffer.from([1]), inner.subarray(at, at + size)])))
  return Buffer.concat([...packets, FLUSH])
}

function read(output: Buffer, chunk: number): ReadonlySet<string> | null {
  const reader = new ReportStatusReader()
  for (let at = 0; at < output.length; at += chunk) reader.observe(output.subarray(at, at + chunk))
  return reader.refs()
}

describe('receive-pack report', () => {
  const report = Buffer.concat([
    pkt('unpack ok\n'), pkt('ok refs/heads/main\n'), pkt('ng refs/heads/side failed to update ref\n'),
    pkt('ok refs/tags/v1\n'), pkt('option forced-update\n'), FLUSH,
  ])

  it('reads the updates reported ok, without the side band and inside it, however the output is cut', () => {
    for (const output of [report, sideBanded(report, 7), sideBanded(report, 1000)]) {
      for (const chunk of [1, 3, 64, output.length]) {
        assert.deepEqual([...read(output, chunk) ?? []].sort(), ['refs/heads/main', 'refs/tags/v1'], `chunks of ${chunk}`)
      }
    }
  })

  it('has no report for output without one: none asked for, cut short, an error on band 3, not pkt-lines', () => {
    assert.equal(read(Buffer.alloc(0), 1), null)
    assert.equal(read(report.subarray(0, report.length - 4), 5), null, 'no flush yet: the report may go on')
    assert.equal(read(Buffer.concat([pkt(Buffer.concat([Buffer.from([3]), Buffer.from('fatal: out of memory\n')])), FLUSH]), 4), null)
    assert.equal(read(Buffer.from('HTTP/1.1 500 oops\r\n\r\n'), 4), null)
  })

  it('has an empty report when the unpack failed', () => {
    const failed = Buffer.concat([pkt('unpack index-pack abnormal exit\n'), pkt('ng refs/heads/main unpacker error\n'), FLUSH])
    assert.deepEqual([...read(sideBanded(failed, 20), 2) ?? ['missing']], [])
  })
})
