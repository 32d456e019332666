// In-process caches for the reads every request repeats (who a token belongs to, a project and
// its namespace, the caller's access to it), kept exact by table generations instead of explicit
// invalidation: every write through Kysely bumps the generation of the table it writes, before it
// runs and again after, and a cached entry is served only while the tables it was read from are
// at the generations they had when it was read. A write path can therefore never forget to
// invalidate. On PostgreSQL, where other connections read while a transaction is open, a commit
// also ends every entry read from a table the transaction wrote. Other processes' writes are not seen: entries expire after `ttlMs`,
// which bounds staleness across processes.
import type { Kysely, KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely'

/** Tables that triggers (see migrations/) or cascading foreign keys write when a table is written. */
const WRITTEN_BY_TRIGGERS: Readonly<Record<string, readonly string[]>> = {
  issues: ['projects', 'issue_counts'],
  // Deleting an application deletes its tokens: cached token owners must not outlive it.
  oauth_applications: ['access_tokens', 'oauth_access_grants', 'oauth_client_tokens'],
}

export class TableGenerations {
  private readonly byTable = new Map<string, number>()
  /** Bumped by writes whose table could not be told: they change every table. */
  private everything = 0

  bump(table: string | null): void {
    if (table === null) {
      this.everything += 1
      return
    }
    for (const written of [table, ...(WRITTEN_BY_TRIGGERS[table] ?? [])]) {
      this.byTable.set(written, (this.byTable.get(written) ?? 0) + 1)
    }
  }

  /** One number that grows whenever any of the tables is written (generations only ever grow). */
  stamp(tables: readonly string[]): number {
    let sum = this.everything
    for (const table of tables) sum += this.byTable.get(table) ?? 0
    return sum
  }
}

const WRITE_STATEMENT = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?([a-z_]+)/i

interface NamedNode extends OperationNode {
  table?: NamedNode
  identifier?: { name: string }
  into?: NamedNode
  from?: { froms: NamedNode[] }
  node?: NamedNode
  sqlFragments?: readonly string[]
}

/** The table a write statement writes, null for a write whose table cannot be told, undefined for reads. */
function writtenTable(node: RootOperationNode): string | null | undefined {
  const named = node as unknown as NamedNode
  const nameOf = (table: NamedNode | undefined): string | null => {
    const inner = table?.kind === 'AliasNode' ? table.node : table
    return inner?.table?.identifier?.name ?? null
  }
  switch (node.kind) {
    case 'InsertQueryNode': return nameOf(named.into)
    case 'UpdateQueryNode': return nameOf(named.table)
    case 'DeleteQueryNode': return nameOf(named.from?.froms[0])
    case 'RawNode': {
      // Named when the first fragment spells the table out; a write of another shape bumps all.
      const match = WRITE_STATEMENT.exec(named.sqlFragments?.[0] ?? '')
      if (match !== null) return match[1]?.toLowerCase() ?? null
      return /\b(insert|update|delete)\b/i.test(named.sqlFragments?.join(' ') ?? '') ? null : undefined
    }
    default: return undefined
  }
}

/** The Kysely plugin that bumps table generations around every write. */
export function generationsPlugin(generations: TableGenerations): KyselyPlugin {
  const writes = new WeakMap<object, string | null>()
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      const table = writtenTable(args.node)
      if (table !== undefined) {
        generations.bump(table)
        writes.set(args.queryId, table)
      }
      return args.node
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const table = writes.get(args.queryId)
      if (table !== undefined) generations.bump(table)
      return args.result
    },
  }
}

/** Records the tables a transaction's statements write (null: one it could not tell). */
function writesRecorder(written: Set<string | null>): KyselyPlugin {
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      const table = writtenTable(args.node)
      if (table !== undefined) written.add(table)
      return args.node
    },
    transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
  }
}

/** Cached values are shared by every request that reads them: frozen, so none can change them. */
function freeze<V>(value: V): V {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) freeze(child)
    Object.freeze(value)
  }
  return value
}

interface Entry<V> {
  value: V
  stamp: number
  expiresAt: number
  weight: number
}

export interface ReadCacheOptions<V> {
  /** The tables the cached values are read from. */
  tables: readonly string[]
  /** The cache's bound: the sum of its entries' weights (each weighs 1 unless `weigh` says). */
  maxWeight: number
  /** The weight of a value, e.g. a length, for caches whose values vary much in size. */
  weigh?: (value: V) => number
  ttlMs: number
}

export class ReadCache<V> {
  private readonly entries = new Map<string, Entry<V>>()
  private readonly loading = new Map<string, { stamp: number; value: Promise<V> }>()
  private weight = 0

  constructor(private readonly generations: TableGenerations, private readonly options: ReadCacheOptions<V>) {}

  private fresh(key: string, stamp: number, now: number): Entry<V> | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.stamp === stamp && entry.expiresAt > now) return entry
    this.remove(key, entry)
    return undefined
  }

  private remove(key: string, entry: Entry<V>): void {
    this.entries.delete(key)
    this.weight -= entry.weight
  }

  private store(key: string, value: V, stamp: number, now: number): void {
    // Stored only if nothing was written to its tables while it was being read.
    if (this.generations.stamp(this.options.tables) !== stamp) return
    const weight = this.options.weigh?.(value) ?? 1
    if (weight > this.options.maxWeight) return
    const previous = this.entries.get(key)
    if (previous !== undefined) this.remove(key, previous)
    // The oldest entries make room.
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.weight + weight <= this.options.maxWeight) break
      this.remove(oldKey, oldEntry)
    }
    this.entries.set(key, { value: freeze(value), stamp, expiresAt: now + this.options.ttlMs, weight })
    this.weight += weight
  }

  /** The generation stamp of the cache's tables now: take it before reading what put() will store. */
  stamp(): number {
    return this.generations.stamp(this.options.tables)
  }

  /** A fresh entry's value, without loading anything. */
  peek(key: string): V | undefined {
    return this.fresh(key, this.stamp(), Date.now())?.value
  }

  /** Stores a value computed from data read after `stamp` was taken (dropped if a write came since). */
  put(key: string, value: V, stamp: number): void {
    this.store(key, value, stamp, Date.now())
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now()
    const stamp = this.generations.stamp(this.options.tables)
    const entry = this.fresh(key, stamp, now)
    if (entry !== undefined) return entry.value
    // Concurrent misses of one key at one stamp share a single load, so an entry that expires under
    // load is read once, not by every request waiting on it.
    const pending = this.loading.get(key)
    if (pending !== undefined && pending.stamp === stamp) return pending.value
    const value = load()
    this.loading.set(key, { stamp, value })
    try {
      const loaded = await value
      this.store(key, loaded, stamp, now)
      return loaded
    } finally {
      if (this.loading.get(key)?.value === value) this.loading.delete(key)
    }
  }

  /** Values for many keys, loading all the missing ones with one call. */
  async getMany(keys: readonly string[], loadMissing: (missing: string[]) => Promise<Map<string, V>>): Promise<Map<string, V>> {
    const now = Date.now()
    const stamp = this.generations.stamp(this.options.tables)
    const found = new Map<string, V>()
    const missing: string[] = []
    for (const key of keys) {
      const entry = this.fresh(key, stamp, now)
      if (entry === undefined) missing.push(key)
      else found.set(key, entry.value)
    }
    if (missing.length === 0) return found
    const loaded = await loadMissing(missing)
    for (const [key, value] of loaded) {
      this.store(key, value, stamp, now)
      found.set(key, value)
    }
    return found
  }
}

interface Registration {
  generations: TableGenerations
  ttlMs: number
  caches: Map<string, ReadCache<unknown>>
}

// Caches belong to a database handle; a transaction is another handle and so reads uncached,
// seeing its own writes.
const registrations = new WeakMap<object, Registration>()

/** Installs table generations on a database handle; returns the handle that carries the plugin. */
export interface ReadCacheSettings {
  ttlMs: number
  /**
   * Whether other connections may read while a transaction is open (PostgreSQL's pool; not the
   * one SQLite connection): then a read can cache what a transaction is about to replace, so every
   * commit also ends the entries read from the tables the transaction wrote.
   */
  concurrentReads: boolean
}

export function withReadCaches<DB>(db: Kysely<DB>, settings: ReadCacheSettings): Kysely<DB> {
  const generations = new TableGenerations()
  const watched = db.withPlugin(generationsPlugin(generations))
  if (settings.concurrentReads) {
    const begin = watched.transaction.bind(watched)
    watched.transaction = () => {
      const builder = begin()
      const execute = builder.execute.bind(builder)
      builder.execute = async (callback) => {
        const written = new Set<string | null>()
        try {
          return await execute((trx) => callback(trx.withPlugin(writesRecorder(written))))
        } finally {
          for (const table of written) generations.bump(table)
        }
      }
      return builder
    }
  }
  registrations.set(watched, { generations, ttlMs: settings.ttlMs, caches: new Map() })
  return watched
}

export type NamedCacheOptions<V> = Omit<ReadCacheOptions<V>, 'ttlMs'>

/** The named cache of this database handle, or null inside a transaction (or without caches). */
export function readCacheOf<V>(db: object, name: string, options: NamedCacheOptions<V>): ReadCache<V> | null {
  const registration = registrations.get(db)
  if (registration === undefined) return null
  let cache = registration.caches.get(name)
  if (cache === undefined) {
    cache = new ReadCache<unknown>(registration.generations, { ...options, ttlMs: registration.ttlMs } as ReadCacheOptions<unknown>)
    registration.caches.set(name, cache)
  }
  return cache as ReadCache<V>
}

/**
 * Rows of `table` by id through the table's read cache, loading every missing one with one query.
 * Unknown ids are absent from the result.
 */
export async function cachedRowsById<Row extends { id: number }>(
  db: object, table: string, ids: readonly number[], load: (ids: number[]) => Promise<Row[]>,
): Promise<Map<number, Row>> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return new Map()
  const cache = readCacheOf<Row | null>(db, `rows:${table}`, { tables: [table], maxWeight: 20_000 })
  if (cache === null) return new Map((await load(unique)).map((row) => [row.id, row]))
  const found = await cache.getMany(unique.map(String), async (missing) => {
    const rows = await load(missing.map(Number))
    const byId = new Map<string, Row | null>(missing.map((id) => [id, null]))
    for (const row of rows) byId.set(String(row.id), row)
    return byId
  })
  const result = new Map<number, Row>()
  for (const [id, row] of found) if (row !== null) result.set(Number(id), row)
  return result
}
