// CI runners (the original's ci_runners) and where they may take jobs: an instance runner takes
// jobs of every project with shared runners on; a group runner, of its groups' projects
// (ci_runner_namespaces); a project runner, of the projects it is assigned to (ci_runner_projects).
// A runner authenticates with a token stored as its SHA-256 digest; so does a job (ci_builds'
// token_digest, given out when a runner takes the job). The instance and groups get registration
// tokens (projects have had one since 0001), made when first asked for; a job's effective timeout
// is fixed when it is taken.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const flag = (value: 0 | 1) => (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(value)

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('ci_runners'))
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('runner_type', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('active', 'integer', flag(1))
    .addColumn('locked', 'integer', flag(0))
    .addColumn('run_untagged', 'integer', flag(1))
    .addColumn('tag_list', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('access_level', 'text', (c) => c.notNull().defaultTo('not_protected'))
    .addColumn('maximum_timeout', 'integer')
    .addColumn('name', 'text')
    .addColumn('version', 'text')
    .addColumn('revision', 'text')
    .addColumn('platform', 'text')
    .addColumn('architecture', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('contacted_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('ci_runners_type').on('ci_runners').columns(['runner_type', 'id']).execute()

  await withId(db, db.schema.createTable('ci_runner_projects'))
    .addColumn('runner_id', 'integer', (c) => c.notNull().references('ci_runners.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('ci_runner_projects_runner_project').unique().on('ci_runner_projects').columns(['runner_id', 'project_id']).execute()
  await db.schema.createIndex('ci_runner_projects_project').on('ci_runner_projects').column('project_id').execute()

  await withId(db, db.schema.createTable('ci_runner_namespaces'))
    .addColumn('runner_id', 'integer', (c) => c.notNull().references('ci_runners.id').onDelete('cascade'))
    .addColumn('namespace_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('ci_runner_namespaces_runner_namespace').unique().on('ci_runner_namespaces').columns(['runner_id', 'namespace_id']).execute()
  await db.schema.createIndex('ci_runner_namespaces_namespace').on('ci_runner_namespaces').column('namespace_id').execute()

  await db.schema.alterTable('application_settings').addColumn('runners_registration_token', 'text').execute()
  await db.schema.alterTable('namespaces').addColumn('runners_token', 'text').execute()
  await db.schema.createIndex('namespaces_runners_token').unique().on('namespaces').column('runners_token').execute()
  await db.schema.createIndex('projects_runners_token').on('projects').column('runners_token').execute()
  await db.schema.alterTable('projects').addColumn('build_timeout', 'integer', (c) => c.notNull().defaultTo(3600)).execute()

  await db.schema.alterTable('ci_builds').addColumn('timeout', 'integer').execute()
  await db.schema.createIndex('ci_builds_token_digest').unique().on('ci_builds').column('token_digest').execute()
  // Picking a pending job for a runner: the oldest pending CI jobs first.
  await db.schema.createIndex('ci_builds_status_kind').on('ci_builds').columns(['status', 'kind', 'id']).execute()
  await db.schema.createIndex('ci_builds_runner').on('ci_builds').columns(['runner_id', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ci_builds_runner').execute()
  await db.schema.dropIndex('ci_builds_status_kind').execute()
  await db.schema.dropIndex('ci_builds_token_digest').execute()
  await db.schema.alterTable('ci_builds').dropColumn('timeout').execute()
  await db.schema.alterTable('projects').dropColumn('build_timeout').execute()
  await db.schema.dropIndex('projects_runners_token').execute()
  await db.schema.dropIndex('namespaces_runners_token').execute()
  await db.schema.alterTable('namespaces').dropColumn('runners_token').execute()
  await db.schema.alterTable('application_settings').dropColumn('runners_registration_token').execute()
  await db.schema.dropTable('ci_runner_namespaces').execute()
  await db.schema.dropTable('ci_runner_projects').execute()
  await db.schema.dropTable('ci_runners').execute()
}
