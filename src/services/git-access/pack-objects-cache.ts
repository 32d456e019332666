// The process's pack-objects cache (git/pack-objects-cache.ts), shared by smart HTTP and SSH, and
// the choice of the upload-packs that use it: only on repositories whose packs reach
// INGOT_PACK_OBJECTS_CACHE_MIN_REPOSITORY_MB, where a fetch is worth a hook's few processes and
// where identical concurrent clones cost the most; a small repository's upload-pack runs exactly
// as without the cache.
import fs from 'node:fs'
import path from 'node:path'
import type { AppContext } from '../../context.js'
import { installPackObjectsHook, PackObjectsCache } from '../../git/pack-objects-cache.js'
import { packObjectsChannelsOf, type ServiceProcess } from '../../git/smart-http.js'

/** How long an entry is served after its pack-objects started (Gitaly's default too). */
export const PACK_OBJECTS_CACHE_MAX_AGE_MS = 5 * 60_000

/** How long a repository's pack size is taken as known. */
const SIZE_KNOWN_MS = 30_000
const SIZES_KEPT = 1024

interface ProcessCache {
  cache: PackObjectsCache
  /** The hook's path once written; null when it could not be (fetches then go without the cache). */
  hook: Promise<string | null>
  sizes: Map<string, { bytes: number; at: number }>
}

const byConfig = new WeakMap<AppContext['config'], ProcessCache>()

function processCacheOf(ctx: Pick<AppContext, 'config' | 'log'>): ProcessCache | null {
  const { config } = ctx
  if (!config.packObjectsCache.enabled) return null
  let state = byConfig.get(config)
  if (state === undefined) {
    const cache = new PackObjectsCache({
      root: path.join(config.dataDir, 'tmp', 'pack-objects-cache'),
      maxAgeMs: PACK_OBJECTS_CACHE_MAX_AGE_MS,
      maxBytes: config.packObjectsCache.maxBytes,
      timeoutMs: config.gitServiceTimeoutMs,
      idleTimeoutMs: config.gitServiceIdleTimeoutMs,
      readerIdleTimeoutMs: config.gitServiceIdleTimeoutMs,
      onError: (err) => ctx.log.error({ err }, 'pack-objects cache failed'),
    })
    const hook = installPackObjectsHook(path.join(config.dataDir, 'git-hooks')).catch((err: unknown) => {
      ctx.log.error({ err }, 'the pack-objects cache\'s hook could not be written')
      return null
    })
    state = { cache, hook, sizes: new Map() }
    byConfig.set(config, state)
  }
  return state
}

/** The process's cache, when INGOT_PACK_OBJECTS_CACHE is on (its counters, for tests and metrics). */
export function packObjectsCacheOf(ctx: Pick<AppContext, 'config' | 'log'>): PackObjectsCache | null {
  return processCacheOf(ctx)?.cache ?? null
}

/** The process's cache if a fetch has started it (the metrics read it without starting one). */
export function startedPackObjectsCache(ctx: Pick<AppContext, 'config'>): PackObjectsCache | null {
  return byConfig.get(ctx.config)?.cache ?? null
}

/**
 * The bytes of a repository's packs (loose objects left out), known for SIZE_KNOWN_MS. Read
 * synchronously: a few stat calls of a directory git keeps small take microseconds, where a trip
 * through libuv's thread pool took milliseconds on a busy machine, in the path of every fetch.
 */
function packBytesOf(state: ProcessCache, gitDir: string): number {
  const known = state.sizes.get(gitDir)
  if (known !== undefined && Date.now() - known.at < SIZE_KNOWN_MS) return known.bytes
  const packDir = path.join(gitDir, 'objects', 'pack')
  let bytes = 0
  let names: string[] = []
  try {
    names = fs.readdirSync(packDir)
  } catch {
    // no packs yet
  }
  for (const name of names) {
    if (name.endsWith('.pack')) bytes += fs.statSync(path.join(packDir, name), { throwIfNoEntry: false })?.size ?? 0
  }
  if (state.sizes.size >= SIZES_KEPT) state.sizes.clear()
  state.sizes.set(gitDir, { bytes, at: Date.now() })
  return bytes
}

/** The hook for an upload-pack of `gitDir`, when its fetches should go through the cache. */
export async function packObjectsHookFor(ctx: Pick<AppContext, 'config' | 'log'>, gitDir: string): Promise<string | undefined> {
  const state = processCacheOf(ctx)
  if (state === null) return undefined
  if (packBytesOf(state, gitDir) < ctx.config.packObjectsCache.minRepositoryBytes) return undefined
  return (await state.hook) ?? undefined
}

/** Serves the hook of an upload-pack started with packObjectsHookFor's hook, until it exits. */
export function attachPackObjectsCache(ctx: Pick<AppContext, 'config' | 'log'>, gitDir: string, service: ServiceProcess): void {
  const cache = packObjectsCacheOf(ctx)
  const channels = packObjectsChannelsOf(service)
  const close = () => { for (const socket of Object.values(channels)) socket.destroy() }
  service.child.once('exit', close)
  service.child.once('error', close)
  if (cache === null) close()
  else cache.attach(gitDir, channels)
}

/** Stops the process's cache and removes its files (the app's close). */
export async function closePackObjectsCache(ctx: Pick<AppContext, 'config'>): Promise<void> {
  const state = byConfig.get(ctx.config)
  if (state === undefined) return
  byConfig.delete(ctx.config)
  await state.cache.close()
}
