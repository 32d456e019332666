// Deployments of a project (by id, iid, created_at or ref, ascending by default, as the original
// 11.5), and what a page of them shows: their environments, users and jobs, each loaded once for
// the whole page.
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import type { Db } from '../db/index.js'
import type { DeploymentRow } from '../db/schema.js'
import type { DeploymentView } from '../entities/deployment.js'
import type { GitRepository } from '../git/repository.js'
import { loadJobViews } from './jobs-finder.js'
import { usersById } from './rows.js'

export const DEPLOYMENT_ORDERS = ['id', 'iid', 'created_at', 'ref'] as const
export type DeploymentOrder = typeof DEPLOYMENT_ORDERS[number]

export function findDeploymentPage(
  db: Db, projectId: number, order: { orderBy: DeploymentOrder; sort: 'asc' | 'desc' }, pagination: PaginationQuery,
): Promise<Page<DeploymentRow>> {
  let query = db.selectFrom('deployments').selectAll().where('project_id', '=', projectId).orderBy(order.orderBy, order.sort)
  // Equal times and refs keep one order from page to page.
  if (order.orderBy === 'created_at' || order.orderBy === 'ref') query = query.orderBy('id', order.sort)
  return paginate(db, query, pagination)
}

export async function findDeployment(db: Db, projectId: number, deploymentId: number): Promise<DeploymentRow | null> {
  return await db.selectFrom('deployments').selectAll().where('project_id', '=', projectId).where('id', '=', deploymentId).executeTakeFirst() ?? null
}

/** The views of some deployments of one project: one query each for their environments, users and jobs. */
export async function loadDeploymentViews(db: Db, repo: GitRepository, deployments: readonly DeploymentRow[]): Promise<DeploymentView[]> {
  if (deployments.length === 0) return []
  const environmentIds = [...new Set(deployments.map((deployment) => deployment.environment_id))]
  const environments = new Map((await db.selectFrom('environments').selectAll().where('id', 'in', environmentIds).execute()).map((row) => [row.id, row]))
  const users = await usersById(db, [...new Set(deployments.flatMap((deployment) => (deployment.user_id === null ? [] : [deployment.user_id])))])
  const jobIds = [...new Set(deployments.flatMap((deployment) => (deployment.deployable_id === null ? [] : [deployment.deployable_id])))]
  const jobs = jobIds.length === 0 ? [] : await db.selectFrom('ci_builds').selectAll().where('id', 'in', jobIds).execute()
  const jobViews = new Map((await loadJobViews(db, repo, jobs)).map((view) => [view.job.id, view]))
  return deployments.map((deployment) => ({
    deployment,
    environment: environments.get(deployment.environment_id)!,
    user: deployment.user_id === null ? null : users.get(deployment.user_id) ?? null,
    deployable: deployment.deployable_id === null ? null : jobViews.get(deployment.deployable_id) ?? null,
  }))
}

/** One environment's deployments, newest first. */
export function findEnvironmentDeploymentPage(db: Db, environmentId: number, pagination: PaginationQuery): Promise<Page<DeploymentRow>> {
  return paginate(db, db.selectFrom('deployments').selectAll().where('environment_id', '=', environmentId).orderBy('id', 'desc'), pagination)
}

/** Each environment's newest deployment, in one query. */
export async function latestDeploymentsOf(db: Db, environmentIds: readonly number[]): Promise<Map<number, DeploymentRow>> {
  if (environmentIds.length === 0) return new Map()
  const rows = await db.selectFrom('deployments').selectAll()
    .where('id', 'in', db.selectFrom('deployments').select((eb) => eb.fn.max('id').as('id')).where('environment_id', 'in', [...environmentIds]).groupBy('environment_id'))
    .execute()
  return new Map(rows.map((row) => [row.environment_id, row]))
}
