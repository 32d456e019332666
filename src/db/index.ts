// Kysely over better-sqlite3 (the embedded default) or PostgreSQL, with one representation per type
// on both (see values.ts), and the migrator that runs at every start.
import fs from 'node:fs'
import path from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type SqliteDatabase } from 'kysely'
import type { Database } from './schema.js'
import { migrations, type MigrationTools } from './migrations/index.js'
import { withReadCaches } from './read-cache.js'

export type Db = Kysely<Database>
export type Dialect = 'sqlite' | 'postgres'

export interface DatabaseHandle {
  db: Db
  dialect: Dialect
  close(): Promise<void>
}

export interface DatabaseOptions {
  /** Empty: SQLite file `ingot.sqlite3` in dataDir. Otherwise a postgres:// URL. */
  databaseUrl: string
  dataDir: string
  poolSize?: number
  /**
   * Told when an idle PostgreSQL connection fails (the server restarted, an administrator ended it):
   * the pool drops it and opens another for the next query; unheard, the error would end the process.
   */
  onConnectionError?: (err: Error) => void
}

/** How busy a PostgreSQL connection pool is: connections open, idle among them, queries waiting for one. */
export interface ConnectionPoolUse {
  total: number
  idle: number
  waiting: number
}

/**
 * The pool behind each PostgreSQL handle, for the metrics. SQLite has none: its one connection
 * answers every query at once, in the process's own thread.
 */
const pools = new WeakMap<Db, () => ConnectionPoolUse>()

export function connectionPoolUse(db: Db): ConnectionPoolUse | null {
  return pools.get(db)?.() ?? null
}

const STATEMENT_CACHE_SIZE = 500

// How long a read cache entry may serve (see read-cache.ts): within one process generations keep
// entries exact, so the expiry bounds what other processes' writes leave stale — an `ingot worker`
// on the same SQLite file, or other web processes sharing a PostgreSQL database.
const SQLITE_CACHE_TTL_MS = 30_000
const POSTGRES_CACHE_TTL_MS = 1_000

/**
 * Kysely prepares every query anew, and preparing costs SQLite more than running a simple query:
 * keep the most recently used prepared statements, keyed by their SQL text.
 */
function withStatementCache(file: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>()
  return {
    close: () => file.close(),
    prepare(text: string) {
      let statement = statements.get(text)
      if (statement === undefined) {
        statement = file.prepare(text)
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string)
      } else {
        statements.delete(text)
      }
      statements.set(text, statement)
      return statement
    },
  }
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl === '') {
    fs.mkdirSync(options.dataDir, { recursive: true })
    const file = new SQLite(path.join(options.dataDir, 'ingot.sqlite3'))
    file.pragma('journal_mode = WAL')
    file.pragma('synchronous = NORMAL')
    file.pragma('foreign_keys = ON')
    file.pragma('busy_timeout = 5000')
    // SQLite's lower() folds ASCII only; PostgreSQL's, and the *_lower columns written from
    // JavaScript, fold every letter. One case folding on both keeps searches alike ("Über").
    file.function('lower', { deterministic: true }, (text: unknown) => (text === null ? null : String(text).toLowerCase()))
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) })
    return { db: withReadCaches(db, { ttlMs: SQLITE_CACHE_TTL_MS, concurrentReads: false }), dialect: 'sqlite', close: () => db.destroy() }
  }
  // Loaded only for PostgreSQL, so the embedded default never pays for the driver.
  const { default: pg } = await import('pg')
  // int8 (counts, epoch-millisecond timestamps) and numeric come back as JS numbers: every value we
  // store fits in 2^53, and both dialects then hand the same types to the code above.
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (v: string) => Number(v)
      return pg.types.getTypeParser(oid, format)
    },
  } as import('pg').CustomTypesConfig
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, types })
  pool.on('error', options.onConnectionError ?? (() => {}))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  const cached = withReadCaches(db, { ttlMs: POSTGRES_CACHE_TTL_MS, concurrentReads: true })
  pools.set(cached, () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }))
  return { db: cached, dialect: 'postgres', close: () => db.destroy() }
}

/** Brings the schema up to date; safe to run at every start and from several processes. */
export async function migrateToLatest(db: Db, tools: MigrationTools): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations(tools) } })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** True when the database answers a trivial query (readiness). */
export async function databaseAnswers(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db)
    return true
  } catch {
    return false
  }
}
