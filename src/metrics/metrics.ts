// The metrics of a running app, scraped at /-/metrics (api/metrics.ts) in Prometheus's text format:
// requests by route pattern, method and status with their durations (observed by request-log.ts
// as each request completes), the process's own (process.ts), and those of each source below.
import { Counter, Histogram, Registry } from 'prom-client'
import type { AppContext } from '../context.js'
import { processMetrics } from './process.js'
import { registerDatabaseMetrics } from './database.js'
import { registerJobMetrics } from './jobs.js'
import { registerPackObjectsCacheMetrics } from './pack-objects-cache.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false leaves the route's requests out of the request metrics (the scrape itself). */
    metrics?: boolean
  }
}

/**
 * A part of Ingot that adds its collectors to the app's registry. Collectors read `ctx` when
 * scraped (a Gauge's or Counter's `collect`), so the work they measure pays nothing for them. A
 * source that subscribes to something returns the unsubscribe, called when the app closes.
 */
export type MetricsSource = (registry: Registry, ctx: AppContext) => (() => void) | void

/** Every source beyond requests and the process. */
const SOURCES: readonly MetricsSource[] = [registerDatabaseMetrics, registerJobMetrics, registerPackObjectsCacheMetrics]

/** The route label of requests no route matched: one series for all, whatever their URLs. */
export const UNMATCHED_ROUTE = 'unmatched'

// In seconds: API answers take milliseconds; clones and pushes of large repositories, minutes.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

export class Metrics {
  readonly registry = new Registry()
  private readonly requests = new Counter({
    name: 'ingot_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  })
  private readonly durations = new Histogram({
    name: 'ingot_http_request_duration_seconds',
    help: 'Time from a request\'s arrival to the last byte of its answer, by route pattern and method',
    labelNames: ['route', 'method'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  })

  private readonly unsubscribes: (() => void)[] = []

  constructor(ctx: AppContext) {
    for (const register of SOURCES) {
      const unsubscribe = register(this.registry, ctx)
      if (unsubscribe !== undefined) this.unsubscribes.push(unsubscribe)
    }
  }

  /** Stops listening to the context: it may outlive this app (tests build several on one context). */
  close(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe()
  }

  /** One answered request. On every request's path: one increment and one observation, nothing more. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ route, method, status })
    this.durations.observe({ route, method }, seconds)
  }

  readonly contentType = this.registry.contentType

  /** The exposition text: the process's metrics, then the app's. */
  scrape(): Promise<string> {
    return Registry.merge([processMetrics(), this.registry]).metrics()
  }
}
