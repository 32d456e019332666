// The commits a push brought to a branch, for push hooks: the newest few in the order they were
// made, and how many there were in all.
import type { GitRepository } from './repository.js'

export interface PushedCommitIds {
  /** At most `limit` ids, oldest first. */
  ids: string[]
  total: number
}

/** Commits reachable from `newId` but not from `excluded` (commit ids or full ref names). */
export async function pushedCommitIds(repo: GitRepository, newId: string, excluded: readonly string[], limit: number): Promise<PushedCommitIds> {
  const selection = ['--end-of-options', newId, ...excluded.map((rev) => `^${rev}`)]
  const [newest, count] = await Promise.all([
    repo.run(['rev-list', `--max-count=${limit}`, ...selection]),
    repo.run(['rev-list', '--count', ...selection]),
  ])
  return { ids: newest.split('\n').filter((id) => id !== '').reverse(), total: Number(count.trim()) }
}
