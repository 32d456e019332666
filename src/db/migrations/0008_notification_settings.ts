// Notification settings: one row per user and source, as the original's notification_settings. The
// source is the instance (the user's global setting: project_id and namespace_id both null), a group
// (namespace_id) or a project (project_id); a missing row means the default level (participating
// globally, global for groups and projects). The 14 event flags matter for the custom level only.
// The global row also keeps the user's notification_email (null: their primary email).
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const flag = (on: 0 | 1) => (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(on)

const EVENTS_OFF = [
  'new_note', 'new_issue', 'reopen_issue', 'close_issue', 'reassign_issue', 'issue_due', 'new_merge_request',
  'push_to_merge_request', 'reopen_merge_request', 'close_merge_request', 'reassign_merge_request',
  'merge_merge_request', 'success_pipeline',
] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  let table = withId(db, db.schema.createTable('notification_settings'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('namespace_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('level', 'text', notNull)
  for (const event of EVENTS_OFF) table = table.addColumn(event, 'integer', flag(0))
  // The original reads an unset failed_pipeline as on: failures are "more like mentions".
  await table.addColumn('failed_pipeline', 'integer', flag(1))
    .addColumn('notification_email', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  // One row per user and source; the project and group indexes also serve "who set what on this
  // project / group" when recipients are computed.
  await db.schema.createIndex('notification_settings_global').unique().on('notification_settings').column('user_id')
    .where(sql.ref('project_id'), 'is', null).where(sql.ref('namespace_id'), 'is', null).execute()
  await db.schema.createIndex('notification_settings_project').unique().on('notification_settings').columns(['project_id', 'user_id'])
    .where(sql.ref('project_id'), 'is not', null).execute()
  await db.schema.createIndex('notification_settings_namespace').unique().on('notification_settings').columns(['namespace_id', 'user_id'])
    .where(sql.ref('namespace_id'), 'is not', null).execute()
  // Deleting a user cascades through its rows.
  await db.schema.createIndex('notification_settings_user').on('notification_settings').column('user_id').execute()
  // The daily issue_due job reads the open issues due on one day.
  await db.schema.createIndex('issues_due_date').on('issues').columns(['due_date', 'state', 'id'])
    .where(sql.ref('due_date'), 'is not', null).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('issues_due_date').execute()
  await db.schema.dropTable('notification_settings').execute()
}
