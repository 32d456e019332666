// JobBasicWithProject, as the original 11.5 lists the jobs a runner took (GET /runners/:id/jobs):
// the job's basic fields (no artifacts, no runner: the runner is the one asked about) and the
// project it belongs to, as ProjectIdentity.
import { Type, type Static } from '@sinclair/typebox'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import { ProjectIdentity, presentProjectIdentity } from './project.js'
import { Job, type JobEntity } from './job.js'

const JOB_BASIC_FIELDS = [
  'id', 'status', 'stage', 'name', 'ref', 'tag', 'coverage', 'created_at', 'started_at', 'finished_at', 'duration',
  'user', 'commit', 'pipeline', 'web_url',
] as const satisfies ReadonlyArray<keyof JobEntity>

export const JobBasicWithProject = Type.Composite([Type.Pick(Job, JOB_BASIC_FIELDS), Type.Object({ project: ProjectIdentity })])
export type JobBasicWithProjectEntity = Static<typeof JobBasicWithProject>

export function presentJobBasicWithProject(job: JobEntity, project: ProjectRow, namespace: NamespaceRow): JobBasicWithProjectEntity {
  const basic = Object.fromEntries(JOB_BASIC_FIELDS.map((field) => [field, job[field]])) as Pick<JobEntity, typeof JOB_BASIC_FIELDS[number]>
  return {
    ...basic,
    project: presentProjectIdentity(project, namespace),
  }
}
