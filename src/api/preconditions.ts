// Conditional requests of the original's deletes (spec: Errors, 412): a DELETE sent with
// If-Unmodified-Since is refused when the resource changed after that instant.
import type { FastifyRequest } from 'fastify'
import { apiError } from '../common/errors.js'

export function checkUnmodifiedSince(req: FastifyRequest, lastModified: number): void {
  const header = req.headers['if-unmodified-since']
  const since = typeof header === 'string' ? Date.parse(header) : Number.NaN
  // HTTP dates have whole seconds: a change within the same second is not "after" it.
  if (!Number.isNaN(since) && Math.floor(lastModified / 1000) * 1000 > since) throw apiError(412, '412 Precondition Failed')
}
