// GET /-/metrics: the app's metrics (metrics/metrics.ts) in Prometheus's text format, for the
// addresses INGOT_METRICS_ALLOW names (default: this machine) and without authentication. Any
// other caller gets the answer of an unknown URL, so the page's existence tells nobody anything.
// Its own requests are left out of the request metrics, so scraping does not move what it reads.
import type { FastifyPluginAsync } from 'fastify'
import { AddressAllowList } from '../metrics/allow-list.js'
import type { Metrics } from '../metrics/metrics.js'

export const METRICS_PATH = '/-/metrics'

const metricsRoute: FastifyPluginAsync<{ metrics: Metrics }> = async (app, { metrics }) => {
  const allowList = new AddressAllowList(app.ingot.config.metricsAllow)
  app.get(METRICS_PATH, { config: { auth: 'none', metrics: false } }, async (req, reply) => {
    if (!allowList.allowsRequest(req.socket.remoteAddress, req.headers)) return reply.callNotFound()
    return reply.type(metrics.contentType).send(await metrics.scrape())
  })
}

export default metricsRoute
