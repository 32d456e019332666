// The job kinds of project import and export. Export: one export per project at a time
// (export-project.ts), and the hourly removal of archives kept past 24 hours.
import { defineJobKind } from '../../jobs/kind.js'
import { EXPORT_TIME_LIMIT_MS, expireExports, runExport, type ExportPayload } from './export-project.js'

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
