// Pipeline triggers and pipeline schedules (the original's ci_triggers, ci_pipeline_schedules and
// ci_pipeline_schedule_variables). A trigger's token is looked up by its SHA-256 digest and kept
// sealed beside it, because the original shows its owner the whole token again on every read.
// A schedule's next_run_at is indexed with `active`: the recurring job asks for due active
// schedules every minute. A pipeline names the schedule that created it (last_pipeline).
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const projectRef = (c: ColumnDefinitionBuilder) => c.notNull().references('projects.id').onDelete('cascade')

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('ci_triggers'))
    .addColumn('project_id', 'integer', projectRef)
    // A trigger acts as its owner: it goes with them, as in the original.
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('description', 'text')
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('encrypted_token', 'text', notNull)
    .addColumn('last_used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('ci_triggers_project').on('ci_triggers').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('ci_triggers_owner').on('ci_triggers').column('owner_id').execute()

  await withId(db, db.schema.createTable('ci_pipeline_schedules'))
    .addColumn('project_id', 'integer', projectRef)
    // A schedule outlives its owner, as in the original; it does not run without one.
    .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('description', 'text', notNull)
    .addColumn('ref', 'text', notNull)
    .addColumn('cron', 'text', notNull)
    .addColumn('cron_timezone', 'text', notNull)
    .addColumn('next_run_at', 'bigint')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('ci_pipeline_schedules_project').on('ci_pipeline_schedules').columns(['project_id', 'active', 'id']).execute()
  await db.schema.createIndex('ci_pipeline_schedules_due').on('ci_pipeline_schedules').columns(['active', 'next_run_at']).execute()
  await db.schema.createIndex('ci_pipeline_schedules_owner').on('ci_pipeline_schedules').column('owner_id').execute()

  await withId(db, db.schema.createTable('ci_pipeline_schedule_variables'))
    .addColumn('pipeline_schedule_id', 'integer', (c) => c.notNull().references('ci_pipeline_schedules.id').onDelete('cascade'))
    .addColumn('key', 'text', notNull)
    .addColumn('encrypted_value', 'text', notNull)
    .addUniqueConstraint('ci_pipeline_schedule_variables_schedule_key', ['pipeline_schedule_id', 'key'])
    .execute()

  await db.schema.alterTable('ci_pipelines')
    .addColumn('pipeline_schedule_id', 'integer', (c) => c.references('ci_pipeline_schedules.id').onDelete('set null'))
    .execute()
  await db.schema.createIndex('ci_pipelines_pipeline_schedule').on('ci_pipelines').columns(['pipeline_schedule_id', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ci_pipelines_pipeline_schedule').execute()
  await db.schema.alterTable('ci_pipelines').dropColumn('pipeline_schedule_id').execute()
  await db.schema.dropTable('ci_pipeline_schedule_variables').execute()
  await db.schema.dropTable('ci_pipeline_schedules').execute()
  await db.schema.dropTable('ci_triggers').execute()
}
