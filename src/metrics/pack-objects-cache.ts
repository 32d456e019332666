// The pack-objects cache's counters (git/pack-objects-cache.ts), read when scraped: requests by
// how they were answered, pack-objects runs, failures, evictions, and the bytes its files take.
// Nothing while no fetch has used the cache in this process.
import { Counter, Gauge, type Registry } from 'prom-client'
import type { AppContext } from '../context.js'
import type { PackObjectsCacheStats } from '../git/pack-objects-cache.js'
import { startedPackObjectsCache } from '../services/git-access/pack-objects-cache.js'

export function registerPackObjectsCacheMetrics(registry: Registry, ctx: AppContext): void {
  const counter = (name: string, help: string, stat: keyof PackObjectsCacheStats) =>
    new Counter({
      name, help, registers: [registry],
      collect() {
        const cache = startedPackObjectsCache(ctx)
        this.reset()
        if (cache !== null) this.inc(cache.stats[stat])
      },
    })
  counter('ingot_pack_objects_cache_requests_total', 'Fetches whose upload-pack asked the pack-objects cache for a pack', 'requests')
  counter('ingot_pack_objects_cache_bypassed_total', 'Of those, the ones git packed itself (a filter or option the cache does not key)', 'bypassed')
  counter('ingot_pack_objects_cache_hits_total', 'Fetches served from a pack another identical fetch had started', 'hits')
  counter('ingot_pack_objects_cache_runs_total', 'pack-objects the cache ran', 'runs')
  counter('ingot_pack_objects_cache_failed_runs_total', 'pack-objects of the cache that failed or were stopped when their last reader left', 'failedRuns')
  counter('ingot_pack_objects_cache_failed_requests_total', 'Fetches the cache could not give a whole pack', 'failedRequests')
  counter('ingot_pack_objects_cache_evictions_total', 'Packs removed by expiry or to make room', 'evicted')
  new Gauge({
    name: 'ingot_pack_objects_cache_bytes', help: 'Bytes the pack-objects cache\'s files take', registers: [registry],
    collect() {
      this.set(startedPackObjectsCache(ctx)?.size ?? 0)
    },
  })
}
