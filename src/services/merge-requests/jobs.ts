// The job kinds of merge requests: after a push moves a target branch, its open merge requests are
// re-checked (merge-request-push-listener.ts), one job per branch while one waits; every quarter of
// an hour, merges their process did not finish are recovered (recover-stuck-merges.ts); when a
// head pipeline succeeds, each merge request waiting for it merges (merge-when-pipeline-succeeds.ts).
import { defineJobKind } from '../../jobs/kind.js'
import { recheckMergeRequests, type RecheckPayload } from './merge-request-push-listener.js'
import { recoverStuckMerges } from './recover-stuck-merges.js'
import { runAutoMerge, type AutoMergePayload } from './merge-when-pipeline-succeeds.js'

export const RECHECK_MERGE_STATUS = defineJobKind<RecheckPayload>({
  name: 'merge_requests.recheck_merge_status',
  attempts: 3,
  // One three-way merge per open merge request into the branch.
  timeLimitMs: 10 * 60_000,
  concurrency: 2,
  run: (ctx, payload) => recheckMergeRequests(ctx, payload),
})

export const RECOVER_STUCK_MERGES = defineJobKind<null>({
  name: 'merge_requests.recover_stuck_merges',
  attempts: 3,
  timeLimitMs: 10 * 60_000,
  concurrency: 1,
  cron: '*/15 * * * *',
  async run(ctx) {
    const recovered = await recoverStuckMerges(ctx)
    if (recovered.merged + recovered.reopened > 0) ctx.log.info(recovered, 'recovered stuck merges')
  },
})

export const AUTO_MERGE = defineJobKind<AutoMergePayload>({
  name: 'merge_requests.merge_when_pipeline_succeeds',
  attempts: 3,
  // One merge: a three-way merge and a push.
  timeLimitMs: 5 * 60_000,
  concurrency: 2,
  run: (ctx, payload) => runAutoMerge(ctx, payload),
})
