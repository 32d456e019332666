// Reads of CI artifacts: a page of jobs' artifacts in one query, a job's file of one type, and the
// job of a name whose archive `…/jobs/artifacts/:ref_name/download` gives (the original's
// latest_successful_builds_for: the newest successful pipeline of the ref, its job of that name).
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
