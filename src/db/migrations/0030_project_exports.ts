// A project's export (POST /projects/:id/export, format 0.2.4): one row per project while an export
// runs, uploads or waits to be downloaded, as the original's export directory and ImportExportUpload.
// The archive itself is a blob (blob_key); the row goes when the export expires after 24 hours.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('project_exports')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    // started | after_export_action | finished | failed
    .addColumn('status', 'text', notNull)
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    // The finished archive, its download name and when it was made (the 24 hours count from then).
    .addColumn('blob_key', 'text')
    .addColumn('file_name', 'text')
    .addColumn('finished_at', 'bigint')
    // Why the last export failed (the upload's answer, or what went wrong building the archive).
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('project_exports_finished_at').on('project_exports').column('finished_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('project_exports').execute()
}
