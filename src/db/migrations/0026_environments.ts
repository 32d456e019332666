// Environments and deployments (the original's environments and deployments). An environment is
// a named place a project deploys to, unique by name and by slug within the project; a deployment
// is one successful CI job that deployed a ref to it, numbered per project (iid, from
// internal_ids). A deployment outlives the job that made it (deployable_id set null), not its
// environment.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const projectRef = (c: ColumnDefinitionBuilder) => c.notNull().references('projects.id').onDelete('cascade')

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('environments'))
    .addColumn('project_id', 'integer', projectRef)
    .addColumn('name', 'text', notNull)
    .addColumn('slug', 'text', notNull)
    .addColumn('external_url', 'text')
    // available stopped
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('available'))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('environments_project_name', ['project_id', 'name'])
    .addUniqueConstraint('environments_project_slug', ['project_id', 'slug'])
    .execute()
  await db.schema.createIndex('environments_project_id').on('environments').columns(['project_id', 'id']).execute()

  await withId(db, db.schema.createTable('deployments'))
    .addColumn('project_id', 'integer', projectRef)
    .addColumn('iid', 'integer', notNull)
    .addColumn('environment_id', 'integer', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('ref', 'text', notNull)
    .addColumn('tag', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sha', 'text', notNull)
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('deployable_id', 'integer', (c) => c.references('ci_builds.id').onDelete('set null'))
    // The name of the manual job that stops the environment (the job's environment:on_stop).
    .addColumn('on_stop', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('deployments_project_iid', ['project_id', 'iid'])
    .execute()
  // The list's orders (id, iid by the unique constraint, created_at, ref), an environment's last
  // deployment, and the deletion of a job.
  await db.schema.createIndex('deployments_project_id').on('deployments').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('deployments_project_created_at').on('deployments').columns(['project_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('deployments_project_ref').on('deployments').columns(['project_id', 'ref', 'id']).execute()
  await db.schema.createIndex('deployments_environment_id').on('deployments').columns(['environment_id', 'id']).execute()
  await db.schema.createIndex('deployments_deployable_id').on('deployments').columns(['deployable_id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('deployments').execute()
  await db.schema.dropTable('environments').execute()
}
