// Merge when pipeline succeeds (the original's merge_user_id and merge_params of merge_requests):
// who set the automatic merge, and the merge options they gave, kept until the head pipeline
// succeeds and the merge runs as that user with those options.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('merge_requests')
    .addColumn('merge_user_id', 'integer', (c) => c.references('users.id').onDelete('set null')).execute()
  // JSON of the options: {"commit_message"?, "should_remove_source_branch"?, "sha"?}.
  await db.schema.alterTable('merge_requests').addColumn('merge_params', 'text').execute()
  // The foreign key's `set null` when a user is deleted.
  await db.schema.createIndex('merge_requests_merge_user').on('merge_requests').column('merge_user_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('merge_requests_merge_user').execute()
  await db.schema.alterTable('merge_requests').dropColumn('merge_params').execute()
  await db.schema.alterTable('merge_requests').dropColumn('merge_user_id').execute()
}
