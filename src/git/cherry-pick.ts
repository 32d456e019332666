// Cherry-pick and revert without a work tree (spec: Commits, cherry_pick and revert): a three-way
// merge by `git merge-tree --write-tree` of the change a commit makes (or undoes) into a target
// commit. git 2.39's merge-tree has no --merge-base, so the merge base is made explicit with
// throwaway commits of the three trees; they stay unreferenced and are collected by gc. Their
// identity and dates are fixed, so picking the same change again reuses the same objects. The
// picked tree becomes a commit with writePickCommit; moving the branch is the caller's.
import { GitError } from './command.js'
import type { Commit, GitRepository } from './repository.js'

export type PickMode = 'cherry-pick' | 'revert'

const SCAFFOLD_ENV = {
  GIT_AUTHOR_NAME: 'Ingot', GIT_AUTHOR_EMAIL: 'ingot@localhost', GIT_AUTHOR_DATE: '@1000000000 +0000',
  GIT_COMMITTER_NAME: 'Ingot', GIT_COMMITTER_EMAIL: 'ingot@localhost', GIT_COMMITTER_DATE: '@1000000000 +0000',
}

async function emptyTree(repo: GitRepository): Promise<string> {
  return (await repo.run(['mktree'], { input: '' })).trim()
}

async function treeOf(repo: GitRepository, commit: string): Promise<string> {
  const read = await repo.readCommit(commit)
  if (read === null) throw new Error(`commit ${commit} is missing`)
  return read.tree
}

async function scaffold(repo: GitRepository, tree: string, parent: string | null): Promise<string> {
  const parents = parent === null ? [] : ['-p', parent]
  return (await repo.run(['commit-tree', ...parents, '-m', 'scaffold', tree], { env: SCAFFOLD_ENV })).trim()
}

/**
 * The tree of `onto` (a commit id) with the change of `commit` applied (cherry-pick) or undone
 * (revert), measured against its first parent (the mainline of a merge); null when the merge
 * conflicts or changes nothing, as the original refuses both.
 */
export async function pickTree(repo: GitRepository, commit: Commit, onto: string, mode: PickMode): Promise<string | null> {
  const parentTree = commit.parents[0] === undefined ? await emptyTree(repo) : await treeOf(repo, commit.parents[0])
  const [baseTree, theirTree] = mode === 'cherry-pick' ? [parentTree, commit.tree] : [commit.tree, parentTree]
  const ourTree = await treeOf(repo, onto)
  const base = await scaffold(repo, baseTree, null)
  const [ours, theirs] = await Promise.all([scaffold(repo, ourTree, base), scaffold(repo, theirTree, base)])
  let tree: string
  try {
    tree = (await repo.run(['merge-tree', '--write-tree', '--no-messages', '--end-of-options', ours, theirs])).split('\n', 1)[0]?.trim() ?? ''
  } catch (err) {
    if (err instanceof GitError && err.exitCode === 1) return null
    throw err
  }
  return tree === '' || tree === ourTree ? null : tree
}

export interface PickIdentity {
  name: string
  email: string
  /** When the signature was made, in git's form (`@<seconds> <zone>`); default now. */
  date?: string
}

export interface PickCommit {
  tree: string
  parent: string
  message: string
  author: PickIdentity
  committer: PickIdentity
}

/** Writes the commit of a picked tree onto its parent and returns its id; no ref moves. */
export async function writePickCommit(repo: GitRepository, pick: PickCommit): Promise<string> {
  const env: Record<string, string> = {
    GIT_AUTHOR_NAME: pick.author.name, GIT_AUTHOR_EMAIL: pick.author.email,
    GIT_COMMITTER_NAME: pick.committer.name, GIT_COMMITTER_EMAIL: pick.committer.email,
    ...(pick.author.date === undefined ? {} : { GIT_AUTHOR_DATE: pick.author.date }),
    ...(pick.committer.date === undefined ? {} : { GIT_COMMITTER_DATE: pick.committer.date }),
  }
  return (await repo.run(['commit-tree', '-p', pick.parent, '-F', '-', pick.tree], { env, input: pick.message })).trim()
}
