// A project's empty repository is written by Ingot from the layout one `git init --bare` showed
// (git/storage.ts), not by git each time: it must be the very repository git would have made.
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runGit } from '../../src/git/command.js'
import { RepositoryStorage } from '../../src/git/storage.js'

interface Entry { path: string; mode: number; content: string | null }

/** Every file and directory under `top`, with its permission bits and content, in name order. */
function entriesOf(top: string): Entry[] {
  const entries: Entry[] = []
  const walk = (relative: string) => {
    for (const name of fs.readdirSync(path.join(top, relative)).sort()) {
      const entryPath = relative === '' ? name : `${relative}/${name}`
      const stat = fs.lstatSync(path.join(top, entryPath))
      const directory = stat.isDirectory()
      entries.push({ path: entryPath, mode: stat.mode & 0o7777, content: directory ? null : fs.readFileSync(path.join(top, entryPath), 'latin1') })
      if (directory) walk(entryPath)
    }
  }
  walk('')
  return entries
}

describe('repository storage', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ingot-storage-'))
  after(() => fs.rmSync(work, { recursive: true, force: true }))
  const storage = new RepositoryStorage(path.join(work, 'data'))

  it('makes a new project\'s repository exactly as git init --bare does, for each default branch', async () => {
    for (const [projectId, branch] of [[1, null], [2, 'main'], [3, 'release/v1.0']] as const) {
      await storage.create(projectId, branch)
      const byGit = path.join(work, `by-git-${projectId}.git`)
      await runGit(['init', '--bare', '--quiet', `--initial-branch=${branch ?? 'master'}`, byGit])
      assert.deepEqual(entriesOf(storage.repositoryPath(projectId)), entriesOf(byGit))
      const head = await runGit(['symbolic-ref', 'HEAD'], { gitDir: storage.repositoryPath(projectId) })
      assert.equal(head.trim(), `refs/heads/${branch ?? 'master'}`)
    }
  })

  it('leaves a branch name git refuses to git, which refuses it', async () => {
    await assert.rejects(storage.create(4, 'bad..name'))
    assert.equal(fs.existsSync(storage.repositoryPath(4)), false)
  })
})
