// buildTestApp(): a real Ingot on a fresh database — an SQLite file in a temporary data directory,
// or, when INGOT_TEST_DATABASE_URL names a PostgreSQL server, a database of its own that close()
// drops — with root seeded, and `api()` to call it over HTTP (Fastify inject).
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import pg from 'pg'
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import { openContext, type AppContext } from '../../src/context.js'
import { buildApp } from '../../src/app.js'
import { seedRoot } from '../../src/services/users/seed-root.js'
import type { UserRow } from '../../src/db/schema.js'

export const ROOT_PASSWORD = 'root-password-for-tests'
export const ROOT_TOKEN = 'root-token-for-tests-0123456789'
export const EXTERNAL_URL = 'http://ingot.test'

export interface TestApp {
  app: FastifyInstance
  ctx: AppContext
  root: { user: UserRow; token: string }
  /** Calls `/api/v4<path>` (or an absolute path starting with `/-/`, `/api/`, `/oauth/` or `/.well-known/`). */
  api(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>
  close(): Promise<void>
}

export interface RequestOptions {
  /** A token sent as Private-Token; null for an anonymous request. Defaults to root's token. */
  token?: string | null
  body?: unknown
  /** Sent as application/x-www-form-urlencoded instead of JSON. */
  form?: string
  query?: Record<string, string | number | boolean | readonly (string | number)[]>
  headers?: Record<string, string>
}

export interface ApiResponse {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  body: any
  text: string
}

/**
 * How many SQL statements `action` runs. The app's caches are bypassed meanwhile (the counting
 * handle carries none), so this counts what a request costs when nothing is cached.
 */
export async function countQueries<T>(t: TestApp, action: () => Promise<T>): Promise<{ queries: number; result: T }> {
  let queries = 0
  const original = t.ctx.db
  t.ctx.db = original.withPlugin({
    transformQuery: (args) => { queries += 1; return args.node },
    transformResult: async (args) => args.result,
  })
  try {
    const result = await action()
    return { queries, result }
  } finally {
    t.ctx.db = original
  }
}

/** The PostgreSQL server tests use when set; otherwise tests run on SQLite. */
export function testDatabaseServer(): string | null {
  const url = process.env.INGOT_TEST_DATABASE_URL
  return url === undefined || url === '' ? null : url
}

export interface TestAppOptions {
  env?: Record<string, string>
  /**
   * On PostgreSQL, create the database with this ICU locale (e.g. 'en-US', a linguistic collation
   * as production databases often have) instead of the server's default; ignored on SQLite.
   */
  icuLocale?: string
  /** The app's logger; by default one at INGOT_TEST_LOG_LEVEL (silent). */
  log?: FastifyBaseLogger
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-test-'))
  const server = testDatabaseServer()
  // A locale of its own needs template0; any other database starts as a copy of the migrated one.
  const database = server === null ? null : options.icuLocale !== undefined
    ? await createTestDatabase(server, options.icuLocale)
    : await createTestDatabase(server, undefined, await migratedTemplate(server))
  const config = testConfig(dataDir, database?.url ?? '', options.env)
  const log = options.log ?? pino({ level: process.env.INGOT_TEST_LOG_LEVEL ?? 'silent' })
  const ctx = await openContext(config, log)
  await seedRoot(ctx)
  const app = await buildApp(ctx)
  await app.ready()
  const rootUser = await ctx.db.selectFrom('users').selectAll().where('username', '=', 'root').executeTakeFirstOrThrow()

  return {
    app,
    ctx,
    root: { user: rootUser, token: ROOT_TOKEN },
    api: (method, urlPath, requestOptions = {}) => inject(app, method, urlPath, requestOptions),
    async close() {
      await app.close()
      await ctx.close()
      await fs.rm(dataDir, { recursive: true, force: true })
      if (database !== null) await database.drop()
    },
  }
}

function testConfig(dataDir: string, databaseUrl: string, env: Record<string, string> = {}) {
  return loadConfig({
    INGOT_DATA_DIR: dataDir,
    INGOT_DATABASE_URL: databaseUrl,
    INGOT_EXTERNAL_URL: EXTERNAL_URL,
    INGOT_ROOT_PASSWORD: ROOT_PASSWORD,
    INGOT_ROOT_TOKEN: ROOT_TOKEN,
    ...env,
  })
}

async function inject(app: FastifyInstance, method: string, urlPath: string, options: RequestOptions): Promise<ApiResponse> {
  const url = /^\/(-|api|oauth|\.well-known)\//.test(urlPath) ? urlPath : `/api/v4${urlPath}`
  const headers: Record<string, string> = { ...options.headers }
  const token = options.token === undefined ? ROOT_TOKEN : options.token
  if (token !== null) headers['private-token'] = token
  let payload: string | undefined
  if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    payload = options.form
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(options.body)
  }
  const query = options.query === undefined ? undefined : toQueryString(options.query)
  const response = await app.inject({
    method: method as 'GET',
    url: query ? `${url}${url.includes('?') ? '&' : '?'}${query}` : url,
    headers,
    ...(payload === undefined ? {} : { payload }),
  })
  let body: unknown
  try {
    body = response.body === '' ? undefined : JSON.parse(response.body)
  } catch {
    body = undefined
  }
  return { status: response.statusCode, headers: response.headers, body, text: response.body }
}

/** `{iids: [1, 2]}` → `iids[]=1&iids[]=2`, as the v4 API's clients send arrays. */
export function toQueryString(query: NonNullable<RequestOptions['query']>): string {
  const parts: string[] = []
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const item of value) parts.push(`${encodeURIComponent(`${key}[]`)}=${encodeURIComponent(String(item))}`)
    else parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
  }
  return parts.join('&')
}

/**
 * A new, empty database on the PostgreSQL server (with the ICU locale when given), or a copy of
 * `template` (a name from migratedTemplate()).
 */
export async function createTestDatabase(serverUrl: string, icuLocale?: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ingot_test_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    const locale = icuLocale === undefined ? '' : ` template template0 locale_provider icu icu_locale '${icuLocale.replace(/'/g, '')}'`
    await admin.query(`create database ${name}${template === undefined ? locale : ` template ${template}`}`)
  } finally {
    await admin.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      try {
        await client.query(`drop database if exists ${name} with (force)`)
      } finally {
        await client.end()
      }
    },
  }
}

// Migrating a PostgreSQL database and installing pg-boss's schema cost seconds, in every test that
// builds an app; copying a database that has them (CREATE DATABASE … TEMPLATE) costs a fraction of
// one. The template is made once per schema on the server and kept for later runs: its name holds
// a digest of what shapes it (the migrations and pg-boss's version), so a changed schema gets a new
// one. The app's start still migrates and opens the queue on the copy, which finds nothing to do.
const MIGRATION_SOURCES = new URL('../../src/db/migrations/', import.meta.url)
const PG_BOSS_PACKAGE = new URL('../../node_modules/pg-boss/package.json', import.meta.url)
const TEMPLATE_BUILD_LOCK = 0x1_6e_07 // an advisory lock key of the test helpers' own
const templates = new Map<string, Promise<string>>()

function migratedTemplate(serverUrl: string): Promise<string> {
  let template = templates.get(serverUrl)
  if (template === undefined) {
    template = findOrBuildTemplate(serverUrl)
    templates.set(serverUrl, template)
  }
  return template
}

async function findOrBuildTemplate(serverUrl: string): Promise<string> {
  const name = `ingot_test_template_${await schemaDigest()}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    // Test processes run side by side: one builds, the others wait for it and find it made.
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_BUILD_LOCK])
    const found = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (found.rowCount === 0) {
      // Built under another name and renamed when complete: a build cut short leaves no template.
      const building = 'ingot_test_template_building'
      await admin.query(`drop database if exists ${building} with (force)`)
      await admin.query(`create database ${building}`)
      const url = new URL(serverUrl)
      url.pathname = `/${building}`
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-test-template-'))
      try {
        const ctx = await openContext(testConfig(dataDir, url.toString()), pino({ level: 'silent' }))
        await ctx.close()
      } finally {
        await fs.rm(dataDir, { recursive: true, force: true })
      }
      await admin.query(`alter database ${building} rename to ${name}`)
      // A connection to a template makes copying it fail.
      await admin.query(`alter database ${name} allow_connections false`)
      // The templates of earlier schemas serve no run of this one: at most one is left behind.
      const stale = await admin.query<{ datname: string }>(
        "select datname from pg_database where datname like 'ingot\\_test\\_template\\_%' and datname <> $1", [name])
      for (const { datname } of stale.rows) await admin.query(`drop database if exists ${datname} with (force)`)
    }
  } finally {
    await admin.end() // releases the lock
  }
  return name
}

async function schemaDigest(): Promise<string> {
  const digest = createHash('sha256')
  for (const file of (await fs.readdir(MIGRATION_SOURCES)).sort()) {
    digest.update(file).update(await fs.readFile(new URL(file, MIGRATION_SOURCES)))
  }
  digest.update(await fs.readFile(PG_BOSS_PACKAGE))
  return digest.digest('hex').slice(0, 16)
}
