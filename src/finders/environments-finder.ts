// Environments of a project, in the order they were made, as the original 11.5 lists them.
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import type { Db } from '../db/index.js'
import type { EnvironmentRow } from '../db/schema.js'

export function findEnvironmentPage(db: Db, projectId: number, pagination: PaginationQuery): Promise<Page<EnvironmentRow>> {
  return paginate(db, db.selectFrom('environments').selectAll().where('project_id', '=', projectId).orderBy('id'), pagination)
}

export async function findEnvironment(db: Db, projectId: number, environmentId: number): Promise<EnvironmentRow | null> {
  return await db.selectFrom('environments').selectAll().where('project_id', '=', projectId).where('id', '=', environmentId).executeTakeFirst() ?? null
}
