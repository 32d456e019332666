// The git layer against real temporary repositories: commits written without a work tree, reads
// through the long-lived cat-file readers, trees, diffs, refs moved only by compare-and-swap.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { NULL_OID, signatureTime, type GitRepository } from '../../src/git/repository.js'
import { writeCommit } from '../../src/git/write.js'
import { diffCommits } from '../../src/git/diff.js'
import { scratchRepository, type ScratchRepository } from '../helpers/scratch-repository.js'

const who = { name: 'Ada', email: 'ada@example.com' }

describe('git repository layer', () => {
  let scratch: ScratchRepository
  let repo: GitRepository
  before(async () => {
    scratch = await scratchRepository('ingot-git-')
    repo = scratch.repo
  })
  after(() => scratch.close())

  it('writes commits, reads them back and moves branches by compare-and-swap', async () => {
    assert.equal(await repo.isEmpty(), true)
    const first = await writeCommit(repo, {
      parent: null, message: 'first\n\nbody', author: who, committer: who,
      changes: [{ path: 'README.md', content: Buffer.from('hello\n') }, { path: 'src/a b.txt', content: Buffer.from('x\n'), executable: true }],
    })
    assert.equal(await repo.compareAndSwapRef('refs/heads/main', first, NULL_OID), true)
    assert.equal(await repo.compareAndSwapRef('refs/heads/main', first, NULL_OID), false, 'a second create loses')
    assert.equal(await repo.resolveCommit('main'), first)
    assert.equal(await repo.resolveCommit('--all'), null)
    assert.equal(await repo.resolveCommit('nope'), null)
    for (const searching of ['main^{/first}', ':/first', 'main@{0}']) {
      await assert.rejects(repo.resolveCommit(searching), { statusCode: 400 }, searching)
    }

    const commit = await repo.readCommit(first)
    assert.equal(commit?.message, 'first\n\nbody')
    assert.deepEqual(commit?.parents, [])
    assert.match(signatureTime(commit!.author), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000[+-]\d{2}:\d{2}$/)
    // Dates a client may write into a pushed commit, beyond what Date holds, show at the edge of the range.
    assert.equal(signatureTime({ ...who, time: 1e17, timezone: '+0200' }), '9999-12-31T23:59:59.999+02:00')
    assert.equal(signatureTime({ ...who, time: -1e17, timezone: '-0130' }), '0000-01-01T00:00:00.000-01:30')

    const tree = await repo.listTree('main', '', false)
    assert.deepEqual(tree.map((e) => [e.path, e.type]), [['README.md', 'blob'], ['src', 'tree']])
    const all = await repo.listTree('main', '', true)
    assert.deepEqual(all.find((e) => e.path === 'src/a b.txt')?.mode, '100755')
    assert.equal((await repo.read('main:README.md'))?.data.toString(), 'hello\n')

    const second = await writeCommit(repo, {
      parent: first, message: 'second', author: who, committer: who,
      changes: [{ path: 'README.md', content: Buffer.from('hello\nworld\n') }, { path: 'src/a b.txt', remove: true }],
    })
    assert.equal(await repo.compareAndSwapRef('refs/heads/main', second, NULL_OID), false)
    assert.equal(await repo.compareAndSwapRef('refs/heads/main', second, first), true)
    assert.equal(await repo.isAncestor(first, second), true)
    assert.equal(await repo.mergeBase(first, second), first)

    const { diffs: diff, overflow } = await diffCommits(repo, first, second)
    assert.equal(overflow, false)
    assert.deepEqual(diff.map((d) => [d.new_path, d.deleted_file]), [['README.md', false], ['src/a b.txt', true]])
    assert.match(diff[0]!.diff, /^--- a\/README.md\n\+\+\+ b\/README.md\n@@/)
    const { diffs: rootDiff } = await diffCommits(repo, null, first)
    assert.ok(rootDiff.every((d) => d.new_file))
  })

  it('lists refs with annotated tags peeled', async () => {
    const main = await repo.resolveCommit('main')
    await repo.run(['tag', 'light', main!])
    await repo.run(['-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', 'tag', '-a', '-m', 'Version 1', 'v1', main!])
    const refs = await repo.refs('refs/tags/')
    const light = refs.find((r) => r.name === 'refs/tags/light')
    const annotated = refs.find((r) => r.name === 'refs/tags/v1')
    assert.deepEqual([light?.commit, light?.tagMessage], [main, null])
    assert.deepEqual([annotated?.commit, annotated?.targetType, annotated?.tagMessage], [main, 'tag', 'Version 1'])
  })

  it('keeps reading after many requests in flight at once', async () => {
    const reads = await Promise.all(Array.from({ length: 200 }, () => repo.read('main:README.md')))
    assert.ok(reads.every((r) => r?.data.toString() === 'hello\nworld\n'))
    assert.equal(await repo.info('main:missing'), null)
  })
})
