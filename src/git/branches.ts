// Branches of a repository as git knows them: every branch with its tip in one `for-each-ref`,
// one branch through the cat-file reader, and which branches are merged into a commit in one
// `for-each-ref --merged` walk. What the API shows of them (protection, views) is the finders'.
import { BRANCH_PREFIX, isValidRefName } from './ref-names.js'
import type { GitRepository } from './repository.js'

const MAX_REF_PATTERNS = 100

export interface BranchTip {
  name: string
  commitId: string
}

/** Every branch with its tip, sorted by name (git's byte order). */
export async function branchTips(repo: GitRepository): Promise<BranchTip[]> {
  const out = await repo.run(['for-each-ref', '--format=%(objectname) %(refname)', BRANCH_PREFIX])
  const tips: BranchTip[] = []
  for (const line of out.split('\n')) {
    const space = line.indexOf(' ')
    if (space === -1) continue
    tips.push({ name: line.slice(space + 1 + BRANCH_PREFIX.length), commitId: line.slice(0, space) })
  }
  return tips
}

/** One branch's tip through the cat-file reader; null when no such branch exists. */
export async function findBranchTip(repo: GitRepository, name: string): Promise<BranchTip | null> {
  if (!isValidRefName(name)) return null
  const info = await repo.info(`${BRANCH_PREFIX}${name}`)
  return info === null || info.type !== 'commit' ? null : { name, commitId: info.oid }
}

/** The commit the default branch points at; null when it has none yet. */
export async function defaultBranchTip(repo: GitRepository, defaultBranch: string | null): Promise<string | null> {
  if (defaultBranch === null) return null
  return (await findBranchTip(repo, defaultBranch))?.commitId ?? null
}

/**
 * The branches among `tips` that are merged into `commitId`: reachable from it without being at
 * it, as the original counts them for the `merged` flag and for deleting merged branches. One
 * `for-each-ref --merged` walk over just those branches.
 */
export async function branchesMergedInto(repo: GitRepository, commitId: string, tips: readonly BranchTip[]): Promise<Set<string>> {
  const wanted = new Set(tips.filter((tip) => tip.commitId !== commitId).map((tip) => tip.name))
  if (wanted.size === 0) return new Set()
  // A pattern matches its ref and the refs below it (`a` also `a/b`); only the wanted names count.
  // Past a page's worth of names, walking every branch is cheaper than a long command line.
  const patterns = wanted.size > MAX_REF_PATTERNS ? [BRANCH_PREFIX] : [...wanted].map((name) => `${BRANCH_PREFIX}${name}`)
  const out = await repo.run(['for-each-ref', `--merged=${commitId}`, '--format=%(refname)', ...patterns])
  const merged = new Set<string>()
  for (const ref of out.split('\n')) {
    const name = ref.slice(BRANCH_PREFIX.length)
    if (wanted.has(name)) merged.add(name)
  }
  return merged
}
