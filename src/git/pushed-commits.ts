// The commits a push brought to a branch, for push events and hooks: the newest few in the order
// they were made, and how many there were in all. Most pushes add a few commits in a line on top
// of the branch's old tip: those are found by walking parents through the long-lived cat-file
// reader, with no git process; anything else (merges, rewrites, new branches) asks rev-list.
import type { GitRepository } from './repository.js'

export interface PushedCommitIds {
  /** At most `limit` ids, oldest first. */
  ids: string[]
  total: number
}

function selectionArgs(newId: string, excluded: readonly string[]): string[] {
  return ['--end-of-options', newId, ...excluded.map((rev) => `^${rev}`)]
}

/** Ids as git writes them out (SHA-1 or SHA-256), so that a walk's ids compare with them. */
const FULL_OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/** How far the walk along single parents goes before leaving the question to rev-list. */
const LINE_WALK_LIMIT = 100

/**
 * The commits from `newId` back to `excluded`'s one commit, newest first, when they form a line of
 * single-parent commits at most LINE_WALK_LIMIT long: then they are exactly what rev-list would
 * list (a line leaves it no order to choose). Null otherwise.
 */
async function lineOfCommits(repo: GitRepository, newId: string, excluded: readonly string[]): Promise<string[] | null> {
  const oldId = excluded.length === 1 ? excluded[0]! : null
  if (oldId === null || !FULL_OBJECT_ID.test(oldId) || !FULL_OBJECT_ID.test(newId)) return null
  const line: string[] = []
  for (let id = newId; id !== oldId;) {
    if (line.length === LINE_WALK_LIMIT) return null
    const commit = await repo.readCommit(id)
    if (commit === null || commit.parents.length !== 1) return null
    line.push(id)
    id = commit.parents[0]!
  }
  return line
}

/** How many commits are reachable from `newId` but not from `excluded` (commit ids or full ref names). */
export async function countPushedCommits(repo: GitRepository, newId: string, excluded: readonly string[]): Promise<number> {
  const line = await lineOfCommits(repo, newId, excluded)
  if (line !== null) return line.length
  return Number((await repo.run(['rev-list', '--count', ...selectionArgs(newId, excluded)])).trim())
}

/** Commits reachable from `newId` but not from `excluded` (commit ids or full ref names). */
export async function pushedCommitIds(repo: GitRepository, newId: string, excluded: readonly string[], limit: number): Promise<PushedCommitIds> {
  const line = await lineOfCommits(repo, newId, excluded)
  if (line !== null) return { ids: line.slice(0, limit).reverse(), total: line.length }
  const [newest, total] = await Promise.all([
    repo.run(['rev-list', `--max-count=${limit}`, ...selectionArgs(newId, excluded)]),
    countPushedCommits(repo, newId, excluded),
  ])
  return { ids: newest.split('\n').filter((id) => id !== '').reverse(), total }
}
