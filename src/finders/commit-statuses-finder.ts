// A commit's statuses as the original 11.5 lists them: CI jobs and external statuses of every
// pipeline of the project with that sha, only the latest of each name (not retried) unless `all`,
// filtered by the pipeline's ref, the stage and the name, in the order they were made.
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import type { Db } from '../db/index.js'
import type { CiBuildRow } from '../db/schema.js'

export interface CommitStatusFilters {
  ref?: string
  stage?: string
  name?: string
  all: boolean
}

export function findCommitStatusPage(db: Db, projectId: number, sha: string, filters: CommitStatusFilters, pagination: PaginationQuery): Promise<Page<CiBuildRow>> {
  let pipelines = db.selectFrom('ci_pipelines').select('id').where('project_id', '=', projectId).where('sha', '=', sha)
  if (filters.ref !== undefined && filters.ref !== '') pipelines = pipelines.where('ref', '=', filters.ref)
  let statuses = db.selectFrom('ci_builds').selectAll().where('project_id', '=', projectId).where('pipeline_id', 'in', pipelines)
  if (!filters.all) statuses = statuses.where('retried', '=', 0)
  if (filters.stage !== undefined && filters.stage !== '') statuses = statuses.where('stage', '=', filters.stage)
  if (filters.name !== undefined && filters.name !== '') statuses = statuses.where('name', '=', filters.name)
  return paginate(db, statuses.orderBy('id'), pagination)
}
