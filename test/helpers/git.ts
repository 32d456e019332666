// Repositories for tests: commits written straight into a project's bare repository (no push, so
// no events or default-branch bookkeeping), each branch moved by compare-and-swap.
import type { TestApp } from './app.js'
import { NULL_OID } from '../../src/git/repository.js'
import { writeCommit, type Identity, type TreeChange } from '../../src/git/write.js'

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
