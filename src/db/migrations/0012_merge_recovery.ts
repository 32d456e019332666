// A merge that its process did not finish (a crash, a kill) leaves its merge request `locked`. The
// merge records when it began and the commit it moves the target branch to, so that a recurring job
// (services/merge-requests/recover-stuck-merges.ts) can tell a merge that landed from one that did
// not, as the original's StuckMergeJobsWorker does with merge_commit_sha.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('merge_requests').addColumn('merge_started_at', 'bigint').execute()
  await db.schema.alterTable('merge_requests').addColumn('in_progress_merge_commit_sha', 'text').execute()
  // Only locked merge requests have a start time: the recovery job finds the old ones in the index.
  await db.schema.createIndex('merge_requests_merge_started_at').on('merge_requests').column('merge_started_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('merge_requests_merge_started_at').execute()
  await db.schema.alterTable('merge_requests').dropColumn('in_progress_merge_commit_sha').execute()
  await db.schema.alterTable('merge_requests').dropColumn('merge_started_at').execute()
}
