// The CI file's `cache`, kept by the runner per project and key as a zip in its own directory
// (as the original runner's local cache): restored into the build directory before the script
// (policies pull-push and pull), saved from it after a successful script (pull-push and push).
// A save writes a new file and renames it into place, so two jobs of one key never mix.
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { extractZip, normalizePattern, saveStream, selectEntries, zipEntries } from './archive.js'
import type { JobCache } from './client.js'

export interface CacheTarget {
  /** The runner's cache directory. */
  root: string
  projectId: number
  projectDir: string
  output(text: string): void
}

/** Where the project's cache of `key` is kept. */
function cacheFile(target: CacheTarget, key: string): string {
  // Keys are the CI file's text: a digest makes any of them one safe file name.
  const name = createHash('sha256').update(key).digest('hex')
  return path.join(target.root, String(target.projectId), `${name}.zip`)
}

export async function restoreCache(target: CacheTarget, cache: JobCache, key: string): Promise<void> {
  if (cache.policy === 'push') return
  target.output(`Checking cache for ${key}...\n`)
  const file = cacheFile(target, key)
  try {
    await fs.access(file)
  } catch {
    target.output(`Cache ${key} not found\n`)
    return
  }
  await extractZip(file, target.projectDir)
  target.output('Successfully extracted cache\n')
}

export async function saveCache(target: CacheTarget, cache: JobCache, key: string, tracked: ReadonlySet<string>): Promise<void> {
  if (cache.policy === 'pull') return
  target.output(`Creating cache ${key}...\n`)
  const patterns: string[] = []
  for (const pattern of cache.paths ?? []) {
    const normalized = normalizePattern(pattern)
    if (typeof normalized === 'string') patterns.push(normalized)
    else target.output(`WARNING: ${normalized.refused}\n`)
  }
  const entries = await selectEntries(target.projectDir, { patterns, untracked: cache.untracked === true, tracked })
  if (entries.length === 0) {
    target.output('WARNING: no files to cache; the cache was not saved\n')
    return
  }
  const file = cacheFile(target, key)
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`
  try {
    await saveStream(await zipEntries(target.projectDir, entries, (name, why) => target.output(`WARNING: ${name}: ${why}\n`)), temporary)
    await fs.rename(temporary, file)
  } finally {
    await fs.rm(temporary, { force: true })
  }
  target.output(`Created cache (${entries.length} entries)\n`)
}
