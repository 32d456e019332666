// A job token as a credential beyond the runner protocol: while its job runs, it acts as the job's
// user with a `job` marker, so that what it reaches is what the original lets a job reach — git
// over HTTP fetches (never pushes) of the repositories that user may read (git-credentials.ts),
// and the artifacts downloads that accept JOB-TOKEN / `job_token`. Once the job ends, it is
// nobody's.
import type { Db } from '../db/index.js'
import { findJobByToken } from '../services/ci/job-token.js'
import type { Actor } from './actor.js'

/** The job's user, marked with the job, for the token of a running job whose project has jobs on; null otherwise. */
export async function actorForJobToken(db: Db, token: string): Promise<Actor | null> {
  const job = await findJobByToken(db, token)
  if (job === null || job.status !== 'running' || job.kind !== 'ci' || job.user_id === null) return null
  const project = await db.selectFrom('projects').select('jobs_enabled').where('id', '=', job.project_id).executeTakeFirst()
  if (project === undefined || project.jobs_enabled !== 1) return null
  const user = await db.selectFrom('users').selectAll().where('id', '=', job.user_id).executeTakeFirst()
  if (user === undefined || user.state === 'blocked') return null
  return { user, token: null, sudoFrom: null, job: { id: job.id, projectId: job.project_id, pipelineId: job.pipeline_id } }
}
