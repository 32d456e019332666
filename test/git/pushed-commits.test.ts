// The commits a push brought, against a real repository: a line of single-parent commits on the old
// tip is walked through the cat-file reader without a git process, and every other shape (longer
// lines, merges, rewrites, several excluded refs) gives what rev-list gives.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { GitRepository } from '../../src/git/repository.js'
import { writeCommit } from '../../src/git/write.js'
import { countPushedCommits, pushedCommitIds } from '../../src/git/pushed-commits.js'
import { gitProcessCounts } from '../../src/git/processes.js'
import { scratchRepository, type ScratchRepository } from '../helpers/scratch-repository.js'
import { writeCommitLine } from '../helpers/git.js'

const who = { name: 'Ada', email: 'ada@example.com' }

describe('commits of a push', () => {
  let scratch: ScratchRepository
  let repo: GitRepository
  /** line[0] is the root; each next commit has the one before as its only parent. */
  const line: string[] = []

  before(async () => {
    scratch = await scratchRepository('ingot-pushed-')
    repo = scratch.repo
    line.push(...await writeCommitLine(repo, {
      ref: 'refs/heads/master', parent: null, count: 130, path: 'n.txt', contentOf: (i) => `${i}\n`, messageOf: (i) => `commit ${i}`, author: who,
    }))
  })
  after(() => scratch.close())

  /** What rev-list says: the newest `limit` ids oldest first, and the count. */
  async function revList(newId: string, excluded: readonly string[], limit: number) {
    const args = ['--end-of-options', newId, ...excluded.map((rev) => `^${rev}`)]
    const ids = (await repo.run(['rev-list', `--max-count=${limit}`, ...args])).split('\n').filter(Boolean).reverse()
    return { ids, total: Number((await repo.run(['rev-list', '--count', ...args])).trim()) }
  }

  const revListsStarted = () => gitProcessCounts().get('rev-list')?.started ?? 0

  it('walks a line of commits on the old tip without starting git', async () => {
    const [oldId, newId] = [line[10]!, line[35]!]
    const expected = await revList(newId, [oldId], 20)
    const before = revListsStarted()
    assert.deepEqual(await pushedCommitIds(repo, newId, [oldId], 20), expected)
    assert.equal(expected.total, 25)
    assert.deepEqual(expected.ids, line.slice(16, 36))
    assert.equal(await countPushedCommits(repo, newId, [oldId]), 25)
    assert.deepEqual(await pushedCommitIds(repo, newId, [newId], 20), { ids: [], total: 0 })
    assert.equal(revListsStarted(), before, 'no rev-list for a line')
  })

  it('asks rev-list for lines longer than the walk goes, merges, rewrites and several excluded refs', async () => {
    const tree = (await repo.run(['rev-parse', `${line[129]!}^{tree}`])).trim()
    const side = await writeCommit(repo, { parent: line[100]!, message: 'side', author: who, committer: who, changes: [{ path: 's.txt', content: Buffer.from('s\n') }] })
    const identity = { GIT_AUTHOR_NAME: who.name, GIT_AUTHOR_EMAIL: who.email, GIT_COMMITTER_NAME: who.name, GIT_COMMITTER_EMAIL: who.email }
    const merge = (await repo.run(['commit-tree', tree, '-p', line[129]!, '-p', side, '-m', 'merge'], { env: identity })).trim()
    const cases: [string, string[]][] = [
      [line[129]!, [line[1]!]], // 128 commits: past the walk's reach
      [merge, [line[90]!]], // a merge in the range
      [side, [line[120]!]], // not on top of the old tip (a force push)
      [line[50]!, [line[10]!, line[20]!]], // a new branch, other branches excluded
    ]
    for (const [newId, excluded] of cases) {
      const expected = await revList(newId, excluded, 20)
      const before = revListsStarted()
      assert.deepEqual(await pushedCommitIds(repo, newId, excluded, 20), expected, `${newId} ^${excluded.join(' ^')}`)
      assert.equal(await countPushedCommits(repo, newId, excluded), expected.total)
      assert.ok(revListsStarted() > before, 'rev-list answered')
    }
  })
})
