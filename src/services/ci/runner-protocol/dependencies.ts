// The jobs whose artifacts a job downloads before it runs (the original's Ci::Build#dependencies):
// the latest jobs of earlier stages of its pipeline, only those named by `dependencies:` when the
// job lists some, none for `dependencies: []`. A dependency whose artifacts expired or were erased
// makes the job fail `missing_dependency_failure` before a runner starts it (valid_dependency?).
import type { Db } from '../../../db/index.js'
import type { CiBuildRow, CiJobArtifactRow } from '../../../db/schema.js'
import { artifactsByJob, liveArchive } from '../../../finders/job-artifacts-finder.js'
import { readBuildOptions } from '../build-options.js'

export interface Dependency {
  id: number
  name: string
  /** Its archive while it has one that has not expired. */
  archive: CiJobArtifactRow | null
  /** Its artifacts are gone (expired or erased): the job cannot have them. */
  missing: boolean
}

export async function dependenciesOf(db: Db, job: Pick<CiBuildRow, 'pipeline_id' | 'stage_idx' | 'options'>, now = Date.now()): Promise<Dependency[]> {
  const wanted = readBuildOptions(job).dependencies
  // A job of the first stage has no earlier stage to depend on.
  if ((wanted !== null && wanted.length === 0) || job.stage_idx <= 0) return []
  const earlier = (await db.selectFrom('ci_builds').select(['id', 'name', 'erased_at', 'artifacts_expire_at'])
    .where('pipeline_id', '=', job.pipeline_id).where('retried', '=', 0).where('kind', '=', 'ci').where('stage_idx', '<', job.stage_idx)
    .orderBy('id').execute())
    .filter((dependency) => wanted === null || wanted.includes(dependency.name))
  const artifacts = await artifactsByJob(db, earlier.map((dependency) => dependency.id))
  return earlier.map((dependency) => ({
    id: dependency.id,
    name: dependency.name,
    archive: liveArchive(artifacts.get(dependency.id) ?? [], now),
    missing: dependency.erased_at !== null || (dependency.artifacts_expire_at !== null && dependency.artifacts_expire_at <= now),
  }))
}
