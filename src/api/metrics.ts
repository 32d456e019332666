// GET /-/metrics: the app's metrics (metrics/metrics.ts) in Prometheus's text format, for the
// addresses INGOT_METRICS_ALLOW names (default: this machine) and without authentication. Any
// other caller gets the answer of an unknown URL, so the page's existence tells nobody anything.
// Its own requests are left out of the request metrics, so scraping does not move what it reads.
// `ingot web` mounts it in its app; `ingot worker`, which has no HTTP server, serves it alone on
// INGOT_WORKER_METRICS_PORT (serveMetrics).
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'
import type { AppContext } from '../context.js'
import { AddressAllowList } from '../metrics/allow-list.js'
import { Metrics } from '../metrics/metrics.js'

export const METRICS_PATH = '/-/metrics'

export interface MetricsRouteOptions {
  metrics: Metrics
  /** INGOT_METRICS_ALLOW: addresses and CIDR ranges. */
  allow: readonly string[]
}

const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (app, { metrics, allow }) => {
  const allowList = new AddressAllowList(allow)
  app.get(METRICS_PATH, { config: { auth: 'none', metrics: false } }, async (req, reply) => {
    if (!allowList.allowsRequest(req.socket.remoteAddress, req.headers)) return reply.callNotFound()
    return reply.type(metrics.contentType).send(await metrics.scrape())
  })
}

export default metricsRoute

/**
 * `ingot worker`'s listener: only /-/metrics, with the process's and the job system's metrics, on
 * INGOT_HOST:INGOT_WORKER_METRICS_PORT. Every other URL, and a refused caller, get the web app's
 * answer to an unknown URL. Closing it stops the metrics listening to the context.
 */
export async function serveMetrics(ctx: AppContext): Promise<FastifyInstance> {
  const metrics = new Metrics(ctx)
  // No logger: scrapes are not worth a log line each, and failures to read are logged where they happen (metrics/).
  const app = Fastify()
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: '404 Not Found' }))
  app.addHook('onClose', async () => metrics.close())
  await app.register(metricsRoute, { metrics, allow: ctx.config.metricsAllow })
  await app.listen({ host: ctx.config.host, port: ctx.config.workerMetricsPort })
  return app
}
