// The content type of every JSON answer: `application/json` exactly, as the original sends it.
// python-gitlab (3.x) parses a body only when the header is exactly that, and Fastify's default
// adds `; charset=utf-8` (JSON is UTF-8 by definition: nothing is lost by leaving it out).
import type { FastifyInstance } from 'fastify'

export const JSON_TYPE = 'application/json'

const FASTIFY_JSON_TYPE = 'application/json; charset=utf-8'

/** Answers serialized by Fastify itself (objects, errors) get JSON_TYPE too. */
export function sendExactJsonType(app: FastifyInstance): void {
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (reply.getHeader('content-type') === FASTIFY_JSON_TYPE) void reply.header('content-type', JSON_TYPE)
    done(null, payload)
  })
}
