// CI jobs of a project or of one pipeline, retried ones included as in the original 11.5, filtered
// by status (`scope`), and what a page of them shows: their pipelines, users, runners, commits and
// artifacts, each loaded once for the whole page.
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import type { Db } from '../db/index.js'
import type { CiBuildRow, CiJobArtifactRow, CiPipelineRow, CiRunnerRow, CiStatus, UserRow } from '../db/schema.js'
import type { Commit, GitRepository } from '../git/repository.js'
import { pipelinesByIds } from './pipelines-finder.js'
import { usersById } from './rows.js'
import { runnersById } from './runners-finder.js'
import { artifactsByJob } from './job-artifacts-finder.js'

export const JOB_STATUSES: readonly CiStatus[] = ['created', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled']

export interface JobFilters {
  /** Only jobs with one of these statuses; every job when empty. */
  statuses: readonly CiStatus[]
  pipelineId?: number
}

/** Project jobs newest first, as the original lists them; a pipeline's in the order they were made. */
export function findJobPage(db: Db, projectId: number, filters: JobFilters, pagination: PaginationQuery): Promise<Page<CiBuildRow>> {
  // Only CI jobs: external commit statuses are not jobs (the original lists Ci::Build only).
  let query = db.selectFrom('ci_builds').selectAll().where('project_id', '=', projectId).where('kind', '=', 'ci')
  if (filters.pipelineId !== undefined) query = query.where('pipeline_id', '=', filters.pipelineId)
  if (filters.statuses.length > 0) query = query.where('status', 'in', filters.statuses)
  const unfiltered = filters.pipelineId === undefined && filters.statuses.length === 0
  return paginate(db, query.orderBy('id', filters.pipelineId === undefined ? 'desc' : 'asc'), pagination,
    unfiltered ? { total: () => projectJobCount(db, projectId) } : {})
}

/** The number of a project's jobs, kept by triggers (migration 0032): a large project's list counts no rows. */
async function projectJobCount(db: Db, projectId: number): Promise<number> {
  const row = await db.selectFrom('ci_job_counts').select('value').where('project_id', '=', projectId).executeTakeFirst()
  return Number(row?.value ?? 0)
}

export async function findJob(db: Db, projectId: number, jobId: number): Promise<CiBuildRow | null> {
  return await db.selectFrom('ci_builds').selectAll().where('project_id', '=', projectId).where('id', '=', jobId).where('kind', '=', 'ci').executeTakeFirst() ?? null
}

export interface JobView {
  job: CiBuildRow
  pipeline: CiPipelineRow
  user: UserRow | null
  /** The runner that took the job; null before one did, or once it was removed. */
  runner: CiRunnerRow | null
  commit: Commit | null
  artifacts: CiJobArtifactRow[]
}

/** The views of some jobs of one project: one query each for their pipelines, users, runners and artifacts, one read of each commit. */
export async function loadJobViews(db: Db, repo: GitRepository, jobs: readonly CiBuildRow[]): Promise<JobView[]> {
  // Read side by side (on PostgreSQL each on its own connection); the commits once the pipelines are known.
  const [pipelines, users, runners, artifacts] = await Promise.all([
    pipelinesByIds(db, jobs.map((job) => job.pipeline_id)),
    usersById(db, [...new Set(jobs.flatMap((job) => (job.user_id === null ? [] : [job.user_id])))]),
    runnersById(db, jobs.flatMap((job) => (job.runner_id === null ? [] : [job.runner_id]))),
    artifactsByJob(db, jobs.map((job) => job.id)),
  ])
  const shas = [...new Set([...pipelines.values()].map((pipeline) => pipeline.sha))]
  const commits = new Map((await repo.readCommits(shas)).map((commit) => [commit.id, commit]))
  return jobs.map((job) => {
    const pipeline = pipelines.get(job.pipeline_id)!
    return {
      job,
      pipeline,
      user: job.user_id === null ? null : users.get(job.user_id) ?? null,
      runner: job.runner_id === null ? null : runners.get(job.runner_id) ?? null,
      commit: commits.get(pipeline.sha) ?? null,
      artifacts: artifacts.get(job.id) ?? [],
    }
  })
}

/** The current CI jobs (not those a retry replaced, nor external statuses) of some pipelines, by pipeline, in stage order, in one query. */
export async function currentJobsOfPipelines(db: Db, pipelineIds: readonly number[]): Promise<Map<number, CiBuildRow[]>> {
  const byPipeline = new Map<number, CiBuildRow[]>(pipelineIds.map((id) => [id, []]))
  if (pipelineIds.length === 0) return byPipeline
  const rows = await db.selectFrom('ci_builds').selectAll().where('pipeline_id', 'in', [...pipelineIds])
    .where('kind', '=', 'ci').where('retried', '=', 0).orderBy('stage_idx').orderBy('id').execute()
  for (const row of rows) byPipeline.get(row.pipeline_id)!.push(row)
  return byPipeline
}
