// Comparison of two commits (spec: Repository, compare result), as the original computes it: the
// commits reachable from `to` but not from `from`, oldest first; the diff from the merge base to
// `to` (or straight from `from` to `to`); and whether that diff is beyond the size the original
// renders at once (`compare_timeout`: its default diff limits). Bounded: at most
// COMPARE_COMMITS_LIMIT commits (the newest) and the diff within HARD_DIFF_LIMITS.
import { HARD_DIFF_LIMITS, diffCommits, diffOverflows, type DiffEntry } from './diff.js'
import type { Commit, GitRepository } from './repository.js'

/**
 * The original's MergeRequestDiff::COMMITS_SAFE_SIZE, which its compare page shows at most (and
 * its later API gives anonymous callers): the newest 100 commits of the range.
 */
export const COMPARE_COMMITS_LIMIT = 100

export interface Comparison {
  /** Oldest first; the newest COMPARE_COMMITS_LIMIT of the range. */
  commits: Commit[]
  diffs: DiffEntry[]
  /** The diff is past the original's default limits (files after the last may be left out). */
  overflow: boolean
  /** Both sides are the same commit. */
  same: boolean
}

/** Compares two resolved commit ids; `expanded` as diffCommits takes it (the API's diffs are). */
export async function compareCommits(repo: GitRepository, from: string, to: string, straight: boolean, expanded = true): Promise<Comparison> {
  if (from === to) return { commits: [], diffs: [], overflow: false, same: true }
  // --max-count applies before --reverse: the newest commits, then oldest first, so the last is `to`.
  const [ids, base] = await Promise.all([
    repo.run(['rev-list', '--reverse', `--max-count=${COMPARE_COMMITS_LIMIT}`, '--end-of-options', to, `^${from}`]),
    straight ? Promise.resolve(from) : repo.mergeBase(from, to),
  ])
  const [commits, collection] = await Promise.all([
    repo.readCommits(ids.split('\n').filter((id) => id !== '')),
    diffCommits(repo, base, to, { limits: HARD_DIFF_LIMITS, expanded }),
  ])
  return { commits, diffs: collection.diffs, overflow: diffOverflows(collection), same: false }
}
