// Reads of CI artifacts: a page of jobs' artifacts in one query, a job's file of one type, the
// job of a name whose archive `…/jobs/artifacts/:ref_name/download` gives (the original's
// latest_successful_builds_for: the newest successful pipeline of the ref, its job of that name),
// and a directory of an archive from its stored central directory (the web's artifacts browser).
import { sql } from 'kysely'
import type { Db } from '../db/index.js'
import type { CiArtifactFileType, CiJobArtifactRow } from '../db/schema.js'

export async function artifactsByJob(db: Db, jobIds: readonly number[]): Promise<Map<number, CiJobArtifactRow[]>> {
  const byJob = new Map<number, CiJobArtifactRow[]>()
  if (jobIds.length === 0) return byJob
  const rows = await db.selectFrom('ci_job_artifacts').selectAll().where('job_id', 'in', jobIds).orderBy('id').execute()
  for (const row of rows) byJob.set(row.job_id, [...(byJob.get(row.job_id) ?? []), row])
  return byJob
}

export async function findJobArtifact(db: Db, jobId: number, fileType: CiArtifactFileType): Promise<CiJobArtifactRow | null> {
  return await db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', jobId).where('file_type', '=', fileType).executeTakeFirst() ?? null
}

/** The job's archive while it has one that has not expired (the original's artifacts?). */
export function liveArchive(artifacts: readonly CiJobArtifactRow[], now = Date.now()): CiJobArtifactRow | null {
  return artifacts.find((artifact) => artifact.file_type === 'archive' && (artifact.expire_at === null || artifact.expire_at > now)) ?? null
}

/** The archive of the job named `jobName` in the newest successful pipeline of `ref`, or null. */
export async function latestSuccessfulArchive(db: Db, projectId: number, ref: string, jobName: string): Promise<CiJobArtifactRow | null> {
  const pipeline = await db.selectFrom('ci_pipelines').select('id')
    .where('project_id', '=', projectId).where('ref', '=', ref).where('status', '=', 'success')
    .orderBy('id', 'desc').limit(1).executeTakeFirst()
  if (pipeline === undefined) return null
  const row = await db.selectFrom('ci_builds')
    .innerJoin('ci_job_artifacts', 'ci_job_artifacts.job_id', 'ci_builds.id')
    .selectAll('ci_job_artifacts')
    .where('ci_builds.pipeline_id', '=', pipeline.id).where('ci_builds.name', '=', jobName).where('ci_builds.retried', '=', 0)
    .where('ci_builds.kind', '=', 'ci').where('ci_job_artifacts.file_type', '=', 'archive')
    .orderBy('ci_builds.id', 'desc').limit(1).executeTakeFirst()
  return row === undefined ? null : liveArchive([row])
}

export interface ArtifactDirectory {
  /** The names of the directories directly in it, sorted. */
  directories: string[]
  /** The files directly in it, sorted by name (code units, the same on every database). */
  files: { name: string; path: string; size: number }[]
}

/**
 * What lies directly in `directory` of a zip archive ('' for its top, else a path without a
 * trailing slash), from its stored central directory; null when no file lies under it (the top
 * of an archive without files is empty rather than missing).
 */
export async function artifactDirectory(db: Db, artifactId: number, directory: string): Promise<ArtifactDirectory | null> {
  const prefix = directory === '' ? '' : `${directory}/`
  let query = db.selectFrom('ci_job_artifact_entries').select(['path', 'size']).where('artifact_id', '=', artifactId)
  if (prefix !== '') query = query.where(sql<string>`substr(path, 1, ${[...prefix].length})`, '=', prefix)
  const rows = await query.execute()
  if (rows.length === 0 && prefix !== '') return null
  const directories = new Set<string>()
  const files: ArtifactDirectory['files'] = []
  for (const row of rows) {
    const name = row.path.slice(prefix.length)
    const slash = name.indexOf('/')
    if (slash === -1) files.push({ name, path: row.path, size: row.size })
    else directories.add(name.slice(0, slash))
  }
  return { directories: [...directories].sort(), files: files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) }
}
