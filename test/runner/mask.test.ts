// Secret values masked in traces (src/runner/mask.ts): every occurrence written as [MASKED],
// values split across writes and across appends to the server too, longest values first, values
// under 8 bytes left alone, multi-byte text intact; and the trace buffer never appends a secret.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SecretMasker } from '../../src/runner/mask.js'
import { TraceBuffer } from '../../src/runner/trace.js'
import type { TraceAnswer } from '../../src/runner/client.js'

/** The whole output of `chunks` through a masker of `secrets`, and what each write let through. */
function run(secrets: string[], chunks: string[]): { text: string; passed: string[] } {
  const masker = new SecretMasker(secrets)
  const passed = chunks.map((chunk) => masker.write(Buffer.from(chunk)).toString())
  const text = passed.join('') + masker.end().toString()
  return { text, passed }
}

describe('secret masking', () => {
  it('masks every occurrence in one write', () => {
    assert.equal(run(['s3cr3t-value'], ['a s3cr3t-value b s3cr3t-value\n']).text, 'a [MASKED] b [MASKED]\n')
  })

  it('masks a value split across writes, holding back only what could begin it', () => {
    const { text, passed } = run(['s3cr3t-value'], ['token: s3cr', '3t-va', 'lue done\n'])
    assert.equal(text, 'token: [MASKED] done\n')
    assert.deepEqual(passed, ['token: ', '', '[MASKED] done\n'])
    for (const part of passed) assert.doesNotMatch(part, /s3cr/)
  })

  it('passes on a held-back start that turns out to be no secret, and one at the very end', () => {
    assert.equal(run(['s3cr3t-value'], ['s3cr', 'ew loose\n']).text, 's3crew loose\n')
    const { text, passed } = run(['s3cr3t-value'], ['ends with s3cr3t'])
    assert.deepEqual(passed, ['ends with '])
    assert.equal(text, 'ends with s3cr3t')
  })

  it('masks the longer of two overlapping values whole', () => {
    const token = 'abcdefgh12345678'
    const url = `https://gitlab-ci-token:${token}@example.com/group/project.git`
    assert.equal(run([token, url], [`clone ${url}\n`, `token ${token}\n`]).text, 'clone [MASKED]\ntoken [MASKED]\n')
  })

  it('leaves values shorter than 8 bytes alone', () => {
    assert.equal(run(['true', 'seven77'], ['true seven77\n']).text, 'true seven77\n')
    assert.equal(run(['eight888'], ['x eight888 y\n']).text, 'x [MASKED] y\n')
  })

  it('keeps multi-byte text whole around a masked value split inside a character', () => {
    const secret = 'pässwörd-geheim'
    const bytes = Buffer.from(`→ ${secret} ←\n`)
    const masker = new SecretMasker([secret])
    const parts = [bytes.subarray(0, 6), bytes.subarray(6, 11), bytes.subarray(11)].map((part) => masker.write(part))
    assert.equal(Buffer.concat([...parts, masker.end()]).toString(), '→ [MASKED] ←\n')
  })

  it('never appends a secret to the server, also when it is split across two appends', async () => {
    const appended: string[] = []
    let serverTrace = Buffer.alloc(0)
    const send = async (start: number, bytes: Buffer): Promise<TraceAnswer> => {
      appended.push(bytes.toString())
      serverTrace = Buffer.concat([serverTrace.subarray(0, start), bytes])
      return { status: 202, jobStatus: 'running', remoteSize: serverTrace.length }
    }
    const trace = new TraceBuffer({
      send, touch: async () => ({ status: 200, jobStatus: null }), onAbandoned: () => assert.fail('abandoned'),
      intervalMs: 60_000, secrets: ['the-secret-value-42'],
    })
    trace.write('before the-secr')
    await trace.flush()
    trace.write('et-value-42 after\n')
    await trace.flush()
    trace.write('and the-secret-value-42')
    assert.equal(await trace.close(), true)
    assert.equal(serverTrace.toString(), 'before [MASKED] after\nand [MASKED]')
    assert.equal(trace.text(), serverTrace.toString())
    for (const part of appended) assert.doesNotMatch(part, /secr/)
    assert.ok(appended.length >= 2)
  })
})
