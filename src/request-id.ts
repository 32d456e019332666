// Request ids. An incoming X-Request-Id that is short and plain (up to 128 of A-Z a-z 0-9 . _ -)
// is kept, so that a proxy's id follows the request into our logs; anything else is replaced by a
// new random one. Fastify asks requestIdOf for each request's id; it is then in every log line of
// the request (request-log.ts) and in the X-Request-Id of the answer (app.ts).
import { randomFillSync } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

export const REQUEST_ID_HEADER = 'x-request-id'

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/
const ID_BYTES = 8

// Random bytes are drawn in batches: one call into the system per 512 ids, not one per request.
const randomBytes = Buffer.alloc(ID_BYTES * 512)
let nextByte = randomBytes.length

/** 16 random hex digits. */
export function newRequestId(): string {
  if (nextByte === randomBytes.length) {
    randomFillSync(randomBytes)
    nextByte = 0
  }
  nextByte += ID_BYTES
  return randomBytes.toString('hex', nextByte - ID_BYTES, nextByte)
}

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER]
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : newRequestId()
}
