// Whole rows by id through each table's read cache (db/read-cache.ts): what list pages and embedded
// resources load most. A list's page query selects only ids; its rows come from here.
import type { Db } from '../db/index.js'
import type { NamespaceRow, ProjectRow, UserRow } from '../db/schema.js'
import { cachedRowsById } from '../db/read-cache.js'
import type { Page } from '../common/pages.js'

export function usersById(db: Db, ids: readonly number[]): Promise<Map<number, UserRow>> {
  return cachedRowsById(db, 'users', ids, (some) => db.selectFrom('users').selectAll().where('id', 'in', some).execute())
}

export function projectsById(db: Db, ids: readonly number[]): Promise<Map<number, ProjectRow>> {
  return cachedRowsById(db, 'projects', ids, (some) => db.selectFrom('projects').selectAll().where('id', 'in', some).execute())
}

export function namespacesById(db: Db, ids: readonly number[]): Promise<Map<number, NamespaceRow>> {
  return cachedRowsById(db, 'namespaces', ids, (some) => db.selectFrom('namespaces').selectAll().where('id', 'in', some).execute())
}

/** A page of ids as the page of their rows, in the page's order (a row deleted meanwhile drops out). */
export async function withRows<Row>(
  page: Page<{ id: number }>, load: (ids: number[]) => Promise<Map<number, Row>>,
): Promise<Page<Row>> {
  const rows = await load(page.items.map((item) => item.id))
  return { ...page, items: page.items.flatMap((item) => rows.get(item.id) ?? []) }
}
