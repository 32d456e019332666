// Badges (the original's badges table, ProjectBadge and GroupBadge in one): a link and an image URL
// shown on a project's page. A group's badges are shown on each project of it and of its subgroups.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('badges'))
    .addColumn('link_url', 'text', notNull)
    .addColumn('image_url', 'text', notNull)
    // Exactly one owner: a project (ProjectBadge) or a group (GroupBadge).
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('badges_project_id').on('badges').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('badges_group_id').on('badges').columns(['group_id', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('badges').execute()
}
