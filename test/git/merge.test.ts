// The merge plumbing against real temporary repositories: three-way merge trees (clean, conflicting,
// unrelated histories), commits written with commit-tree, the commits between two heads, a fork's
// commit fetched into another repository without moving a ref, and the refs a ref move brought in.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { RepositoryStorage } from '../../src/git/storage.js'
import type { GitRepository } from '../../src/git/repository.js'
import { writeCommit } from '../../src/git/write.js'
import { commitIdsBetween, commitTree, countCommitsBetween, fetchCommit, mergeTree, refsBroughtIn } from '../../src/git/merge.js'
import { scratchRepository, type ScratchRepository } from '../helpers/scratch-repository.js'

const who = { name: 'Ada', email: 'ada@example.com' }
const merger = { name: 'Merger', email: 'merger@example.com' }

describe('git merge plumbing', () => {
  let scratch: ScratchRepository
  let storage: RepositoryStorage
  let repo: GitRepository
  /** base → ours (a.txt changed); base → theirs (b.txt added); base → clash (a.txt changed otherwise). */
  const c = { base: '', ours: '', theirs: '', theirs2: '', clash: '', orphan: '' }
  const commit = (parent: string | null, files: Record<string, string>, message = 'change') => writeCommit(repo, {
    parent, message, author: who, committer: who,
    changes: Object.entries(files).map(([file, content]) => ({ path: file, content: Buffer.from(content) })),
  })

  before(async () => {
    scratch = await scratchRepository('ingot-merge-')
    ;({ storage, repo } = scratch)
    c.base = await commit(null, { 'a.txt': 'a\n' })
    c.ours = await commit(c.base, { 'a.txt': 'ours\n' })
    c.theirs = await commit(c.base, { 'b.txt': 'b\n' })
    c.theirs2 = await commit(c.theirs, { 'c.txt': 'c\n' })
    c.clash = await commit(c.base, { 'a.txt': 'clash\n' })
    c.orphan = await commit(null, { 'z.txt': 'z\n' })
  })
  after(() => scratch.close())

  it('merges trees, and answers null for conflicts and unrelated histories', async () => {
    const tree = await mergeTree(repo, c.ours, c.theirs)
    assert.ok(tree !== null)
    const entries = (await repo.run(['ls-tree', '-r', '--name-only', tree])).trim().split('\n')
    assert.deepEqual(entries, ['a.txt', 'b.txt'])
    assert.equal((await repo.run(['cat-file', 'blob', `${tree}:a.txt`])), 'ours\n')
    assert.equal(await mergeTree(repo, c.ours, c.clash), null)
    assert.equal(await mergeTree(repo, c.ours, c.orphan), null)
  })

  it('writes merge commits with their parents, message and signatures', async () => {
    const tree = (await mergeTree(repo, c.ours, c.theirs))!
    const id = await commitTree(repo, { tree, parents: [c.ours, c.theirs], message: 'Merge it\n\nbody', author: who, committer: merger })
    const written = (await repo.readCommit(id))!
    assert.deepEqual(written.parents, [c.ours, c.theirs])
    assert.equal(written.tree, tree)
    assert.equal(written.message.trimEnd(), 'Merge it\n\nbody')
    assert.equal(written.author.email, who.email)
    assert.equal(written.committer.email, merger.email)
    await assert.rejects(commitTree(repo, { tree, parents: ['--help'], message: 'x', author: who, committer: who }))
  })

  it('lists and counts the commits between two heads, newest first, by page', async () => {
    assert.equal(await countCommitsBetween(repo, [c.ours], c.theirs2), 2)
    assert.deepEqual(await commitIdsBetween(repo, [c.ours], c.theirs2), [c.theirs2, c.theirs])
    assert.deepEqual(await commitIdsBetween(repo, [c.ours], c.theirs2, { offset: 1, limit: 1 }), [c.theirs])
    assert.deepEqual(await commitIdsBetween(repo, [c.ours, c.theirs], c.theirs2), [c.theirs2])
    assert.equal(await countCommitsBetween(repo, [], c.theirs2), 3)
    await assert.rejects(countCommitsBetween(repo, ['--all'], c.theirs2))
    await assert.rejects(commitIdsBetween(repo, [], 'HEAD'))
  })

  it('fetches a commit of another repository without moving a ref', async () => {
    await storage.fork(1, 2)
    const fork = storage.open(2)
    const forkOnly = await writeCommit(fork, {
      parent: c.base, message: 'in the fork', author: who, committer: who, changes: [{ path: 'f.txt', content: Buffer.from('f\n') }],
    })
    assert.equal(await repo.info(forkOnly), null)
    const refsBefore = await repo.refNames()
    await fetchCommit(repo, storage.repositoryPath(2), forkOnly)
    assert.equal((await repo.readCommit(forkOnly))?.message, 'in the fork')
    assert.deepEqual(await repo.refNames(), refsBefore)
    // Already there: no fetch at all (a missing source would fail otherwise).
    await fetchCommit(repo, path.join(storage.root, 'nowhere.git'), forkOnly)
    await assert.rejects(fetchCommit(repo, storage.repositoryPath(2), 'not-an-id'))
  })

  it('finds the refs a move brought in', async () => {
    await repo.run(['update-ref', 'refs/merge-requests/1/head', c.theirs])
    await repo.run(['update-ref', 'refs/merge-requests/2/head', c.clash])
    await repo.run(['update-ref', 'refs/merge-requests/3/head', c.base])
    const merge = await commitTree(repo, { tree: (await mergeTree(repo, c.ours, c.theirs))!, parents: [c.ours, c.theirs], message: 'm', author: who, committer: who })
    assert.deepEqual(await refsBroughtIn(repo, 'refs/merge-requests/', merge, c.ours), new Map([['refs/merge-requests/1/head', c.theirs]]))
    assert.deepEqual(
      [...(await refsBroughtIn(repo, 'refs/merge-requests/', merge, null)).keys()].sort(),
      ['refs/merge-requests/1/head', 'refs/merge-requests/3/head'],
    )
  })
})
