// Repository housekeeping, the three tasks of the original (run there by Gitaly): an incremental
// repack packs the loose objects into one more pack; a full repack rewrites every pack into one;
// gc does that, packs the refs and prunes old unreachable objects. Bitmap indexes (for fast clones)
// can only be written by the two tasks that produce a single pack.
import type { GitRepository } from './repository.js'

export type HousekeepingTask = 'gc' | 'full_repack' | 'incremental_repack'

export const HOUSEKEEPING_TASKS: readonly HousekeepingTask[] = ['gc', 'full_repack', 'incremental_repack']

/** A large repository takes long to repack; far longer than any request-sized git command. */
const HOUSEKEEPING_TIMEOUT_MS = 60 * 60 * 1000

/** The git command line of a task; bitmaps are written only where the task allows them. */
export function housekeepingArgs(task: HousekeepingTask, bitmaps: boolean): string[] {
  // Stated either way: bare repositories write bitmaps by default, and an incremental repack cannot.
  const writeBitmaps = bitmaps && task !== 'incremental_repack'
  const config = ['-c', `repack.writeBitmaps=${writeBitmaps}`, '-c', `pack.writeBitmapHashCache=${writeBitmaps}`]
  switch (task) {
    case 'gc': return [...config, 'gc', '--quiet']
    case 'full_repack': return [...config, 'repack', '-A', '-d', '--quiet']
    case 'incremental_repack': return [...config, 'repack', '-d', '--quiet']
  }
}

export async function runHousekeeping(repo: GitRepository, task: HousekeepingTask, options: { bitmaps: boolean; signal?: AbortSignal }): Promise<void> {
  await repo.run(housekeepingArgs(task, options.bitmaps), { timeoutMs: HOUSEKEEPING_TIMEOUT_MS, ...(options.signal === undefined ? {} : { signal: options.signal }) })
}
