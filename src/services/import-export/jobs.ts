// The job kinds of project import and export. Export: one export per project at a time
// (export-project.ts), and the hourly removal of archives kept past 24 hours. Import: one job per
// uploaded archive (import-project.ts).
import { defineJobKind } from '../../jobs/kind.js'
import { EXPORT_TIME_LIMIT_MS, expireExports, runExport, type ExportPayload } from './export-project.js'
import { runProjectImport } from './import-project.js'

// ---- export ----

export const EXPORT_PROJECT = defineJobKind<ExportPayload>({
  name: 'import_export.export_project',
  // A failure is recorded and emailed by the job itself; a new request starts another.
  attempts: 1,
  timeLimitMs: EXPORT_TIME_LIMIT_MS,
  // Bundling is CPU and disk hungry.
  concurrency: 1,
  // One per project (uniqueKey `project:<id>`), beside the claim of its export row.
  exclusive: true,
  run: (ctx, payload, job) => runExport(ctx, payload, job),
})

export const EXPIRE_EXPORTS = defineJobKind<null>({
  name: 'import_export.expire_exports',
  attempts: 3,
  timeLimitMs: 10 * 60_000,
  concurrency: 1,
  // As the original's import_export_project_cleanup_worker.
  cron: '0 * * * *',
  run: async (ctx) => { await expireExports(ctx) },
})

// ---- import ----

export interface ImportProjectPayload {
  projectId: number
  importerId: number
  /** The uploaded archive in blob storage; deleted when the job ends. */
  archiveKey: string
  overrideParams: Record<string, unknown>
  /** `overwrite`: the project imported under a temporary path takes this name and path, the old one is deleted. */
  overwrite?: { projectId: number; name: string; path: string }
}

export const IMPORT_PROJECT = defineJobKind<ImportProjectPayload>({
  name: 'import_export.import_project',
  // Not retried: a second attempt finds the first one's leftovers and fails the import cleanly
  // (a retry is a new import, as in the original).
  attempts: 2,
  // A large repository's bundle and a large tree take long.
  timeLimitMs: 3 * 60 * 60_000,
  concurrency: 2,
  run: (ctx, payload, job) => runProjectImport(ctx, payload, job.attempt, job.signal),
})
