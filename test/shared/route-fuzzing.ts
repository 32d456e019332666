// Every declared route, walked from the route table, meets malformed input: hostile values (wrong
// types, huge and unicode strings, NUL, nested arrays and objects, negative and huge numbers, dates
// out of range, revision expressions) in its query, its JSON and form bodies and its path
// parameters. No answer may be a 5xx or take longer than a bound, and the server answers normally
// afterwards. Values come from fast-check with a fixed seed (FUZZ_SEED to change it, FUZZ_RUNS for
// more values of each class), so a failure names a case that replays.
//
// The walk is long, so it is cut into parts that the test runner runs side by side
// (test/api/fuzz-*.test.ts): part k of n fuzzes every n-th route, starting with the k-th. Each
// part draws every route's values, its own routes' or not, so that a route meets the same values
// whichever part it falls in and however many parts there are.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import qs from 'qs'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { makeMergeRequest } from '../helpers/merge-requests.js'
import type { DeclaredRoute } from '../../src/app.js'

const SEED = Number(process.env.FUZZ_SEED ?? 20261127)
/** How many values of each hostile class every parameter meets. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1)
/** Longer than any answer to bad input should take, short of the test's own limit. */
const ANSWER_LIMIT_MS = 15_000

/** Values no parameter expects, by class: each class once broke a forge somewhere. */
const HOSTILE_CLASSES: readonly fc.Arbitrary<unknown>[] = [
  fc.constantFrom(1e308, -1e308, 2 ** 63, -(2 ** 63), 2 ** 53 + 2, 2 ** 31),
  fc.constantFrom('300000-01-01', '0000-00-00', '2020-13-45T99:99:99Z', '-271821-04-19T00:00:00Z', '1970-01-01T00:00:00.000+99:99',
    '1e308', '1e309', 'NaN', 'Infinity', '0x10', ' 1'),
  fc.array(fc.oneof(fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }), fc.string({ maxLength: 8 }), fc.integer()), { minLength: 1, maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 8 }), { maxKeys: 2 }), fc.integer()), { minKeys: 1, maxKeys: 3 }),
  fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('a'.repeat(70_000), '*'.repeat(300) + 'x', 'é'.repeat(5_000), 'x\u0000y', '\uFFFF', '\uD800',
      'master^{/x}', ':/x', 'HEAD@{100000}', 'HEAD~9999999', '--upload-pack=x', '-n', '../../../etc/passwd', '%2e%2e/')),
  fc.constantFrom(-1, 0, 0.5, 1e-300, true, false, null, '', [], {}, 'true', 'null'),
]

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(...HOSTILE_CLASSES)

interface SchemaNode {
  type?: string | string[]
  format?: string
  enum?: unknown[]
  const?: unknown
  properties?: Record<string, SchemaNode>
  required?: string[]
  anyOf?: SchemaNode[]
  allOf?: SchemaNode[]
  oneOf?: SchemaNode[]
}

/** The parameters a route's query or body schema declares (objects, unions and compositions). */
function declaredParams(schema: SchemaNode | undefined): { properties: Map<string, SchemaNode>; required: Set<string> } {
  const properties = new Map<string, SchemaNode>()
  const required = new Set<string>()
  const walk = (node: SchemaNode | undefined) => {
    if (node === undefined || node === null || typeof node !== 'object') return
    for (const [key, value] of Object.entries(node.properties ?? {})) if (!properties.has(key)) properties.set(key, value)
    for (const key of node.required ?? []) required.add(key)
    for (const part of [...node.allOf ?? [], ...(node.anyOf ?? []).slice(0, 1), ...(node.oneOf ?? []).slice(0, 1)]) walk(part)
  }
  walk(schema)
  return { properties, required }
}

/** A value the schema accepts, so that a request fails on its hostile parameter, not on a missing one. */
function plainValue(node: SchemaNode): unknown {
  if (node.const !== undefined) return node.const
  if (node.enum !== undefined) return node.enum[0]
  const first = node.anyOf?.[0] ?? node.oneOf?.[0]
  if (first !== undefined) return plainValue(first)
  const type = [node.type].flat()[0]
  if (type === 'integer' || type === 'number') return 1
  if (type === 'boolean') return true
  if (type === 'array') return []
  if (type === 'object') return {}
  if (node.format === 'date-time') return '2020-01-01T00:00:00Z'
  if (node.format === 'date') return '2020-01-01'
  return 'fuzz'
}

/**
 * Parameters as the route declares them: its required ones with plain values, then each declared
 * parameter in turn (and one it does not know) holding a value of every hostile class; and one case
 * with every declared parameter hostile.
 */
function hostileCases(schema: SchemaNode | undefined, draw: <T>(arbitrary: fc.Arbitrary<T>) => T): Record<string, unknown>[] {
  const { properties, required } = declaredParams(schema)
  const keys = [...properties.keys()]
  const plain = Object.fromEntries([...required].map((key) => [key, plainValue(properties.get(key) ?? {})]))
  const cases = [...keys, 'unknown_param'].flatMap((key) => HOSTILE_CLASSES.flatMap((hostile) =>
    Array.from({ length: RUNS }, () => ({ ...plain, [key]: draw(hostile) }))))
  if (keys.length > 0) cases.push(Object.fromEntries(keys.map((key) => [key, draw(hostileValue)])))
  return cases
}

interface Fixtures {
  projectId: number
  groupId: number
  user: TestUser
  snippetId: number
}

/** A route's path with its parameters naming things that exist, so the hostile input reaches handlers. */
function validPath(url: string, fixtures: Fixtures): string {
  const { projectId, groupId, user, snippetId } = fixtures
  const idFor = (prefix: string) => ({
    projects: projectId, groups: groupId, users: user.user.id, namespaces: groupId, snippets: snippetId,
  } as Record<string, number>)[prefix] ?? 1
  const prefix = url.split('/')[3] ?? ''
  return url
    .replace(/:id\b/, String(idFor(prefix)))
    .replace(/:(merge_request_iid|issue_iid)\b/g, '1')
    .replace(/:(user_id|id_or_username)\b/g, String(user.user.id))
    .replace(/:group_id\b/g, String(groupId))
    .replace(/:(project_id|forked_from_id)\b/g, String(projectId))
    .replace(/:snippet_id\b/g, String(snippetId))
    .replace(/:(sha|branch|ref)\b/g, 'master')
    .replace(/:file_path\b/g, 'README.md')
    .replace(/:[a-z_]+/g, '1')
    .replace(/\*$/, 'README.md')
}

/** The path with every parameter replaced by a hostile string. */
function hostilePath(url: string, values: readonly string[]): string {
  let index = 0
  return url.replace(/:[a-z_]+|\*$/g, () => encodeURIComponent(values[index++ % values.length] ?? ''))
}

/** Fuzzes part `part` (1 to `parts`) of the routes. */
export function fuzzRoutePart(part: number, parts: number): void {
  describe(`fuzzing every route, part ${part} of ${parts}`, () => {
    fuzzRoutesWhere((index) => index % parts === part - 1)
  })
}

function fuzzRoutesWhere(inPart: (routeIndex: number) => boolean): void {
  let t: TestApp
  let fixtures: Fixtures
  /** Every case that failed, so that one run shows them all. */
  const failures: string[] = []

  before(async () => {
    t = await buildTestApp()
    const user = await makeUser(t)
    const group = await makeGroup(t, { visibility: 'public' })
    const project = await makeProject(t, null, { visibility: 'public' })
    await commitFiles(t, project.id, { 'README.md': '# fuzz\n', '.gitlab-ci.yml': 'build: { script: make }\ntest: { stage: test, script: make test }\n' })
    // Pipeline 1 with jobs 1 and 2, for the routes whose ids are filled with 1.
    assert.equal((await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'master' } })).status, 201)
    await makeMergeRequest(t, project, null)
    assert.equal((await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Fuzzed' } })).status, 201)
    const snippet = await t.api('POST', `/projects/${project.id}/snippets`, { body: { title: 's', file_name: 's.txt', code: 'x', visibility: 'public' } })
    assert.equal(snippet.status, 201, snippet.text)
    fixtures = { projectId: project.id, groupId: group.id, user, snippetId: snippet.body.id }
  })
  after(() => t.close())

  /** Sends one request; a 5xx or an answer slower than the bound fails with the case that caused it. */
  async function send(route: DeclaredRoute, url: string, options: { query?: string; json?: unknown; form?: string }) {
    const query = options.query === undefined || options.query === '' ? '' : `?${options.query}`
    const answer = t.app.inject({
      method: route.method as 'GET',
      url: `${url}${query}`,
      headers: {
        'private-token': t.root.token,
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.form !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(options.json !== undefined ? { payload: JSON.stringify(options.json) } : {}),
      ...(options.form !== undefined ? { payload: options.form } : {}),
    })
    let timer: NodeJS.Timeout | undefined
    const limit = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${route.method} ${url}${query} took over ${ANSWER_LIMIT_MS} ms`)), ANSWER_LIMIT_MS)
    })
    try {
      const res = await Promise.race([answer, limit])
      const shown = JSON.stringify(options.json ?? options.form ?? '').slice(0, 300)
      if (res.statusCode >= 500) failures.push(`${route.method} ${url}${query.slice(0, 300)} ${shown}: ${res.statusCode} ${res.body.slice(0, 300)}`)
    } catch (err) {
      failures.push(String(err))
    } finally {
      clearTimeout(timer)
    }
  }

  it('answers hostile queries, bodies and path parameters on every route without a 5xx or a hang', async () => {
    const routes = t.app.routeTable.filter((route) => route.method !== 'HEAD')
      .map((route, index) => ({ route, fuzzed: inPart(index) }))
    const deletions = routes.filter(({ route }) => route.method === 'DELETE')
    // Deletions last, so that the other routes find what they act on; between them, every read
    // again with plain input: what the hostile writes stored must not break it.
    await fuzzRoutes(routes.filter(({ route }) => route.method !== 'DELETE'))
    for (const { route } of routes.filter(({ route }) => route.method === 'GET')) await send(route, validPath(route.url, fixtures), {})
    await fuzzRoutes(deletions)
    assert.deepEqual(failures, [])
    const version = await t.api('GET', '/version')
    assert.equal(version.status, 200)
  })

  let seed = SEED
  const draw = <T>(arbitrary: fc.Arbitrary<T>): T => fc.sample(arbitrary, { seed: seed++, numRuns: 1 })[0]!

  type Snapshot = { table: 'projects' | 'namespaces' | 'users' | 'issues' | 'merge_requests' | 'application_settings'; row: Record<string, unknown> }
  let snapshots: Snapshot[] = []

  /** The fixtures' rows as made, but for counts that triggers keep. */
  async function takeSnapshots(): Promise<void> {
    const { db } = t.ctx
    const rows: Snapshot[] = [
      { table: 'projects', row: await db.selectFrom('projects').selectAll().where('id', '=', fixtures.projectId).executeTakeFirstOrThrow() },
      { table: 'namespaces', row: await db.selectFrom('namespaces').selectAll().where('id', '=', fixtures.groupId).executeTakeFirstOrThrow() },
      { table: 'users', row: await db.selectFrom('users').selectAll().where('id', '=', fixtures.user.user.id).executeTakeFirstOrThrow() },
      { table: 'issues', row: await db.selectFrom('issues').selectAll().where('project_id', '=', fixtures.projectId).where('iid', '=', 1).executeTakeFirstOrThrow() },
      { table: 'merge_requests', row: await db.selectFrom('merge_requests').selectAll().where('target_project_id', '=', fixtures.projectId).where('iid', '=', 1).executeTakeFirstOrThrow() },
      { table: 'application_settings', row: await db.selectFrom('application_settings').selectAll().executeTakeFirstOrThrow() },
    ]
    snapshots = rows.map(({ table, row }) => ({ table, row: Object.fromEntries(Object.entries(row).filter(([column]) => !column.endsWith('_count'))) }))
  }

  /**
   * Puts the fixtures back as they were after a route's hostile cases (archived, features turned
   * off, settings changed, an issue moved): each route meets the same reachable state, so that its
   * input reaches its handler rather than a refusal an earlier route caused.
   */
  async function restoreFixtures(): Promise<void> {
    for (const { table, row } of snapshots) {
      await t.ctx.db.updateTable(table).set(row as never).where('id', '=', row.id as number).execute()
    }
  }

  /** Every route's values are drawn, in order; only the part's own routes are sent them. */
  async function fuzzRoutes(routes: readonly { route: DeclaredRoute; fuzzed: boolean }[]): Promise<void> {
    if (snapshots.length === 0) await takeSnapshots()
    for (const { route, fuzzed } of routes) {
      const queries = hostileCases(route.schema?.querystring as SchemaNode | undefined, draw)
      const paths = Array.from({ length: 2 * RUNS }, () =>
        hostilePath(route.url, draw(fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { minLength: 1, maxLength: 3 }))))
      const bodies = route.method === 'GET' ? [] : hostileCases(route.schema?.body as SchemaNode | undefined, draw)
      if (!fuzzed) continue
      await restoreFixtures()
      const url = validPath(route.url, fixtures)
      for (const params of queries) await send(route, url, { query: qs.stringify(params) })
      for (const path of paths) await send(route, path, {})
      for (const params of bodies) {
        await send(route, url, { json: params })
        await send(route, url, { form: qs.stringify(params) })
      }
    }
  }
}
