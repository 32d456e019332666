// Commit statuses (the original's GenericCommitStatus): rows of ci_builds of kind `external`, set
// through the API by outside systems, never picked by a runner, left out of the jobs API. A CI job
// is of kind `ci`. An external status shows its `target_url` and `description`.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ci_builds').addColumn('kind', 'text', (c) => c.notNull().defaultTo('ci')).execute()
  await db.schema.alterTable('ci_builds').addColumn('target_url', 'text').execute()
  await db.schema.alterTable('ci_builds').addColumn('description', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ci_builds').dropColumn('description').execute()
  await db.schema.alterTable('ci_builds').dropColumn('target_url').execute()
  await db.schema.alterTable('ci_builds').dropColumn('kind').execute()
}
