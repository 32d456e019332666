// The job kind of merge requests: after a push moves a target branch, its open merge requests are
// re-checked (merge-request-push-listener.ts), one job per branch while one waits.
import { defineJobKind } from '../../jobs/kind.js'
import { recheckMergeRequests, type RecheckPayload } from './merge-request-push-listener.js'

export const RECHECK_MERGE_STATUS = defineJobKind<RecheckPayload>({
  name: 'merge_requests.recheck_merge_status',
  attempts: 3,
  // One three-way merge per open merge request into the branch.
  timeLimitMs: 10 * 60_000,
  concurrency: 2,
  run: (ctx, payload) => recheckMergeRequests(ctx, payload),
})
