// Offset pagination as every list has it (spec: Limits): page default 1, per_page default 20 and
// at most 100 (larger values are clamped, as the original does). Finders run one page of a query
// here; the HTTP layer (api/pagination.ts) turns a page into the seven pagination headers.
import { sql, type SelectQueryBuilder } from 'kysely'
import type { Db } from '../db/index.js'

export const MAX_PER_PAGE = 100

/** The `page` and `per_page` parameters of a list, validated by the route (api/params.ts Pagination). */
export interface PaginationQuery {
  page: number
  per_page: number
}

export interface Page<T> {
  items: T[]
  total: number
  page: number
  perPage: number
}

export interface PaginateOptions {
  /** A known total (from a maintained counter) instead of counting the query's rows. */
  total?: number | (() => Promise<number>)
}

// The query's table and selection types vary per caller; only its rows' type O matters here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect<O> = SelectQueryBuilder<any, any, O>

export function pageParams(query: PaginationQuery): { page: number; perPage: number } {
  return { page: query.page, perPage: Math.min(query.per_page, MAX_PER_PAGE) }
}

/**
 * Runs one page of an ordered query and its total. The query must already carry a stable order
 * (end it with the id). A query with DISTINCT must pass its own total.
 */
export async function paginate<O>(db: Db, query: AnySelect<O>, params: PaginationQuery, options: PaginateOptions = {}): Promise<Page<O>> {
  const { page, perPage } = pageParams(params)
  const [items, total] = await Promise.all([
    query.limit(perPage).offset((page - 1) * perPage).execute(),
    countRows(db, query, options.total),
  ])
  return { items, total, page, perPage }
}

async function countRows<O>(db: Db, query: AnySelect<O>, total: PaginateOptions['total']): Promise<number> {
  if (typeof total === 'number') return total
  if (typeof total === 'function') return total()
  const rows = query.clearSelect().clearOrderBy().select(sql<number>`1`.as('one')).as('counted_rows')
  const row = await db.selectFrom(rows).select(sql<number>`count(*)`.as('count')).executeTakeFirstOrThrow()
  return Number(row.count)
}
