// Merging without a work tree (merge requests): the three-way merge of two commits by
// `git merge-tree --write-tree`, commits written with commit-tree, the commits a merge request
// brings (reachable from its head but not from its target), and fetching a fork's commits into
// the target repository. Refs never move here: the caller moves them by compare-and-swap.
import { GitError } from './command.js'
import type { GitRepository } from './repository.js'

/** A full object id, as refs and merge request rows hold them. */
const FULL_OBJECT_ID = /^[0-9a-f]{40}$/

function assertObjectId(id: string): void {
  if (!FULL_OBJECT_ID.test(id)) throw new Error(`not an object id: ${id}`)
}

/**
 * The tree of `theirs` merged into `ours` (commit ids); null when the merge conflicts or the two
 * share no history (git refuses to merge unrelated histories, and so does the original).
 */
export async function mergeTree(repo: GitRepository, ours: string, theirs: string): Promise<string | null> {
  try {
    const out = await repo.run(['merge-tree', '--write-tree', '--no-messages', '--end-of-options', ours, theirs])
    return out.split('\n', 1)[0]?.trim() || null
  } catch (err) {
    if (err instanceof GitError && (err.exitCode === 1 || /unrelated histories/.test(err.stderr))) return null
    throw err
  }
}

export interface Signer {
  name: string
  email: string
}

export interface NewMergeCommit {
  tree: string
  /** First parent first: the target's head, then what is merged into it. */
  parents: readonly string[]
  message: string
  author: Signer
  committer: Signer
}

/** Writes the commit and returns its id; no ref moves. */
export async function commitTree(repo: GitRepository, commit: NewMergeCommit): Promise<string> {
  for (const parent of commit.parents) assertObjectId(parent)
  const env = {
    GIT_AUTHOR_NAME: commit.author.name, GIT_AUTHOR_EMAIL: commit.author.email,
    GIT_COMMITTER_NAME: commit.committer.name, GIT_COMMITTER_EMAIL: commit.committer.email,
  }
  const parents = commit.parents.flatMap((parent) => ['-p', parent])
  return (await repo.run(['commit-tree', ...parents, '-F', '-', commit.tree], { env, input: commit.message })).trim()
}

/** `head ^exclude…`: the commits reachable from head and from none of `exclude`. */
function rangeArgs(exclude: readonly string[], head: string): string[] {
  for (const id of [head, ...exclude]) assertObjectId(id)
  return ['--end-of-options', head, ...exclude.map((id) => `^${id}`)]
}

/** How many commits are reachable from `head` and from none of `exclude`. */
export async function countCommitsBetween(repo: GitRepository, exclude: readonly string[], head: string): Promise<number> {
  return Number((await repo.run(['rev-list', '--count', ...rangeArgs(exclude, head)])).trim())
}

/** Ids of the commits reachable from `head` and from none of `exclude`, newest first, a page of them. */
export async function commitIdsBetween(
  repo: GitRepository, exclude: readonly string[], head: string, page: { offset: number; limit: number } | null = null,
): Promise<string[]> {
  const paging = page === null ? [] : [`--skip=${page.offset}`, `--max-count=${page.limit}`]
  const out = await repo.run(['rev-list', ...paging, ...rangeArgs(exclude, head)])
  return out.split('\n').filter((id) => id !== '')
}

/**
 * Copies `commit` and what it needs from another repository on this disk (a fork: its objects are
 * its own once it diverges) into `repo`, without touching a ref of either. A commit `repo` has
 * already costs no process beyond the lookup.
 */
export async function fetchCommit(repo: GitRepository, fromGitDir: string, commit: string): Promise<void> {
  assertObjectId(commit)
  if ((await repo.info(commit)) !== null) return
  // Wanting an object by id needs the serving side's consent; the serving side is our own fork.
  await repo.run([
    '-c', 'uploadpack.allowAnySHA1InWant=true',
    'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options', fromGitDir, commit,
  ], { timeoutMs: 600_000 })
}

/**
 * The refs under `prefix` whose commits `newId` reaches and `oldId` (null: nothing) does not: the
 * ones a ref move from `oldId` to `newId` brought in. One walk, whatever the number of refs.
 */
export async function refsBroughtIn(repo: GitRepository, prefix: string, newId: string, oldId: string | null): Promise<Map<string, string>> {
  assertObjectId(newId)
  const args = ['for-each-ref', '--format=%(objectname) %(refname)', `--merged=${newId}`]
  if (oldId !== null) {
    assertObjectId(oldId)
    args.push(`--no-merged=${oldId}`)
  }
  const out = await repo.run([...args, prefix])
  const refs = new Map<string, string>()
  for (const line of out.split('\n')) {
    const space = line.indexOf(' ')
    if (space !== -1) refs.set(line.slice(space + 1), line.slice(0, space))
  }
  return refs
}
