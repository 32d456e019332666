// CI pipelines and their jobs (the original's ci_pipelines and ci_builds), and the variables a
// pipeline was created with. A job's stage is a column of its row (name and index), not a table of
// stages: the API never shows a stage, and a stage's status is derived from its jobs each time, so
// a stage row would only be a second copy to keep in step under concurrent job updates.
// Pipeline variable values are sealed (services/secrets): they are CI secrets as often as not.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const flag = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0)
const projectRef = (c: ColumnDefinitionBuilder) => c.notNull().references('projects.id').onDelete('cascade')
const userRef = (c: ColumnDefinitionBuilder) => c.references('users.id').onDelete('set null')

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('ci_pipelines'))
    .addColumn('project_id', 'integer', projectRef)
    .addColumn('ref', 'text', notNull)
    .addColumn('tag', 'integer', flag)
    .addColumn('sha', 'text', notNull)
    .addColumn('before_sha', 'text')
    // push web trigger schedule api external pipeline chat
    .addColumn('source', 'text', notNull)
    // created pending running success failed canceled skipped manual scheduled
    .addColumn('status', 'text', notNull)
    .addColumn('yaml_errors', 'text')
    // config_error for a CI file that does not read; null otherwise.
    .addColumn('failure_reason', 'text')
    .addColumn('user_id', 'integer', userRef)
    .addColumn('committed_at', 'bigint')
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    /** Seconds some job of the pipeline was running (overlaps counted once). */
    .addColumn('duration', 'integer')
    .addColumn('coverage', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('ci_pipelines_project_status').on('ci_pipelines').columns(['project_id', 'status', 'id']).execute()
  await db.schema.createIndex('ci_pipelines_project_ref').on('ci_pipelines').columns(['project_id', 'ref', 'id']).execute()
  await db.schema.createIndex('ci_pipelines_project_sha').on('ci_pipelines').columns(['project_id', 'sha', 'id']).execute()
  // The username filter, and the foreign key's `set null` when a user is deleted.
  await db.schema.createIndex('ci_pipelines_user').on('ci_pipelines').column('user_id').execute()

  await withId(db, db.schema.createTable('ci_pipeline_variables'))
    .addColumn('pipeline_id', 'integer', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
    .addColumn('key', 'text', notNull)
    .addColumn('encrypted_value', 'text', notNull)
    .addUniqueConstraint('ci_pipeline_variables_pipeline_key', ['pipeline_id', 'key'])
    .execute()

  await withId(db, db.schema.createTable('ci_builds'))
    .addColumn('pipeline_id', 'integer', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', projectRef)
    .addColumn('name', 'text', notNull)
    .addColumn('stage', 'text', notNull)
    .addColumn('stage_idx', 'integer', notNull)
    .addColumn('status', 'text', notNull)
    // on_success on_failure always manual delayed
    .addColumn('when', 'text', notNull)
    .addColumn('allow_failure', 'integer', flag)
    // The job as the runner needs it (scripts, image, services, artifacts, cache, environment,
    // retry, dependencies, parallel, start_in), JSON.
    .addColumn('options', 'text', notNull)
    // The file's variables (global merged with the job's), JSON [{key, value, public}].
    .addColumn('yaml_variables', 'text', notNull)
    // JSON array of runner tags.
    .addColumn('tag_list', 'text', notNull)
    .addColumn('coverage_regex', 'text')
    .addColumn('coverage', 'double precision')
    .addColumn('user_id', 'integer', userRef)
    .addColumn('runner_id', 'integer')
    .addColumn('token_digest', 'text')
    // 1 once a retry replaced the job: it stays for history, out of every status.
    .addColumn('retried', 'integer', flag)
    .addColumn('failure_reason', 'text')
    .addColumn('queued_at', 'bigint')
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    // When a delayed job is due (status scheduled).
    .addColumn('scheduled_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('ci_builds_pipeline').on('ci_builds').columns(['pipeline_id', 'stage_idx']).execute()
  await db.schema.createIndex('ci_builds_project_status').on('ci_builds').columns(['project_id', 'status', 'id']).execute()
  await db.schema.createIndex('ci_builds_project').on('ci_builds').columns(['project_id', 'id']).execute()
  // For the foreign key's `set null` when a user is deleted.
  await db.schema.createIndex('ci_builds_user').on('ci_builds').column('user_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ci_builds').execute()
  await db.schema.dropTable('ci_pipeline_variables').execute()
  await db.schema.dropTable('ci_pipelines').execute()
}
