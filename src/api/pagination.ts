// The HTTP side of pagination (spec: Limits; pages themselves are common/pages.ts): the seven
// headers with absolute Link URLs that keep the caller's other query parameters, and pages of lists
// computed in full. Page or per_page below 1, or not a number, is 400 "<param> is invalid".
import type { FastifyReply, FastifyRequest } from 'fastify'
import { pageParams, type Page, type PaginationQuery } from '../common/pages.js'

/** Query parameters that carry credentials: never echoed back. */
export const TOKEN_PARAMS = ['private_token', 'access_token']

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

/** X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page and Link of a page. */
export function paginationHeaders(req: FastifyRequest, page: Page<unknown>): Record<string, string> {
  const { externalUrl } = req.ingot.config
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
