// The git Ingot may run: a release with the fixes of CVE-2022-41903 (`git log --format` padding
// overflow) and CVE-2022-23521 (.gitattributes overflow), both reachable through what users push
// and ask for, and new enough for `git merge-tree --write-tree` (2.38), which merges use. Each
// maintained branch got the fixes in its own release, so the check is per branch, not one number.
import { runGit } from './command.js'

export interface GitVersion {
  major: number
  minor: number
  patch: number
}

/** The oldest release Ingot runs with on the newest branch; older branches are in FIXED_ON_BRANCH. */
export const MINIMUM_GIT_VERSION = '2.39.1'

/**
 * The first release of each older 2.x branch that carries both fixes. Branches before 2.38 got
 * them too (2.30.7 to 2.37.5) but lack `merge-tree --write-tree`, so they are refused all the same.
 */
const FIXED_ON_BRANCH: ReadonlyMap<number, number> = new Map([[38, 3], [39, 1]])

/** Every 2.x release after this branch came out with the fixes. */
const LAST_BRANCH_BEFORE_FIXES = 39

/** The version in `git --version`'s answer (`git version 2.39.5`, `…2.40.0.rc1`, `…2.39.5.windows.1`); null when there is none. */
export function parseGitVersion(output: string): GitVersion | null {
  const match = /^git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(output.trim())
  if (match === null) return null
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0) }
}

export function formatGitVersion(version: GitVersion): string {
  return `${version.major}.${version.minor}.${version.patch}`
}

/** Whether Ingot may run with this git. */
export function isSupportedGitVersion({ major, minor, patch }: GitVersion): boolean {
  if (major !== 2) return major > 2
  if (minor > LAST_BRANCH_BEFORE_FIXES) return true
  const fixedAt = FIXED_ON_BRANCH.get(minor)
  return fixedAt !== undefined && patch >= fixedAt
}

/** What stops Ingot from starting with the git on the PATH, or null when it may start. */
export async function gitVersionProblem(): Promise<string | null> {
  let output: string
  try {
    output = await runGit(['--version'], { timeoutMs: 10_000 })
  } catch (err) {
    return `git could not be run (${err instanceof Error ? err.message : String(err)}); Ingot needs git ${MINIMUM_GIT_VERSION} or newer on the PATH`
  }
  const version = parseGitVersion(output)
  if (version === null) return `git answered "${output.trim()}" to --version; Ingot needs git ${MINIMUM_GIT_VERSION} or newer on the PATH`
  if (isSupportedGitVersion(version)) return null
  return `git ${formatGitVersion(version)} is too old: Ingot needs git ${MINIMUM_GIT_VERSION} or newer (or 2.38.3 or newer on the 2.38 branch), ` +
    'the releases with the fixes of CVE-2022-41903 and CVE-2022-23521'
}
