// The job kinds of project import and export.
import { defineJobKind } from '../../jobs/kind.js'
import { runProjectImport } from './import-project.js'

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
