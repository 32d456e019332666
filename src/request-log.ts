// One log line per request, written when it completes: method, path without the query string
// (which may carry private_token), status and time; the logger adds the request id. Fastify's own
// request lines are left out.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

export class RequestLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'request_id' })
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      path: request.originalUrl.split('?', 1)[0],
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    }
    if (error) reply.log.error({ ...line, err: error }, 'request failed')
    else reply.log.info(line, 'request')
  }
}
