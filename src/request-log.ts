// What each request leaves behind when it completes: one log line (method, path without the query
// string, which may carry private_token, status and time; the logger adds the request id) and its
// observation in the request metrics. Fastify's own request lines are left out.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import { UNMATCHED_ROUTE, type Metrics } from './metrics/metrics.js'

export class RequestLog extends LogController {
  constructor(private readonly metrics: Metrics) {
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
    const { url, config } = request.routeOptions
    if (config.metrics !== false) {
      this.metrics.observeRequest(url ?? UNMATCHED_ROUTE, request.method, reply.statusCode, reply.elapsedTime / 1000)
    }
  }
}
