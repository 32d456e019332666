// Issue 17's tables. Deploy keys (the original's keys of type DeployKey): a public key that reads,
// and with can_push writes, the projects it is enabled on over SSH; its fingerprint is unique
// among deploy keys (user keys' uniqueness against them is checked when either is added).
// LFS (the original's lfs_objects, lfs_objects_projects, lfs_file_locks): an object is stored once
// by its sha256 oid and linked to every project (and fork) that references it; locks are per path.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('deploy_keys'))
    .addColumn('title', 'text', notNull)
    .addColumn('key', 'text', notNull)
    // SHA256:base64 of the key blob, as ssh_keys.fingerprint: what SSH authentication looks up.
    .addColumn('fingerprint', 'text', (c) => c.notNull().unique())
    .addColumn('key_type', 'text', notNull)
    .addColumn('key_bits', 'integer', notNull)
    // Who added it (null once that user is gone); public keys may be enabled by any project's maintainer.
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await withId(db, db.schema.createTable('deploy_keys_projects'))
    .addColumn('deploy_key_id', 'integer', (c) => c.notNull().references('deploy_keys.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('can_push', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('deploy_keys_projects_key_project').unique().on('deploy_keys_projects').columns(['deploy_key_id', 'project_id']).execute()
  await db.schema.createIndex('deploy_keys_projects_project').on('deploy_keys_projects').columns(['project_id', 'id']).execute()

  await withId(db, db.schema.createTable('lfs_objects'))
    // sha256 of the content, 64 lower-case hex characters; the blob's key derives from it.
    .addColumn('oid', 'text', (c) => c.notNull().unique())
    .addColumn('size', 'bigint', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await withId(db, db.schema.createTable('lfs_objects_projects'))
    .addColumn('lfs_object_id', 'integer', (c) => c.notNull().references('lfs_objects.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('lfs_objects_projects_project_object').unique().on('lfs_objects_projects').columns(['project_id', 'lfs_object_id']).execute()
  await db.schema.createIndex('lfs_objects_projects_object').on('lfs_objects_projects').column('lfs_object_id').execute()

  await withId(db, db.schema.createTable('lfs_file_locks'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('path', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('lfs_file_locks_project_path').unique().on('lfs_file_locks').columns(['project_id', 'path']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['lfs_file_locks', 'lfs_objects_projects', 'lfs_objects', 'deploy_keys_projects', 'deploy_keys']) {
    await db.schema.dropTable(table).execute()
  }
}
