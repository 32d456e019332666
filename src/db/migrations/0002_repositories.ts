// Repository engine: protected branches and tags, releases of tags, commit comments (the first
// notes; the collaboration capability adds the other kinds), and forks.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const projectRef = (c: ColumnDefinitionBuilder) => c.notNull().references('projects.id').onDelete('cascade')

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('protected_branches'))
    .addColumn('project_id', 'integer', projectRef)
    /** A branch name, or a pattern with `*` wildcards. */
    .addColumn('name', 'text', notNull)
    .addColumn('push_access_level', 'integer', notNull)
    .addColumn('merge_access_level', 'integer', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('protected_branches_project_name', ['project_id', 'name'])
    .execute()

  await withId(db, db.schema.createTable('protected_tags'))
    .addColumn('project_id', 'integer', projectRef)
    .addColumn('name', 'text', notNull)
    .addColumn('create_access_level', 'integer', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('protected_tags_project_name', ['project_id', 'name'])
    .execute()

  await withId(db, db.schema.createTable('releases'))
    .addColumn('project_id', 'integer', projectRef)
    .addColumn('tag', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('releases_project_tag', ['project_id', 'tag'])
    .execute()

  await withId(db, db.schema.createTable('notes'))
    .addColumn('project_id', 'integer', projectRef)
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    /** 'Commit' here; 'Issue', 'MergeRequest', 'Snippet' with the collaboration capability. */
    .addColumn('noteable_type', 'text', notNull)
    .addColumn('noteable_id', 'integer')
    .addColumn('commit_id', 'text')
    .addColumn('body', 'text', notNull)
    .addColumn('path', 'text')
    .addColumn('line', 'integer')
    .addColumn('line_type', 'text')
    .addColumn('system', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('notes_commit').on('notes').columns(['project_id', 'commit_id', 'id']).execute()
  await db.schema.createIndex('notes_noteable').on('notes').columns(['noteable_type', 'noteable_id', 'id']).execute()

  await db.schema.alterTable('projects')
    .addColumn('forked_from_project_id', 'integer', (c) => c.references('projects.id').onDelete('set null'))
    .execute()
  await db.schema.createIndex('projects_forked_from').on('projects').column('forked_from_project_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('projects_forked_from').execute()
  await db.schema.alterTable('projects').dropColumn('forked_from_project_id').execute()
  for (const table of ['notes', 'releases', 'protected_tags', 'protected_branches']) await db.schema.dropTable(table).execute()
}
