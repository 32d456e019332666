// Writes commits without a work tree: blobs with hash-object, the tree in a temporary index
// (read-tree, update-index, write-tree), the commit with commit-tree. Moving a branch to the new
// commit is the caller's compare-and-swap (GitRepository.compareAndSwapRef).
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { GitRepository } from './repository.js'
import { INDEX_FILE_PREFIX } from './sweep.js'

export interface TreeChange {
  /** Where the content goes; absent for a removal only. */
  path: string
  /** New content of the file; absent keeps the current blob (with `fromPath`, a move). */
  content?: Buffer
  /** The path whose blob moves here (the caller removes it with a separate change). */
  fromPath?: string
  /** Removes the path instead of writing it. */
  remove?: boolean
  /** File mode; default keeps the current one, or 100644 for new files. */
  executable?: boolean
}

export interface Identity {
  name: string
  email: string
}

export interface NewCommit {
  /** The commit the changes apply on; null for the first commit of a repository. */
  parent: string | null
  changes: readonly TreeChange[]
  message: string
  author: Identity
  committer: Identity
}

function identityEnv(author: Identity, committer: Identity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email,
  }
}

/** Creates the commit and returns its id; the repository's refs do not move. */
export async function writeCommit(repo: GitRepository, commit: NewCommit): Promise<string> {
  const indexFile = path.join(os.tmpdir(), `${INDEX_FILE_PREFIX}${randomBytes(8).toString('hex')}`)
  const env = { GIT_INDEX_FILE: indexFile }
  try {
    await repo.run(commit.parent === null ? ['read-tree', '--empty'] : ['read-tree', '--end-of-options', commit.parent], { env })
    const lines: string[] = []
    for (const change of commit.changes) {
      if (change.remove) {
        lines.push(`0 ${'0'.repeat(40)}\t${change.path}`)
        continue
      }
      const current = await currentEntry(repo, env, change.fromPath ?? change.path)
      const blob = change.content === undefined
        ? current?.id
        : (await repo.run(['hash-object', '-w', '--stdin'], { input: change.content })).trim()
      if (blob === undefined) throw new Error(`no blob for ${change.path}`)
      const mode = change.executable === undefined ? current?.mode ?? '100644' : change.executable ? '100755' : '100644'
      lines.push(`${mode} ${blob}\t${change.path}`)
    }
    if (lines.length > 0) await repo.run(['update-index', '-z', '--index-info'], { env, input: `${lines.join('\0')}\0` })
    const tree = (await repo.run(['write-tree'], { env })).trim()
    const parents = commit.parent === null ? [] : ['-p', commit.parent]
    return (await repo.run(['commit-tree', ...parents, '-F', '-', tree], {
      env: identityEnv(commit.author, commit.committer), input: commit.message,
    })).trim()
  } finally {
    await fs.rm(indexFile, { force: true })
  }
}

/** The blob and mode at a path of the temporary index; null when absent. */
async function currentEntry(repo: GitRepository, env: Record<string, string>, filePath: string) {
  const out = await repo.run(['ls-files', '-s', '-z', '--', filePath], { env })
  const record = out.split('\0').find((line) => line.endsWith(`\t${filePath}`))
  if (record === undefined) return null
  const [mode = '', id = ''] = record.split(' ')
  return { mode, id }
}
