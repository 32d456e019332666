// What the runner protocol's reads need: the queue's fingerprint (how many CI jobs are pending and
// when the latest became so: X-GitLab-Last-Update) read from an index alone, and the sweep of stale
// jobs (pending or running jobs not updated for long) reading only the jobs it drops.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('ci_builds_status_kind_queued').on('ci_builds').columns(['status', 'kind', 'queued_at', 'id']).execute()
  await db.schema.createIndex('ci_builds_status_updated').on('ci_builds').columns(['status', 'updated_at']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ci_builds_status_updated').execute()
  await db.schema.dropIndex('ci_builds_status_kind_queued').execute()
}
