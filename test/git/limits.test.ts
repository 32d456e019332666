// Bounds on what Ingot reads from git: output past a limit stops git and is flagged, streams have
// time and idle limits, the cat-file readers take large objects in one copy and skip those over
// their limit without holding them, and diffs and comparisons stop at the original's limits.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { GitOutputTooLargeError, runGit, runGitBuffer, runGitLimited, spawnGit } from '../../src/git/command.js'
import { CatFilePool, ObjectTooLargeError } from '../../src/git/cat-file.js'
import type { GitRepository } from '../../src/git/repository.js'
import { writeCommit } from '../../src/git/write.js'
import { diffCommits, diffOverflows } from '../../src/git/diff.js'
import { COMPARE_COMMITS_LIMIT, compareCommits } from '../../src/git/compare.js'
import { scratchRepository, type ScratchRepository } from '../helpers/scratch-repository.js'
import { writeCommitLine } from '../helpers/git.js'

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

describe('diff and compare limits', () => {
  let scratch: ScratchRepository
  let repo: GitRepository
  const who = { name: 'Ada', email: 'ada@example.com' }
  const lines = (count: number, width: number) => Array.from({ length: count }, (_, i) => `${String(i).padStart(width, 'x')}\n`).join('')
  before(async () => {
    scratch = await scratchRepository('ingot-diff-limits-')
    repo = scratch.repo
  })
  after(() => scratch.close())

  it('answers a file diff of 100 KB as too large and one of 10 KB as collapsed unless expanded', async () => {
    const commit = await writeCommit(repo, {
      parent: null, message: 'sizes', author: who, committer: who,
      changes: [
        { path: 'a-small.txt', content: Buffer.from('hello\n') },
        { path: 'b-medium.txt', content: Buffer.from(lines(600, 30)) }, // some 19 KB of diff
        { path: 'c-large.txt', content: Buffer.from(lines(4000, 30)) }, // some 124 KB
      ],
    })
    const expanded = await diffCommits(repo, null, commit)
    assert.equal(expanded.overflow, false)
    assert.deepEqual(expanded.diffs.map((d) => [d.new_path, d.too_large, d.collapsed, d.diff === '']), [
      ['a-small.txt', false, false, false], ['b-medium.txt', false, false, false], ['c-large.txt', true, false, true],
    ])
    const collapsed = await diffCommits(repo, null, commit, { expanded: false })
    assert.deepEqual(collapsed.diffs.map((d) => [d.new_path, d.too_large, d.collapsed, d.diff === '']), [
      ['a-small.txt', false, false, false], ['b-medium.txt', false, true, true], ['c-large.txt', true, false, true],
    ])
  })

  it('stops a collection at its files and lines limits, and caps compared commits', async () => {
    let parent: string | null = null
    const first = await writeCommit(repo, {
      parent, message: 'files', author: who, committer: who,
      changes: Array.from({ length: 5 }, (_, i) => ({ path: `f${i}.txt`, content: Buffer.from(lines(10, 3)) })),
    })
    const files = await diffCommits(repo, null, first, { limits: { maxFiles: 3, maxLines: 5000, maxBytes: 500_000 } })
    assert.deepEqual([files.diffs.map((d) => d.new_path), files.overflow], [['f0.txt', 'f1.txt', 'f2.txt'], true])
    // Each file's diff is 13 lines: the one that reaches 30 lines is left out, as the original drops it.
    const byLines = await diffCommits(repo, null, first, { limits: { maxFiles: 100, maxLines: 30, maxBytes: 500_000 } })
    assert.deepEqual([byLines.diffs.length, byLines.overflow], [2, true])
    assert.equal(diffOverflows(await diffCommits(repo, null, first)), false)

    parent = (await writeCommitLine(repo, {
      ref: 'refs/heads/compared', parent: first, count: COMPARE_COMMITS_LIMIT + 5, path: 'n.txt', contentOf: (i) => `${i}\n`, messageOf: (i) => `commit ${i}`, author: who,
    })).at(-1)!
    const comparison = await compareCommits(repo, first, parent, false)
    assert.equal(comparison.commits.length, COMPARE_COMMITS_LIMIT)
    assert.equal(comparison.commits.at(-1)?.id, parent, 'the newest commits, the head last')
    assert.equal(comparison.commits[0]?.message, 'commit 5')
  })
})
