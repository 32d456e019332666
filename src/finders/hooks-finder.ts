// Web hooks as their API lists and shows them: a project's hooks and the instance's system hooks
// (those without a project), a page in creation order or one by id. Which hooks hear an event is
// the deliveries' question (services/hooks/deliveries.ts).
import type { Db } from '../db/index.js'
import type { WebHookRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'

export function listProjectHooks(db: Db, projectId: number, pagination: PaginationQuery): Promise<Page<WebHookRow>> {
  return paginate(db, db.selectFrom('web_hooks').selectAll().where('project_id', '=', projectId).orderBy('id'), pagination)
}

/** One of the project's hooks; null for an id it has no hook under. */
export async function findProjectHook(db: Db, projectId: number, hookId: number): Promise<WebHookRow | null> {
  if (!fitsIntegerColumn(hookId)) return null
  const hook = await db.selectFrom('web_hooks').selectAll().where('project_id', '=', projectId).where('id', '=', hookId).executeTakeFirst()
  return hook ?? null
}

export function listSystemHooks(db: Db, pagination: PaginationQuery): Promise<Page<WebHookRow>> {
  return paginate(db, db.selectFrom('web_hooks').selectAll().where('project_id', 'is', null).orderBy('id'), pagination)
}

/** One system hook; null for an id no system hook has (a project's hook included). */
export async function findSystemHook(db: Db, hookId: number): Promise<WebHookRow | null> {
  if (!fitsIntegerColumn(hookId)) return null
  const hook = await db.selectFrom('web_hooks').selectAll().where('project_id', 'is', null).where('id', '=', hookId).executeTakeFirst()
  return hook ?? null
}
