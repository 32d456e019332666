// What a process killed in the middle of git work leaves behind, found and removed: git's own
// leftovers in each repository (the quarantine directory of a push, `objects/tmp_objdir-incoming-*`,
// which holds the whole pack of a push killed before it finished; temporary packs and indexes;
// stale lock files that would refuse every later update of HEAD, the config or packed refs) and
// the temporary index files of our commits and the staged repositories of project creations that
// died before their row was written. Only entries older than a threshold go, so that work
// still running in another process on the same data directory is left alone. Repositories are
// walked one at a time, in the background: nothing waits for a data directory of thousands.
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { STAGING_FOLDER } from './storage.js'

export interface SweepReport {
  repositories: number
  removed: string[]
}

/** The temporary index files writeCommit makes (write.ts). */
export const INDEX_FILE_PREFIX = 'ingot-index-'

/** Entries of a repository's objects directory git makes for a moment and renames or removes. */
const OBJECTS_LEFTOVERS = /^tmp_objdir-/
const PACK_LEFTOVERS = /^tmp_/
/** Locks at a repository's top: a lock older than any git command we run is a dead command's. */
const TOP_LOCKS = ['HEAD.lock', 'config.lock', 'packed-refs.lock', 'shallow.lock']

async function entries(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch(() => [])
}

async function removeIfOlder(file: string, before: number, report: SweepReport): Promise<void> {
  const stat = await fs.lstat(file).catch(() => null)
  if (stat === null || stat.mtimeMs >= before) return
  await fs.rm(file, { recursive: true, force: true })
  report.removed.push(file)
}

/** One repository's leftovers older than `before` (epoch ms). */
export async function sweepRepository(gitDir: string, before: number, report: SweepReport): Promise<void> {
  const objects = path.join(gitDir, 'objects')
  for (const name of await entries(objects)) {
    if (OBJECTS_LEFTOVERS.test(name)) await removeIfOlder(path.join(objects, name), before, report)
  }
  const pack = path.join(objects, 'pack')
  for (const name of await entries(pack)) {
    if (PACK_LEFTOVERS.test(name)) await removeIfOlder(path.join(pack, name), before, report)
  }
  for (const name of TOP_LOCKS) await removeIfOlder(path.join(gitDir, name), before, report)
}

/**
 * Sweeps every repository under `root` (the hashed layout, `@hashed/ab/cd/<hash>.git`, wikis
 * included) and our temporary index files, of what is older than `before`. Stops between
 * repositories when `signal` is aborted.
 */
export async function sweepLeftovers(root: string, before: number, signal?: AbortSignal): Promise<SweepReport> {
  const report: SweepReport = { repositories: 0, removed: [] }
  const hashed = path.join(root, '@hashed')
  for (const first of await entries(hashed)) {
    for (const second of await entries(path.join(hashed, first))) {
      const dir = path.join(hashed, first, second)
      for (const name of await entries(dir)) {
        if (signal?.aborted === true) return report
        if (!name.endsWith('.git')) continue
        report.repositories += 1
        await sweepRepository(path.join(dir, name), before, report)
      }
    }
  }
  // Repositories of projects whose creation died before their row was written (storage.ts).
  const staging = path.join(root, STAGING_FOLDER)
  for (const name of await entries(staging)) await removeIfOlder(path.join(staging, name), before, report)
  const tmp = os.tmpdir()
  for (const name of await entries(tmp)) {
    if (name.startsWith(INDEX_FILE_PREFIX)) await removeIfOlder(path.join(tmp, name), before, report)
  }
  return report
}
