// buildTestApp(): a real Ingot on a fresh database — an SQLite file in a temporary data directory,
// or, when INGOT_TEST_DATABASE_URL names a PostgreSQL server, a database of its own that close()
// drops — with root seeded, and `api()` to call it over HTTP (Fastify inject).
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
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
  const database = server === null ? null : await createTestDatabase(server, options.icuLocale)
  const config = loadConfig({
    INGOT_DATA_DIR: dataDir,
    INGOT_DATABASE_URL: database?.url ?? '',
    INGOT_EXTERNAL_URL: EXTERNAL_URL,
    INGOT_ROOT_PASSWORD: ROOT_PASSWORD,
    INGOT_ROOT_TOKEN: ROOT_TOKEN,
    ...options.env,
  })
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

export async function createTestDatabase(serverUrl: string, icuLocale?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ingot_test_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    const locale = icuLocale === undefined ? '' : ` template template0 locale_provider icu icu_locale '${icuLocale.replace(/'/g, '')}'`
    await admin.query(`create database ${name}${locale}`)
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
