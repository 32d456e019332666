// The heap's bounds for a serving process (`ingot web`, once started). Under the 1k-user load mix
// (bench/load-mix.ts) V8's defaults took the server from 141 MB idle to 177–187 MB, for a live heap
// that hardly grew:
//   - the young generation (two semi-spaces) grew to 2 × 16 MiB as soon as allocation was brisk and
//     stayed so while the load lasted, 31 MB of RSS for a live part under 1 MB between requests.
//     Node takes `--max-semi-space-size` only on its command line, so a running process bounds it
//     by the growth factor: after every garbage collection growth is allowed (V8's own factor 2)
//     while one more doubling stays within YOUNG_GENERATION_BOUND, and stopped (factor 1) past it;
//     V8 still shrinks it when the load ends;
//   - the old generation had no full collection at all: V8 lets it grow to a large initial limit
//     before the first one, and recomputes the limit only then (1.5–4 × the live size, its dynamic
//     factor). Requests' promoted garbage took the old space from 25 to 60 MB used within a minute
//     while its live part stayed about 30 MB. So once started, one full collection is run (through
//     a gc function taken from a new context, without exposing gc to the process), and
//     OLD_GENERATION_GROWING_PERCENT holds the factor at 1.5 × (V8 still grows by at least 8 MB a
//     step).
// Nothing else changes: the same objects live, collections only come more often. Heap flags given to
// node (`--max-semi-space-size`, `--semi-space-growth-factor`, `--heap-growing-percent`, also through
// NODE_OPTIONS) are left alone, as start-up-heap.ts does.
import v8 from 'node:v8'
import vm from 'node:vm'
import { PerformanceObserver } from 'node:perf_hooks'

/** The young generation's largest size (both semi-spaces): 2 × 4 MiB. */
export const YOUNG_GENERATION_BOUND = 8 * 1024 * 1024

/** The old generation may grow to (100 + this) % of what the last full collection left. */
export const OLD_GENERATION_GROWING_PERCENT = 50

/** V8's own default (Node 20): each growth doubles the semi-spaces. */
const GROWTH_FACTOR = 2

/** The young generation's present size (both semi-spaces), in bytes. */
export function youngGenerationSize(): number {
  for (const space of v8.getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_size
  return 0
}

/** One full garbage collection now: V8 sets the old generation's next limit from what it leaves. */
function fullCollection(): void {
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc') as () => void
  v8.setFlagsFromString('--no-expose-gc')
  gc()
}

/** Bounds the heap as above from now on; call once start-up has ended (after endStartUp). Returns what stops the young generation's watch. */
export function boundServingHeap(): () => void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? '']
  if (!given.some((option) => option.includes('heap-growing') || option.includes('heap_growing'))) {
    v8.setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWING_PERCENT}`)
  }
  fullCollection()
  if (given.some((option) => option.includes('semi-space') || option.includes('semi_space'))) return () => {}
  let factor = 0
  const check = () => {
    const next = youngGenerationSize() * GROWTH_FACTOR <= YOUNG_GENERATION_BOUND ? GROWTH_FACTOR : 1
    if (next === factor) return
    factor = next
    v8.setFlagsFromString(`--semi-space-growth-factor=${factor}`)
  }
  check()
  const observer = new PerformanceObserver(check)
  observer.observe({ entryTypes: ['gc'] })
  return () => observer.disconnect()
}
