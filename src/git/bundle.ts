// git bundles, the repository's form in the original's export archive (format 0.2.4, research §1.2):
// `project.bundle` and `project.wiki.bundle` are `git bundle create <file> --all`, so every ref
// (branches, tags, merge request heads, keep-arounds, HEAD) travels; a repository without refs has
// no bundle. An import restores one into a repository: the bundle is a file the import extracted
// into its own temporary directory, verified before anything is fetched.
import { runGit } from './command.js'
import { BRANCH_PREFIX } from './ref-names.js'
import type { GitRepository } from './repository.js'

/** How long making, verifying or fetching one bundle may take (as long as a full pack of a large repository). */
const BUNDLE_TIMEOUT_MS = 60 * 60_000

/**
 * Writes a bundle of every ref of `repo` to `file` (a path Ingot chose); false, writing nothing,
 * when the repository has no ref at all (git refuses an empty bundle).
 */
export async function createBundle(repo: GitRepository, file: string, options: { signal?: AbortSignal } = {}): Promise<boolean> {
  const signal = options.signal === undefined ? {} : { signal: options.signal }
  const anyRef = (await repo.run(['for-each-ref', '--count=1', '--format=%(refname)'], signal)).trim()
  if (anyRef === '') return false
  await repo.run(['bundle', 'create', '--quiet', file, '--all'], { timeoutMs: BUNDLE_TIMEOUT_MS, maxOutputBytes: 1024 * 1024, ...signal })
  return true
}

/** A bundle git refuses: not a bundle, or one that needs objects the repository lacks. */
export class InvalidBundleError extends Error {}

export interface BundleHeads {
  /** The commit the bundle's HEAD names, when it lists one. */
  head: string | null
  /** Every ref the bundle carries (but HEAD), full names. */
  refs: Map<string, string>
}

/** The refs a bundle carries, as `git bundle list-heads` reads them. */
export async function listBundleHeads(gitDir: string, bundlePath: string, signal?: AbortSignal): Promise<BundleHeads> {
  let out: string
  try {
    out = await runGit(['bundle', 'list-heads', bundlePath], { gitDir, timeoutMs: BUNDLE_TIMEOUT_MS, ...(signal === undefined ? {} : { signal }) })
  } catch {
    throw new InvalidBundleError('the bundle does not read')
  }
  const refs = new Map<string, string>()
  let head: string | null = null
  for (const line of out.split('\n')) {
    const match = /^([0-9a-f]{40,64}) (\S+)$/.exec(line)
    if (match === null) continue
    if (match[2] === 'HEAD') head = match[1]!
    else refs.set(match[2]!, match[1]!)
  }
  return { head, refs }
}

/**
 * The branch HEAD should name after restoring a bundle, as a mirror clone of it would pick: a
 * branch at the commit of the bundle's HEAD (master first, then main, then the first by name),
 * else master when the bundle has it, else its first branch; null when it has no branch.
 */
export function bundleHeadBranch(heads: BundleHeads): string | null {
  const branches = [...heads.refs.keys()].filter((ref) => ref.startsWith(BRANCH_PREFIX)).sort()
  const short = (ref: string) => ref.slice(BRANCH_PREFIX.length)
  const preferred = (candidates: string[]) =>
    candidates.find((ref) => ref === `${BRANCH_PREFIX}master`) ?? candidates.find((ref) => ref === `${BRANCH_PREFIX}main`) ?? candidates[0]
  const atHead = heads.head === null ? [] : branches.filter((ref) => heads.refs.get(ref) === heads.head)
  const chosen = preferred(atHead) ?? preferred(branches)
  return chosen === undefined ? null : short(chosen)
}

/**
 * Verifies the bundle against the repository and fetches every ref it carries into it, replacing
 * refs of the same names (`+refs/*:refs/*`); HEAD is left to the caller (bundleHeadBranch).
 * Returns the bundle's heads.
 */
export async function fetchBundle(gitDir: string, bundlePath: string, signal?: AbortSignal): Promise<BundleHeads> {
  const options = { gitDir, timeoutMs: BUNDLE_TIMEOUT_MS, ...(signal === undefined ? {} : { signal }) }
  try {
    await runGit(['bundle', 'verify', '--quiet', bundlePath], options)
  } catch (err) {
    if (signal?.aborted === true) throw err
    throw new InvalidBundleError('the bundle is not valid')
  }
  const heads = await listBundleHeads(gitDir, bundlePath, signal)
  if (heads.refs.size === 0) return heads
  try {
    await runGit([
      '-c', 'fetch.writeCommitGraph=false', '-c', 'gc.auto=0',
      'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options', bundlePath, '+refs/*:refs/*',
    ], options)
  } catch (err) {
    if (signal?.aborted === true) throw err
    throw new InvalidBundleError('the bundle could not be fetched')
  }
  return heads
}
