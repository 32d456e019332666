// Sweeps what crashed processes left on disk (git's quarantine directories, temporary packs and
// stale locks in repositories, our temporary index and upload files, interrupted blob writes):
// once soon after a process starts and every hour after, in the background, never before the
// server listens. Only what is older than anything still running may be (the longest git service,
// request or housekeeping run, with a margin) is removed, so other processes on the same data
// directory keep their work.
import type { AppContext } from '../context.js'
import { sweepLeftovers } from '../git/sweep.js'
import { sweepUploadLeftovers } from './uploads/sweep.js'
import { uploadsRoot } from './uploads/user-avatar.js'

const SWEEP_EVERY_MS = 60 * 60 * 1000
/** Housekeeping's longest git run (git/housekeeping.ts) and its job's time limit. */
const LONGEST_HOUSEKEEPING_MS = 60 * 60 * 1000
const MARGIN_MS = 10 * 60 * 1000

/** How old a leftover must be to be swept: older than the longest work that could still own it. */
export function leftoverAgeMs(ctx: AppContext): number {
  const { gitServiceTimeoutMs, requestTimeoutMs } = ctx.config
  return Math.max(gitServiceTimeoutMs, requestTimeoutMs, LONGEST_HOUSEKEEPING_MS) + MARGIN_MS
}

/** One sweep of the data directory; what it removed is logged. */
export async function sweepDataDirectory(ctx: AppContext, signal?: AbortSignal, ageMs = leftoverAgeMs(ctx)): Promise<string[]> {
  const before = Date.now() - ageMs
  const repositories = await sweepLeftovers(ctx.repositories.root, before, signal)
  const uploads = await sweepUploadLeftovers(uploadsRoot(ctx.config.dataDir), before, signal)
  const blobs = await ctx.blobs.sweepLeftovers(before)
  const removed = [...repositories.removed, ...uploads, ...blobs]
  if (removed.length > 0) ctx.log.info({ removed, repositories: repositories.repositories }, 'removed what crashed processes left behind')
  return removed
}

/** Starts the sweeps (the first at once, in the background); the function returned stops them. */
export function startLeftoverSweeps(ctx: AppContext): () => void {
  const abort = new AbortController()
  const sweep = () => {
    sweepDataDirectory(ctx, abort.signal).catch((err: unknown) => ctx.log.error({ err }, 'sweeping leftovers failed'))
  }
  const timer = setInterval(sweep, SWEEP_EVERY_MS).unref()
  setImmediate(sweep)
  return () => {
    abort.abort()
    clearInterval(timer)
  }
}
