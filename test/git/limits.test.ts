// Bounds on what Ingot reads from git: output past a limit stops git and is flagged, streams have
// time and idle limits, and the cat-file readers take large objects in one copy and skip those
// over their limit without holding them.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { GitOutputTooLargeError, runGit, runGitBuffer, runGitLimited, spawnGit } from '../../src/git/command.js'
import { CatFilePool, ObjectTooLargeError } from '../../src/git/cat-file.js'

describe('git output limits', () => {
  let dir: string
  let gitDir: string
  let big: string
  let small: string
  const bigContent = Buffer.alloc(3 * 1024 * 1024 + 17, 'abcdefghij')
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-limits-'))
    gitDir = path.join(dir, 'r.git')
    await runGit(['init', '--bare', '--quiet', gitDir])
    big = (await runGit(['hash-object', '-w', '--stdin'], { gitDir, input: bigContent })).trim()
    small = (await runGit(['hash-object', '-w', '--stdin'], { gitDir, input: 'small\n' })).trim()
  })
  after(async () => fs.rm(dir, { recursive: true, force: true }))

  it('stops git at the output limit and flags the output truncated', async () => {
    const limited = await runGitLimited(['cat-file', 'blob', big], { gitDir, maxOutputBytes: 100_000 })
    assert.equal(limited.truncated, true)
    assert.equal(limited.stdout.length, 100_000)
    assert.deepEqual(limited.stdout, bigContent.subarray(0, 100_000))
    const whole = await runGitLimited(['cat-file', 'blob', small], { gitDir, maxOutputBytes: 100_000 })
    assert.deepEqual(whole, { stdout: Buffer.from('small\n'), truncated: false })
    await assert.rejects(runGitBuffer(['cat-file', 'blob', big], { gitDir, maxOutputBytes: 1000 }), GitOutputTooLargeError)
  })

  it('kills a streaming git at its time limit and at its idle limit', async () => {
    // cat-file --batch waits for input forever: only a limit ends it.
    const timed = spawnGit(['cat-file', '--batch'], { gitDir, timeoutMs: 200 })
    const [, signal] = await new Promise<[number | null, string | null]>((resolve) => timed.child.once('exit', (c, s) => resolve([c, s])))
    assert.equal(signal, 'SIGKILL')
    assert.equal(timed.stoppedBy(), 'time limit')

    const idle = spawnGit(['cat-file', '--batch'], { gitDir, idleTimeoutMs: 300 })
    const started = Date.now()
    // Activity keeps it alive past its idle limit…
    const keepAlive = setInterval(() => idle.touch(), 100)
    await new Promise((resolve) => setTimeout(resolve, 600))
    assert.equal(idle.child.exitCode, null)
    assert.equal(idle.child.signalCode, null)
    clearInterval(keepAlive)
    // …and silence ends it.
    await new Promise((resolve) => idle.child.once('exit', resolve))
    assert.equal(idle.stoppedBy(), 'idle limit')
    assert.ok(Date.now() - started >= 700, "not before the last touch plus the idle limit")
  })

  it('reads large objects whole through the readers, and skips those over the limit', async () => {
    const pool = new CatFilePool(1024 * 1024)
    const generous = new CatFilePool()
    try {
      const read = await generous.read(gitDir, big)
      assert.equal(read?.size, bigContent.length)
      assert.ok(read?.data.equals(bigContent))
      await assert.rejects(pool.read(gitDir, big), ObjectTooLargeError)
      // The reader skipped the large object's bytes and goes on answering.
      assert.equal((await pool.read(gitDir, small))?.data.toString(), 'small\n')
      assert.equal((await pool.info(gitDir, big))?.size, bigContent.length)
    } finally {
      pool.closeAll()
      generous.closeAll()
    }
  })
})
