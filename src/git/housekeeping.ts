// Repository housekeeping, the three tasks of the original (run there by Gitaly), each leaving a
// reachability bitmap so that the next clone or fetch does not count objects by walking history:
// - incremental: a geometric repack (`--geometric=2`) packs the loose objects and rolls small packs
//   into larger ones so pack sizes at least double, then writes a multi-pack index over all packs
//   and its bitmap; cheap after every few pushes, since big packs are left alone;
// - full: one pack of everything reachable with its bitmap, unreachable objects moved to a cruft
//   pack (kept, with their times, until gc prunes them) rather than spilled as loose files;
// - gc: the same through `git gc`, which also packs the refs and prunes unreachable objects older
//   than two weeks.
// `.keep` packs are never rewritten or deleted (git leaves them; a bitmap over one pack then takes
// copies of their objects). With bitmaps off, the same repacks write none.
import fs from 'node:fs/promises'
import path from 'node:path'
import type { GitRepository } from './repository.js'

export type HousekeepingTask = 'gc' | 'full_repack' | 'incremental_repack'

export const HOUSEKEEPING_TASKS: readonly HousekeepingTask[] = ['gc', 'full_repack', 'incremental_repack']

/** A large repository takes long to repack; far longer than any request-sized git command. */
const HOUSEKEEPING_TIMEOUT_MS = 60 * 60 * 1000

/** The git command line of a task; bitmaps are written only when `bitmaps` says so. */
export function housekeepingArgs(task: HousekeepingTask, bitmaps: boolean): string[] {
  // Stated either way: bare repositories write pack bitmaps on a full repack by default.
  const config = ['-c', `repack.writeBitmaps=${bitmaps}`]
  switch (task) {
    // Unreachable objects go to a cruft pack, as in the full repack, instead of loose files.
    case 'gc': return [...config, '-c', 'gc.cruftPacks=true', 'gc', '--quiet']
    case 'full_repack': return [...config, 'repack', '--cruft', '-d', ...(bitmaps ? ['-b'] : []), '--quiet']
    case 'incremental_repack':
      return [...config, 'repack', '--geometric=2', '-d', '--write-midx', ...(bitmaps ? ['--write-bitmap-index'] : []), '--quiet']
  }
}

export async function runHousekeeping(repo: GitRepository, task: HousekeepingTask, options: { bitmaps: boolean; signal?: AbortSignal }): Promise<void> {
  await repo.run(housekeepingArgs(task, options.bitmaps), { timeoutMs: HOUSEKEEPING_TIMEOUT_MS, ...(options.signal === undefined ? {} : { signal: options.signal }) })
  // git drops the multi-pack index when a repack deletes a pack it covers, but not when every pack
  // it covers survives (a full repack that found them already whole). Left there, it and its
  // bitmap would be read before the fresh pack bitmap, describing the repository as it was.
  if (task !== 'incremental_repack') await removeMultiPackIndex(repo.gitDir)
}

/** The multi-pack index and the files that go with it (bitmap, reverse index), as `git repack` removes them. */
async function removeMultiPackIndex(gitDir: string): Promise<void> {
  const packDir = path.join(gitDir, 'objects', 'pack')
  const names = await fs.readdir(packDir)
  // The index first: without it, readers no longer look for its bitmap.
  if (names.includes('multi-pack-index')) await fs.rm(path.join(packDir, 'multi-pack-index'), { force: true })
  await Promise.all(names.filter((name) => name.startsWith('multi-pack-index-'))
    .map((name) => fs.rm(path.join(packDir, name), { force: true })))
}
