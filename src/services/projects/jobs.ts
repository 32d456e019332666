// The job kinds of projects: the statistics refresh after pushes, forks and README commits
// (refresh-statistics.ts), and repository housekeeping, one at a time per repository
// (housekeeping.ts).
import { defineJobKind } from '../../jobs/kind.js'
import { housekeep, type HousekeepingPayload } from './housekeeping.js'
import { refreshStatisticsAndCommitGraph } from './refresh-statistics.js'

export const REFRESH_STATISTICS = defineJobKind<{ projectId: number }>({
  name: 'projects.refresh_statistics',
  attempts: 3,
  // Counting commits and writing the commit-graph of a long history (git gives the latter 10 minutes).
  timeLimitMs: 15 * 60_000,
  concurrency: 2,
  run: (ctx, { projectId }) => refreshStatisticsAndCommitGraph(ctx, projectId),
})

export const HOUSEKEEP_REPOSITORY = defineJobKind<HousekeepingPayload>({
  name: 'projects.housekeep_repository',
  // As the original's worker, never retried: the next push that is due, or a caller, starts another.
  attempts: 1,
  // Repacking a large repository takes long; the git command is killed with the attempt.
  timeLimitMs: 60 * 60_000,
  // Memory and CPU hungry: one at a time per process, and one per repository across processes.
  concurrency: 1,
  exclusive: true,
  run: (ctx, payload, job) => housekeep(ctx, payload, job.signal),
})
