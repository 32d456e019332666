// Web hooks: project hooks (project_id set) and system hooks (project_id null) in one table, as the
// original keeps both. The token is sent to the receiver, so it is stored as given (never returned
// by the API); the last delivery's outcome is kept for operators, and failures in a row put the
// hook in a back-off during which nothing is sent to it (services/hooks/deliveries.ts).
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const flagOff = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0)
const flagOn = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(1)

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('web_hooks'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('url', 'text', notNull)
    .addColumn('token', 'text')
    .addColumn('enable_ssl_verification', 'integer', flagOn)
    .addColumn('push_events', 'integer', flagOn)
    .addColumn('push_events_branch_filter', 'text')
    .addColumn('tag_push_events', 'integer', flagOff)
    .addColumn('issues_events', 'integer', flagOff)
    .addColumn('confidential_issues_events', 'integer', flagOff)
    .addColumn('merge_requests_events', 'integer', flagOff)
    .addColumn('note_events', 'integer', flagOff)
    .addColumn('job_events', 'integer', flagOff)
    .addColumn('pipeline_events', 'integer', flagOff)
    .addColumn('wiki_page_events', 'integer', flagOff)
    .addColumn('repository_update_events', 'integer', flagOff)
    .addColumn('last_delivery_at', 'bigint')
    .addColumn('last_delivery_status', 'integer')
    .addColumn('last_delivery_error', 'text')
    .addColumn('failures_in_a_row', 'integer', flagOff)
    .addColumn('backoff_until', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  // Every event asks "has this project (or the instance, project_id null) a hook for it?".
  await db.schema.createIndex('web_hooks_project_id').on('web_hooks').column('project_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('web_hooks').execute()
}
