// The job kinds of LFS: the daily removal of objects no project links to (lfs-cleanup.ts).
import { defineJobKind } from '../../jobs/kind.js'
import { removeAllUnreferencedLfsObjects } from './lfs-cleanup.js'

export const REMOVE_UNREFERENCED_LFS_OBJECTS = defineJobKind<null>({
  name: 'lfs.remove_unreferenced_objects',
  // The next day's run takes what this one left.
  attempts: 1,
  timeLimitMs: 30 * 60_000,
  concurrency: 1,
  // As the original's remove_unreferenced_lfs_objects_worker.
  cron: '20 0 * * *',
  run: async (ctx, _payload, job) => { await removeAllUnreferencedLfsObjects(ctx, job.signal) },
})
