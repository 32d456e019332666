// Offset pagination for every list (spec: Limits): page default 1, per_page default 20 and at most
// 100 (larger values are clamped, as the original does; page or per_page below 1, or not a
// number, is 400 "<param> is invalid"), and the seven headers with absolute Link URLs that keep the
// caller's other query parameters.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { sql, type SelectQueryBuilder } from 'kysely'
import type { Db } from '../db/index.js'
import type { PaginationQuery } from './params.js'

export const MAX_PER_PAGE = 100

/** Query parameters that carry credentials: never echoed back. */
export const TOKEN_PARAMS = ['private_token', 'access_token']

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

/**
 * One page of a list computed in full (git answers whole lists, like Kaminari's paginate_array),
 * with the pagination headers set, presented.
 */
export function sendArrayPage<T, R>(req: FastifyRequest, reply: FastifyReply, items: readonly T[], params: PaginationQuery, present: (item: T) => R): R[] {
  const { page, perPage } = pageParams(params)
  const slice: Page<T> = { items: items.slice((page - 1) * perPage, page * perPage), total: items.length, page, perPage }
  setPaginationHeaders(req, reply, slice)
  return slice.items.map(present)
}

async function countRows<O>(db: Db, query: AnySelect<O>, total: PaginateOptions['total']): Promise<number> {
  if (typeof total === 'number') return total
  if (typeof total === 'function') return total()
  const rows = query.clearSelect().clearOrderBy().select(sql<number>`1`.as('one')).as('counted_rows')
  const row = await db.selectFrom(rows).select(sql<number>`count(*)`.as('count')).executeTakeFirstOrThrow()
  return Number(row.count)
}

/** X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page and Link of a page. */
export function paginationHeaders(req: FastifyRequest, page: Page<unknown>): Record<string, string> {
  const { externalUrl } = req.server.ingot.config
  const totalPages = Math.max(1, Math.ceil(page.total / page.perPage))
  const next = page.page < totalPages ? page.page + 1 : null
  const prev = page.page > 1 && page.page <= totalPages ? page.page - 1 : null
  const [pathname = '', search = ''] = req.url.split('?', 2)
  const linkTo = (n: number) => {
    const params = new URLSearchParams(search)
    // A token sent in the query string is never written back into a response.
    for (const carrier of TOKEN_PARAMS) params.delete(carrier)
    params.set('page', String(n))
    params.set('per_page', String(page.perPage))
    return `${externalUrl}${pathname}?${params.toString()}`
  }
  const links: string[] = []
  if (prev !== null) links.push(`<${linkTo(prev)}>; rel="prev"`)
  if (next !== null) links.push(`<${linkTo(next)}>; rel="next"`)
  links.push(`<${linkTo(1)}>; rel="first"`, `<${linkTo(totalPages)}>; rel="last"`)
  return {
    'x-total': String(page.total),
    'x-total-pages': String(totalPages),
    'x-per-page': String(page.perPage),
    'x-page': String(page.page),
    'x-next-page': next === null ? '' : String(next),
    'x-prev-page': prev === null ? '' : String(prev),
    link: links.join(', '),
  }
}

/** Sets the pagination headers of a page on the reply. */
export function setPaginationHeaders(req: FastifyRequest, reply: FastifyReply, page: Page<unknown>): void {
  void reply.headers(paginationHeaders(req, page))
}
