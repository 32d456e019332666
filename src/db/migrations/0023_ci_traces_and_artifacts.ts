// Traces and artifacts of CI jobs. A running job's trace lives in the database in chunks (the
// original's ci_build_trace_chunks; here one or more per append, each at its byte offset, so an
// append only inserts) so every process sees it and an append is one transaction;
// once the job ends it is archived into blob storage as an artifact of type `trace`. Artifacts
// (ci_job_artifacts) are rows naming blobs (storage/blob-storage.ts), one per job and type; a zip
// archive's central directory is read once at upload into ci_job_artifact_entries, so one file is
// served by a lookup, not a scan. A job's artifacts expire at artifacts_expire_at; an erased job
// keeps who erased it.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { isPostgres, withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('ci_build_trace_chunks')
    .addColumn('build_id', 'integer', (c) => c.notNull().references('ci_builds.id').onDelete('cascade'))
    .addColumn('start_offset', 'bigint', notNull)
    .addColumn('size', 'integer', notNull)
    .addColumn('data', isPostgres(db) ? 'bytea' : 'blob', notNull)
    .addPrimaryKeyConstraint('ci_build_trace_chunks_pkey', ['build_id', 'start_offset'])
    .execute()

  await withId(db, db.schema.createTable('ci_job_artifacts'))
    .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_builds.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    // archive metadata trace junit codequality sast dependency_scanning container_scanning dast license_management performance
    .addColumn('file_type', 'text', notNull)
    // zip gzip raw
    .addColumn('file_format', 'text', notNull)
    .addColumn('size', 'bigint', notNull)
    .addColumn('filename', 'text', notNull)
    .addColumn('blob_key', 'text', notNull)
    .addColumn('file_sha256', 'text')
    .addColumn('expire_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addUniqueConstraint('ci_job_artifacts_job_file_type', ['job_id', 'file_type'])
    .execute()
  await db.schema.createIndex('ci_job_artifacts_project').on('ci_job_artifacts').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('ci_job_artifacts_expire_at').on('ci_job_artifacts').columns(['expire_at', 'id']).execute()

  await db.schema.createTable('ci_job_artifact_entries')
    .addColumn('artifact_id', 'integer', (c) => c.notNull().references('ci_job_artifacts.id').onDelete('cascade'))
    .addColumn('path', 'text', notNull)
    .addColumn('size', 'bigint', notNull)
    .addColumn('compressed_size', 'bigint', notNull)
    // 0 stored, 8 deflated
    .addColumn('compression_method', 'integer', notNull)
    .addColumn('flags', 'integer', notNull)
    .addColumn('crc32', 'bigint', notNull)
    .addColumn('local_header_offset', 'bigint', notNull)
    // Unix mode bits, 0 when the archive did not say.
    .addColumn('mode', 'integer', notNull)
    .addPrimaryKeyConstraint('ci_job_artifact_entries_pkey', ['artifact_id', 'path'])
    .execute()

  await db.schema.alterTable('ci_builds').addColumn('artifacts_expire_at', 'bigint').execute()
  await db.schema.alterTable('ci_builds').addColumn('erased_at', 'bigint').execute()
  await db.schema.alterTable('ci_builds').addColumn('erased_by_id', 'integer', (c) => c.references('users.id').onDelete('set null')).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ci_builds').dropColumn('erased_by_id').execute()
  await db.schema.alterTable('ci_builds').dropColumn('erased_at').execute()
  await db.schema.alterTable('ci_builds').dropColumn('artifacts_expire_at').execute()
  await db.schema.dropTable('ci_job_artifact_entries').execute()
  await db.schema.dropTable('ci_job_artifacts').execute()
  await db.schema.dropTable('ci_build_trace_chunks').execute()
}
