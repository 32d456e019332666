// CI/CD variables a project's or a group's Maintainers define for every job (the original's
// ci_variables and ci_group_variables, here one table: a row belongs to a project or to a group).
// Values are sealed (services/secrets): they are CI secrets more often than not. A key is unique
// per owner; the unique indexes also serve a job's read of all of an owner's variables and the
// API's read of one by key (NULLs are distinct, so a group's rows never clash with a project's).
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('ci_variables'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('key', 'text', notNull)
    .addColumn('encrypted_value', 'text', notNull)
    .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
    .addCheckConstraint('ci_variables_one_owner', sql`(project_id is null) <> (group_id is null)`)
    .addUniqueConstraint('ci_variables_project_key', ['project_id', 'key'])
    .addUniqueConstraint('ci_variables_group_key', ['group_id', 'key'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ci_variables').execute()
}
