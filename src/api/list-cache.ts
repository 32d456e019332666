// Caching for the busiest answers, through the read caches of db/read-cache.ts (so a write to any
// table an answer was read from ends it):
//   - a list's whole answer (its JSON and pagination headers), per caller and per request URL;
//   - the JSON of each item, per item and per whatever else changes its JSON (such as the caller's
//     access level), shared by every answer that shows the item.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import { readCacheOf } from '../db/read-cache.js'
import { TOKEN_PARAMS } from './pagination.js'
import { JSON_TYPE } from './json-type.js'

export interface CachedList {
  /** Names the cache: one per list. */
  name: string
  /** The tables the list is read from. */
  tables: readonly string[]
}

/** The caller and the URL with its parameters, less any credentials it carried. */
function responseKey(req: FastifyRequest): string {
  const caller = req.actor === null ? 'anonymous' : String(req.actor.user.id)
  const [path = '', search] = req.url.split('?', 2)
  if (search === undefined) return `${caller}|${path}`
  // Most queries carry no credential and nothing escaped: taken as sent, without parsing them.
  if (!search.includes('token') && !search.includes('%')) return `${caller}|${path}?${search}`
  const params = new URLSearchParams(search)
  for (const carrier of TOKEN_PARAMS) params.delete(carrier)
  return `${caller}|${path}?${params.toString()}`
}

// Bounds, in characters of JSON, of each list's answers and of each kind of item's JSON.
const LIST_CACHE_BYTES = 16 * 1024 * 1024
const JSON_CACHE_BYTES = 16 * 1024 * 1024

function jsonCache(req: FastifyRequest, fragments: CachedList) {
  return readCacheOf<string>(req.ingot.db, `json:${fragments.name}`, {
    tables: fragments.tables, maxWeight: JSON_CACHE_BYTES, weigh: (json) => json.length,
  })
}

export interface ListResponse {
  headers: Record<string, string>
  body: string
}

/** Sends a list's answer, produced once per caller and URL until a watched table is written. */
export async function sendCachedList(
  req: FastifyRequest, reply: FastifyReply, list: CachedList, produce: () => Promise<ListResponse>,
): Promise<FastifyReply> {
  const cache = readCacheOf<ListResponse>(req.ingot.db, `list:${list.name}`, {
    tables: list.tables, maxWeight: LIST_CACHE_BYTES, weigh: (response) => response.body.length,
  })
  const response = cache === null ? await produce() : await cache.get(responseKey(req), produce)
  return reply.headers(response.headers).type(JSON_TYPE).send(response.body)
}

export interface ItemFragments<T> extends CachedList {
  /** What makes an item's JSON what it is, or null when it must not be cached. */
  keyOf(item: T): string | null
}

/** Serializes loaded items with itemSchema (the allow-list of their fields), each through the cache. */
async function serializeItems<T>(
  req: FastifyRequest, reply: FastifyReply, itemSchema: TSchema, fragments: ItemFragments<T>,
  loadItems: () => Promise<readonly T[]>, present: (item: T) => { [key: string]: unknown },
): Promise<string[]> {
  const serialize = reply.compileSerializationSchema(itemSchema)
  const cache = jsonCache(req, fragments)
  // Taken before the items are read: JSON made from data older than a write is not kept.
  const stamp = cache?.stamp() ?? 0
  const items = await loadItems()
  return items.map((item) => {
    const key = cache === null ? null : fragments.keyOf(item)
    if (key === null || cache === null) return serialize(present(item))
    const cached = cache.peek(key)
    if (cached !== undefined) return cached
    const json = serialize(present(item))
    cache.put(key, json, stamp)
    return json
  })
}

/** Loads items and makes the JSON array of their (cached) JSON. */
export async function jsonArrayOf<T>(
  req: FastifyRequest, reply: FastifyReply, itemSchema: TSchema, fragments: ItemFragments<T>,
  loadItems: () => Promise<readonly T[]>, present: (item: T) => { [key: string]: unknown },
): Promise<string> {
  return `[${(await serializeItems(req, reply, itemSchema, fragments, loadItems, present)).join(',')}]`
}

/**
 * Sends one item's (cached) JSON. The key comes first, so a cached answer needs no loading; the
 * caller's key must carry everything the JSON depends on beyond the watched tables.
 */
export async function sendJsonItem<T>(
  req: FastifyRequest, reply: FastifyReply, itemSchema: TSchema, fragments: CachedList, key: string | null,
  loadItem: () => Promise<T>, present: (item: T) => { [key: string]: unknown },
): Promise<FastifyReply> {
  const cached = key === null ? undefined
    : jsonCache(req, fragments)?.peek(key)
  const [json] = cached !== undefined ? [cached]
    : await serializeItems(req, reply, itemSchema, { ...fragments, keyOf: () => key }, async () => [await loadItem()], present)
  return reply.type(JSON_TYPE).send(json)
}
