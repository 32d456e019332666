// The git layer against real temporary repositories: commits written without a work tree, reads
// through the long-lived cat-file readers, trees, diffs, refs moved only by compare-and-swap.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { gitProcessCounts } from '../../src/git/processes.js'
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

  it('tells ancestry from a push\'s quarantined loose commits without git, and leaves the rest to git', async () => {
    // As receive-pack gives its pre-receive hook: the push's objects in a directory of their own.
    const quarantine = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-quarantine-'))
    const env = { GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(repo.gitDir, 'objects') }
    const second = (await repo.resolveCommit('main'))!
    const { tree } = (await repo.readCommit(second))!
    const commitObject = (parents: string[], message: string) => [`tree ${tree}`, ...parents.map((p) => `parent ${p}`),
      'author Ada <ada@example.com> 1700000000 +0000', 'committer Ada <ada@example.com> 1700000000 +0000', '', message, ''].join('\n')
    const write = async (content: string, into: Record<string, string> = env) => (await repo.run(['hash-object', '-t', 'commit', '-w', '--stdin'], { input: content, env: into })).trim()
    const third = await write(commitObject([second], 'third'))
    const fourth = await write(commitObject([third], 'fourth'))
    const orphan = await write(commitObject([], 'orphan'))
    const mergeBases = () => gitProcessCounts().get('merge-base')?.started ?? 0
    try {
      const before = mergeBases()
      assert.equal(await repo.isAncestor(second, fourth, env), true)
      assert.equal(await repo.isAncestor(fourth, fourth, env), true)
      assert.equal(mergeBases(), before, 'a line of single parents is followed without git')
      assert.equal(await repo.isAncestor(second, orphan, env), false)
      assert.equal(await repo.isAncestor(fourth, second, env), false)
      assert.ok(mergeBases() > before, 'what the line does not show is git\'s to answer')
      // A replacement of a commit on the way changes its parents for git: the walk leaves it to git.
      const replacement = await write(commitObject([], 'replacement'), {})
      await repo.run(['update-ref', `refs/replace/${third}`, replacement])
      assert.equal(await repo.isAncestor(second, fourth, env), false)
      await repo.run(['update-ref', '-d', `refs/replace/${third}`])
      assert.equal(await repo.isAncestor(second, fourth, env), true)
    } finally {
      await fs.rm(quarantine, { recursive: true, force: true })
    }
  })

  it('keeps reading after many requests in flight at once', async () => {
    const reads = await Promise.all(Array.from({ length: 200 }, () => repo.read('main:README.md')))
    assert.ok(reads.every((r) => r?.data.toString() === 'hello\nworld\n'))
    assert.equal(await repo.info('main:missing'), null)
  })

  it('answers each of the lookups and reads asked in one turn, misses between them included, in order', async () => {
    const head = await repo.resolveCommit('main')
    // One turn of the event loop: every command goes to git in one write, answered at its flush.
    const [tip, readme, missing, tree, again, none] = await Promise.all([
      repo.info('main^{commit}'), repo.read('main:README.md'), repo.read('main:nope'), repo.info('main:src'),
      repo.read('main:README.md'), repo.info('0000000000000000000000000000000000000001'),
    ])
    assert.equal(tip?.oid, head)
    assert.equal(readme?.data.toString(), 'hello\nworld\n')
    assert.equal(missing, null)
    assert.equal(tree, null, 'src was emptied by the second commit')
    assert.equal(again?.oid, readme?.oid)
    assert.equal(none, null)
  })

  it('reads a commit by its id from memory again, and a branch name always as it is now', async () => {
    const head = (await repo.resolveCommit('main'))!
    const first = await repo.readCommit(head)
    assert.equal(await repo.readCommit(head), first, 'the same commit, kept')
    const next = await writeCommit(repo, { parent: head, message: 'third', author: who, committer: who, changes: [{ path: 'c.txt', content: Buffer.from('c\n') }] })
    assert.equal((await repo.readCommit('main'))?.id, head)
    assert.equal(await repo.compareAndSwapRef('refs/heads/main', next, head), true)
    assert.equal((await repo.readCommit('main'))?.id, next, 'a branch name is read anew')
    assert.deepEqual((await repo.readCommit(next))?.parents, [head])
    assert.equal(await repo.readCommit('1111111111111111111111111111111111111111'), null)
  })
})
