// Comparison of two commits (spec: Repository, compare result), as the original computes it: the
// commits reachable from `to` but not from `from`, oldest first; the diff from the merge base to
// `to` (or straight from `from` to `to`); and whether that diff is beyond the size the original
// renders at once (`compare_timeout`).
import { diffCommits, type DiffEntry } from './diff.js'
import type { Commit, GitRepository } from './repository.js'

/** The original's collection limits: past 100 files, 5,000 lines or 500 KB a diff overflows. */
const MAX_FILES = 100
const MAX_LINES = 5000
const MAX_BYTES = MAX_FILES * 5 * 1024

export interface Comparison {
  /** Oldest first. */
  commits: Commit[]
  diffs: DiffEntry[]
  overflow: boolean
  /** Both sides are the same commit. */
  same: boolean
}

function lineCount(diff: string): number {
  if (diff === '') return 0
  let lines = 1
  for (let at = diff.indexOf('\n'); at !== -1 && at < diff.length - 1; at = diff.indexOf('\n', at + 1)) lines += 1
  return lines
}

/** Whether diffs go past the limits the original shows a diff within. */
export function diffOverflows(diffs: readonly DiffEntry[]): boolean {
  if (diffs.length > MAX_FILES) return true
  let lines = 0
  let bytes = 0
  for (const entry of diffs) {
    lines += lineCount(entry.diff)
    bytes += Buffer.byteLength(entry.diff)
    if (lines >= MAX_LINES || bytes >= MAX_BYTES) return true
  }
  return false
}

/** Compares two resolved commit ids. */
export async function compareCommits(repo: GitRepository, from: string, to: string, straight: boolean): Promise<Comparison> {
  if (from === to) return { commits: [], diffs: [], overflow: false, same: true }
  const [ids, base] = await Promise.all([
    repo.run(['rev-list', '--reverse', '--end-of-options', to, `^${from}`]),
    straight ? Promise.resolve(from) : repo.mergeBase(from, to),
  ])
  const [commits, diffs] = await Promise.all([
    repo.readCommits(ids.split('\n').filter((id) => id !== '')),
    diffCommits(repo, base, to),
  ])
  return { commits, diffs, overflow: diffOverflows(diffs), same: false }
}
