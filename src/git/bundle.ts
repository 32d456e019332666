// git bundles, the repository's form in the original's export archive (format 0.2.4, research §1.2):
// `project.bundle` and `project.wiki.bundle` are `git bundle create <file> --all`, so every ref
// (branches, tags, merge request heads, keep-arounds, HEAD) travels; a repository without refs has
// no bundle. The restore side (verify, fetch from a bundle) sits beside it.
import type { GitRepository } from './repository.js'

/** A bundle of a large repository takes as long as a full pack of it. */
const BUNDLE_TIMEOUT_MS = 60 * 60 * 1000

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
