// Pipelines of a project, as the original 11.5's PipelinesFinder filters them: scope (running,
// pending, finished, or the latest pipeline of each branch or tag that exists), status, ref, sha,
// yaml_errors, the creator's username or name; ordered by id, status, ref or user_id. A commit's status
// and last pipeline are its latest pipeline's.
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import type { Db } from '../db/index.js'
import type { CiPipelineRow, CiStatus } from '../db/schema.js'

export const PIPELINE_SCOPES = ['running', 'pending', 'finished', 'branches', 'tags'] as const
export const PIPELINE_ORDERS = ['id', 'status', 'ref', 'user_id'] as const

export interface PipelineFilters {
  scope?: typeof PIPELINE_SCOPES[number]
  /** For the branches and tags scopes: the names of the project's branches or tags. */
  scopeRefs?: readonly string[]
  status?: CiStatus
  ref?: string
  sha?: string
  yamlErrors?: boolean
  username?: string
  /** The creator's name, exactly. */
  name?: string
  orderBy: typeof PIPELINE_ORDERS[number]
  sort: 'asc' | 'desc'
}

const FINISHED: readonly CiStatus[] = ['success', 'failed', 'canceled']

export async function findPipelinePage(db: Db, projectId: number, filters: PipelineFilters, pagination: PaginationQuery): Promise<Page<CiPipelineRow>> {
  let query = db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId)
  if (filters.scope === 'running' || filters.scope === 'pending') query = query.where('status', '=', filters.scope)
  if (filters.scope === 'finished') query = query.where('status', 'in', FINISHED)
  if (filters.scope === 'branches' || filters.scope === 'tags') {
    const refs = filters.scopeRefs ?? []
    // The latest pipeline of each of those refs.
    query = refs.length === 0 ? query.where((eb) => eb.val(false)) : query.where('id', 'in', db.selectFrom('ci_pipelines')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('project_id', '=', projectId).where('tag', '=', filters.scope === 'tags' ? 1 : 0).where('ref', 'in', refs)
      .groupBy('ref'))
  }
  if (filters.status !== undefined) query = query.where('status', '=', filters.status)
  if (filters.ref !== undefined) query = query.where('ref', '=', filters.ref)
  if (filters.sha !== undefined) query = query.where('sha', '=', filters.sha)
  if (filters.yamlErrors !== undefined) query = query.where('yaml_errors', filters.yamlErrors ? 'is not' : 'is', null)
  if (filters.username !== undefined) {
    query = query.where('user_id', 'in', db.selectFrom('users').select('id').where('username_lower', '=', filters.username.toLowerCase()))
  }
  if (filters.name !== undefined) query = query.where('user_id', 'in', db.selectFrom('users').select('id').where('name', '=', filters.name))
  query = query.orderBy(filters.orderBy, filters.sort)
  if (filters.orderBy !== 'id') query = query.orderBy('id', filters.sort)
  return paginate(db, query, pagination)
}

export async function findPipeline(db: Db, projectId: number, pipelineId: number): Promise<CiPipelineRow | null> {
  return await db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).where('id', '=', pipelineId).executeTakeFirst() ?? null
}

/** The latest pipeline of a commit of the project, or null when it has none. */
export async function latestPipelineOfCommit(db: Db, projectId: number, sha: string): Promise<CiPipelineRow | null> {
  return await db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).where('sha', '=', sha)
    .orderBy('id', 'desc').limit(1).executeTakeFirst() ?? null
}

/** Pipelines by id, for the jobs of a page. */
export async function pipelinesByIds(db: Db, ids: readonly number[]): Promise<Map<number, CiPipelineRow>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('ci_pipelines').selectAll().where('id', 'in', [...new Set(ids)]).execute()
  return new Map(rows.map((row) => [row.id, row]))
}
