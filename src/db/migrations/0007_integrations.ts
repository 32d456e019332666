// Project integrations ("services"): one row per project and kind, created by the first PUT of
// /projects/:id/services/<slug>. `properties` is JSON text holding the kind's settings, secrets
// included (they never leave the server); the event flags say which events the integration acts
// on. Listeners look a row up by (project_id, kind), which the unique constraint indexes.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const flag = (on: 0 | 1) => (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(on)

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('integrations'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('kind', 'text', notNull)
    .addColumn('active', 'integer', flag(0))
    .addColumn('properties', 'text', (c) => c.notNull().defaultTo('{}'))
    // The original's column defaults: every event on except pipelines and jobs.
    .addColumn('push_events', 'integer', flag(1))
    .addColumn('issues_events', 'integer', flag(1))
    .addColumn('confidential_issues_events', 'integer', flag(1))
    .addColumn('merge_requests_events', 'integer', flag(1))
    .addColumn('tag_push_events', 'integer', flag(1))
    .addColumn('note_events', 'integer', flag(1))
    .addColumn('confidential_note_events', 'integer', flag(1))
    .addColumn('pipeline_events', 'integer', flag(0))
    .addColumn('wiki_page_events', 'integer', flag(1))
    .addColumn('job_events', 'integer', flag(0))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('integrations_project_kind', ['project_id', 'kind'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('integrations').execute()
}
