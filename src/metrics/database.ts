// Use of the PostgreSQL connection pool, read from pg's Pool when scraped. On SQLite there is no
// pool to report: one connection answers every query at once in the process's own thread, so
// nothing ever waits for a connection and these series are left out.
import { Gauge, type Registry } from 'prom-client'
import { connectionPoolUse, type ConnectionPoolUse } from '../db/index.js'
import type { AppContext } from '../context.js'

export function registerDatabaseMetrics(registry: Registry, ctx: AppContext): void {
  if (ctx.dialect !== 'postgres') return
  const gauge = (name: string, help: string, read: (use: ConnectionPoolUse) => number) =>
    new Gauge({
      name, help, registers: [registry],
      collect() {
        const use = connectionPoolUse(ctx.db)
        if (use !== null) this.set(read(use))
      },
    })
  gauge('ingot_db_pool_connections', 'PostgreSQL connections open in the pool', (use) => use.total)
  gauge('ingot_db_pool_idle_connections', 'PostgreSQL connections open in the pool and idle', (use) => use.idle)
  gauge('ingot_db_pool_waiting_queries', 'Queries waiting for a PostgreSQL connection from the pool', (use) => use.waiting)
}
