// The files each pushed commit changed, as push hooks list them, for many commits in one git
// process: against a real repository with a root commit, edits, a removal, a rename, an empty
// commit and a merge (measured against its first parent), and paths that look like commit ids.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { GitRepository } from '../../src/git/repository.js'
import { writeCommit, type TreeChange } from '../../src/git/write.js'
import { changedFilesOfCommits } from '../../src/git/diff.js'
import { gitProcessCounts } from '../../src/git/processes.js'
import { scratchRepository, type ScratchRepository } from '../helpers/scratch-repository.js'

const who = { name: 'Ada', email: 'ada@example.com' }

describe('changed files of commits', () => {
  let scratch: ScratchRepository
  let repo: GitRepository
  before(async () => {
    scratch = await scratchRepository('ingot-changed-')
    repo = scratch.repo
  })
  after(() => scratch.close())

  it('lists added, modified and removed paths per commit, from one diff-tree', async () => {
    const commit = (parent: string | null, changes: TreeChange[]) => writeCommit(repo, { parent, message: 'm', author: who, committer: who, changes })
    const idLike = 'a'.repeat(40)
    const root = await commit(null, [
      { path: 'README.md', content: Buffer.from('hello\n') },
      { path: 'long.txt', content: Buffer.from('line\n'.repeat(50)) },
      { path: 'gone.txt', content: Buffer.from('bye\n') },
    ])
    const edit = await commit(root, [{ path: 'README.md', content: Buffer.from('hello again\n') }, { path: idLike, content: Buffer.from('x\n') }, { path: 'gone.txt', remove: true }])
    const rename = await commit(edit, [{ path: 'long.txt', remove: true }, { path: 'moved/long.txt', content: Buffer.from('line\n'.repeat(50)) }])
    const empty = await commit(rename, [])
    const side = await commit(root, [{ path: 'side.txt', content: Buffer.from('side\n') }])
    const identity = { GIT_AUTHOR_NAME: who.name, GIT_AUTHOR_EMAIL: who.email, GIT_COMMITTER_NAME: who.name, GIT_COMMITTER_EMAIL: who.email }
    // The merge's tree: the first parent's with side.txt added.
    const merged = await commit(empty, [{ path: 'side.txt', content: Buffer.from('side\n') }])
    const mergeTree = (await repo.run(['rev-parse', `${merged}^{tree}`])).trim()
    const merge = (await repo.run(['commit-tree', mergeTree, '-p', empty, '-p', side, '-m', 'merge'], { env: identity })).trim()

    const commits = await repo.readCommits([root, edit, rename, empty, merge])
    const started = gitProcessCounts().get('diff-tree')?.started ?? 0
    const files = await changedFilesOfCommits(repo, commits)
    assert.equal(gitProcessCounts().get('diff-tree')?.started, started + 1)
    assert.deepEqual(files, [
      { added: ['README.md', 'gone.txt', 'long.txt'], modified: [], removed: [] },
      { added: [idLike], modified: ['README.md'], removed: ['gone.txt'] },
      { added: [], modified: ['moved/long.txt'], removed: [] },
      { added: [], modified: [], removed: [] },
      // Against its first parent, the merge brings side.txt (against the second it would be everything else).
      { added: ['side.txt'], modified: [], removed: [] },
    ])
    assert.deepEqual(await changedFilesOfCommits(repo, []), [])
  })
})
