// JobBasicWithProject, as the original 11.5 lists the jobs a runner took (GET /runners/:id/jobs):
// the job's basic fields (no artifacts, no runner: the runner is the one asked about) and the
// project it belongs to, as ProjectIdentity.
import { Type, type Static } from '@sinclair/typebox'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { ProjectSimple } from './project.js'
import { Job, type JobEntity } from './job.js'

const JOB_BASIC_FIELDS = [
  'id', 'status', 'stage', 'name', 'ref', 'tag', 'coverage', 'created_at', 'started_at', 'finished_at', 'duration',
  'user', 'commit', 'pipeline', 'web_url',
] as const satisfies ReadonlyArray<keyof JobEntity>

export const ProjectIdentity = Type.Pick(ProjectSimple, ['id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at'])

export const JobBasicWithProject = Type.Composite([Type.Pick(Job, JOB_BASIC_FIELDS), Type.Object({ project: ProjectIdentity })])
export type JobBasicWithProjectEntity = Static<typeof JobBasicWithProject>

export function presentJobBasicWithProject(job: JobEntity, project: ProjectRow, namespace: NamespaceRow): JobBasicWithProjectEntity {
  const basic = Object.fromEntries(JOB_BASIC_FIELDS.map((field) => [field, job[field]])) as Pick<JobEntity, typeof JOB_BASIC_FIELDS[number]>
  return {
    ...basic,
    project: {
      id: project.id,
      description: project.description,
      name: project.name,
      name_with_namespace: `${namespace.full_name} / ${project.name}`,
      path: project.path,
      path_with_namespace: `${namespace.full_path}/${project.path}`,
      created_at: isoTime(project.created_at),
    },
  }
}
