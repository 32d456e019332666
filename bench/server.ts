// The server under test: Ingot as `ingot web` builds and runs it (background jobs included), plus the floor each measurement is set
// beside — GET /-/floor/<name> answers, from the same process, the body and headers the real
// endpoint gave for the same request, precomputed once. Configured from the environment (INGOT_*)
// and BENCH_TARGETS, a JSON array of {name, path, token}.
import { pino } from 'pino'
import type { FastifyInstance } from 'fastify'
import { loadConfig } from '../src/config.js'
import { openContext } from '../src/context.js'
import { buildApp } from '../src/app.js'
import { seedRoot } from '../src/services/users/seed-root.js'

export interface BenchTarget {
  name: string
  /** Path and query, e.g. /api/v4/projects?per_page=20 */
  path: string
  token: string
  /** Headers sent beside the token, so the floor holds the same answer (`accept-encoding` for pages). */
  headers?: Record<string, string>
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length'])

interface Floor {
  status: number
  headers: Record<string, string>
  body: string
}

async function precomputeFloors(app: FastifyInstance, targets: readonly BenchTarget[], floors: Map<string, Floor>) {
  for (const target of targets) {
    const res = await app.inject({ method: 'GET', url: target.path, headers: { 'private-token': target.token, ...target.headers } })
    if (res.statusCode !== 200) throw new Error(`${target.name}: ${target.path} answered ${res.statusCode}: ${res.body.slice(0, 200)}`)
    const headers: Record<string, string> = {}
    for (const [key, value] of Object.entries(res.headers)) {
      if (!HOP_BY_HOP.has(key) && value !== undefined) headers[key] = String(value)
    }
    floors.set(target.name, { status: res.statusCode, headers, body: res.body })
  }
}

async function main() {
  const config = loadConfig()
  const log = pino({ level: config.logLevel })
  const ctx = await openContext(config, log)
  await seedRoot(ctx)
  const targets = JSON.parse(process.env.BENCH_TARGETS ?? '[]') as BenchTarget[]
  const app = await buildApp(ctx)
  const floors = new Map<string, Floor>()
  app.get<{ Params: { name: string } }>('/-/floor/:name', { config: { auth: 'none' } }, async (req, reply) => {
    const floor = floors.get(req.params.name)
    if (floor === undefined) return reply.code(404).send()
    return reply.code(floor.status).headers(floor.headers).send(floor.body)
  })
  await app.ready()
  await precomputeFloors(app, targets, floors)
  await app.listen({ port: config.port, host: config.host })
  // As `ingot web` does unless told not to: pushes' jobs (housekeeping, statistics) run here.
  if (config.webJobs) await ctx.jobs.start()
  process.stdout.write('READY\n')
  const stop = () => void app.close().then(() => ctx.close()).then(() => process.exit(0))
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

void main().catch((err: unknown) => {
  process.stderr.write(`bench server: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
