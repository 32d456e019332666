// The commits a push brought to a branch, for push events and hooks: the newest few in the order
// they were made, and how many there were in all.
import type { GitRepository } from './repository.js'

export interface PushedCommitIds {
  /** At most `limit` ids, oldest first. */
  ids: string[]
  total: number
}

function selectionArgs(newId: string, excluded: readonly string[]): string[] {
  return ['--end-of-options', newId, ...excluded.map((rev) => `^${rev}`)]
}

/** How many commits are reachable from `newId` but not from `excluded` (commit ids or full ref names). */
export async function countPushedCommits(repo: GitRepository, newId: string, excluded: readonly string[]): Promise<number> {
  return Number((await repo.run(['rev-list', '--count', ...selectionArgs(newId, excluded)])).trim())
}

/** Commits reachable from `newId` but not from `excluded` (commit ids or full ref names). */
export async function pushedCommitIds(repo: GitRepository, newId: string, excluded: readonly string[], limit: number): Promise<PushedCommitIds> {
  const [newest, total] = await Promise.all([
    repo.run(['rev-list', `--max-count=${limit}`, ...selectionArgs(newId, excluded)]),
    countPushedCommits(repo, newId, excluded),
  ])
  return { ids: newest.split('\n').filter((id) => id !== '').reverse(), total }
}
