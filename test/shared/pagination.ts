// Shared checks for every list: the seven pagination headers, with Link URLs that are absolute
// (INGOT_EXTERNAL_URL) and keep the caller's other query parameters.
import assert from 'node:assert/strict'
import { EXTERNAL_URL, type ApiResponse, type TestApp } from '../helpers/app.js'

export interface PaginatedList {
  t: TestApp
  /** The list's path below /api/v4, possibly with a query string of its own. */
  path: string
  token: string | null
  /** How many items the list holds in total for this caller; at least 3. */
  total: number
}

/** Page 2 with per_page=1 of a list holding `total` items: every header and link. */
export async function expectPaginates({ t, path, token, total }: PaginatedList): Promise<ApiResponse> {
  assert.ok(total >= 3, 'a paginated list check needs at least three items')
  const separator = path.includes('?') ? '&' : '?'
  const res = await t.api('GET', `${path}${separator}per_page=1&page=2`, { token })
  assert.equal(res.status, 200, res.text)
  assert.equal(res.body.length, 1)
  assert.equal(res.headers['x-total'], String(total))
  assert.equal(res.headers['x-total-pages'], String(total))
  assert.equal(res.headers['x-per-page'], '1')
  assert.equal(res.headers['x-page'], '2')
  assert.equal(res.headers['x-next-page'], '3')
  assert.equal(res.headers['x-prev-page'], '1')
  const link = String(res.headers.link)
  for (const rel of ['prev', 'next', 'first', 'last']) assert.match(link, new RegExp(`<[^>]+>; rel="${rel}"`))
  const base = `${EXTERNAL_URL}/api/v4${path.split('?')[0]}`
  for (const url of link.matchAll(/<([^>]+)>/g)) {
    const target = new URL(url[1] ?? '')
    assert.equal(`${target.origin}${target.pathname}`, base)
    for (const [key, value] of new URLSearchParams(path.split('?')[1] ?? '')) assert.equal(target.searchParams.get(key), value)
  }
  const all = await t.api('GET', `${path}${separator}per_page=100`, { token })
  assert.equal(all.body.length, total)
  return res
}

/**
 * page and per_page that are not positive whole numbers are 400 "<param> is invalid", and so is a
 * page beyond 2^31 - 1 or a number too large to be finite ("1e309").
 */
export async function expectRejectsBadPagination(t: TestApp, path: string, token: string | null): Promise<void> {
  const separator = path.includes('?') ? '&' : '?'
  const bad = [['page', '0'], ['per_page', 'abc'], ['per_page', '0'], ['page', '-1'], ['page', '2147483648'], ['page', '1e309'], ['per_page', '1e309']] as const
  for (const [param, value] of bad) {
    const res = await t.api('GET', `${path}${separator}${param}=${value}`, { token })
    assert.equal(res.status, 400, `${param}=${value}`)
    assert.deepEqual(res.body, { error: `${param} is invalid` })
  }
  const clamped = await t.api('GET', `${path}${separator}per_page=1000`, { token })
  assert.equal(clamped.status, 200)
  assert.equal(clamped.headers['x-per-page'], '100')
}
