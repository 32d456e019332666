// Repositories for tests: commits written straight into a project's bare repository (no push, so
// no events or default-branch bookkeeping), each branch moved by compare-and-swap.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { TestApp } from './app.js'
import { NULL_OID, type GitRepository } from '../../src/git/repository.js'
import { writeCommit, type Identity, type TreeChange } from '../../src/git/write.js'

const run = promisify(execFile)

export const TEST_AUTHOR: Identity = { name: 'Ada Lovelace', email: 'ada@example.com' }

/** Path → new content; null removes the path. */
export type FileChanges = Record<string, string | Buffer | null>

export interface CommitOptions {
  branch?: string
  message?: string
  author?: Identity
  /** The parent; default the branch's tip (none when the branch does not exist yet). */
  parent?: string | null
  /** Paths written with the executable bit. */
  executable?: readonly string[]
}

/** Writes one commit of `files` onto `branch` (default master) of the project; returns its id. */
export async function commitFiles(t: TestApp, projectId: number, files: FileChanges, options: CommitOptions = {}): Promise<string> {
  const repo = t.ctx.repositories.open(projectId)
  const branch = options.branch ?? 'master'
  const tip = await repo.resolveCommit(`refs/heads/${branch}`)
  const parent = options.parent === undefined ? tip : options.parent
  const changes: TreeChange[] = Object.entries(files).map(([path, content]) => content === null
    ? { path, remove: true }
    : { path, content: Buffer.from(content), ...(options.executable?.includes(path) ? { executable: true } : {}) })
  const author = options.author ?? TEST_AUTHOR
  const id = await writeCommit(repo, { parent, changes, message: options.message ?? `Change ${Object.keys(files).join(', ')}`, author, committer: author })
  if (!await repo.compareAndSwapRef(`refs/heads/${branch}`, id, tip ?? NULL_OID)) throw new Error(`${branch} moved meanwhile`)
  return id
}

export interface CommitLine {
  /** The ref the line is written on; it ends at the last commit. */
  ref: string
  /** The first commit's parent (the ref's tip, if the ref exists); null for a new root. */
  parent: string | null
  count: number
  /** The one file each commit changes, and its content in commit `i` (from 0). */
  path: string
  contentOf: (i: number) => string
  messageOf: (i: number) => string
  author?: Identity
}

/**
 * Writes a line of single-parent commits in one `git fast-import` and returns their ids, oldest
 * first. For tests that need a long history: writeCommit starts several git processes per commit.
 */
export async function writeCommitLine(repo: GitRepository, line: CommitLine): Promise<string[]> {
  const who = line.author ?? TEST_AUTHOR
  const signature = `${who.name} <${who.email}> ${Math.floor(Date.now() / 1000)} +0000`
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`
  let stream = ''
  for (let i = 0; i < line.count; i++) {
    stream += `commit ${line.ref}\nmark :${i + 1}\nauthor ${signature}\ncommitter ${signature}\n${data(line.messageOf(i))}`
    if (i === 0 && line.parent !== null) stream += `from ${line.parent}\n`
    stream += `M 100644 inline ${line.path}\n${data(line.contentOf(i))}get-mark :${i + 1}\n`
  }
  const ids = (await repo.run(['fast-import', '--quiet'], { input: stream })).split('\n').filter((id) => id !== '')
  if (ids.length !== line.count) throw new Error(`fast-import wrote ${ids.length} of ${line.count} commits`)
  return ids
}

/**
 * git on a bare repository of a test's own, run as a user's git would run it (no system or user
 * configuration, `home` for HOME): `git(...args)` on the repository `gitDir()` names at the call,
 * and `commit(message, parent?)`, a commit of the empty tree.
 */
export function plainGit(home: () => string, gitDir: () => string) {
  const git = async (...args: string[]) => (await run('git', [
    '-c', 'user.name=Ada', '-c', 'user.email=ada@example.com', '--git-dir', gitDir(), ...args,
  ], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home(), GIT_CONFIG_NOSYSTEM: '1' } })).stdout.trim()
  const commit = async (message: string, parent?: string) => {
    const tree = await git('hash-object', '-t', 'tree', '-w', '/dev/null')
    return git('commit-tree', tree, '-m', message, ...(parent === undefined ? [] : ['-p', parent]))
  }
  return { git, commit }
}
