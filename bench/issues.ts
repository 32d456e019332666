// The collaboration benchmarks (BENCH_PARTS=issues), on SQLite and on PostgreSQL: one project
// holding 1,000,000 issues and 10,000 merge requests (bench/issues-seed.ts) beside one holding
// 1,000, with
//   - GET /projects/:id/issues in five shapes (default, labels=…, search=…,
//     state=closed&order_by=updated_at, page 500): p99 of requests one at a time, each URL new so
//     that no answer comes from the answer cache, X-Total checked exact, and the same query on the
//     1,000-issue project for the "no worse than 2×" ratio;
//   - issue creation through POST /projects/:id/issues at 10 connections (sustained rate);
//   - merging a merge request (PUT …/merge) of a one-commit branch: median of MERGE_RUNS.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { openDatabase, migrateToLatest } from '../src/db/index.js'
import { SecretBox } from '../src/common/secret-box.js'
import { seedUsersAndProjects } from './seed.js'
import { seedIssues } from './issues-seed.js'
import { benchDatabase, load, log, median, ROOT_TOKEN, startBenchServer, stop, type Row } from './harness.js'

const BIG = Number(process.env.BENCH_ISSUES ?? 1_000_000)
const SMALL = 1_000
const MERGE_REQUESTS = 10_000
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const MERGE_RUNS = 10

interface ListShape {
  name: string
  query: string
  /** X-Total for a project of n issues seeded by seedIssues (the reader sees confidential ones). */
  total: (n: number) => number
  /** p99 target in ms at BIG issues. */
  target: number
}

const countWhere = (n: number, keep: (i: number) => boolean) => {
  let count = 0
  for (let i = 1; i <= n; i++) if (keep(i)) count += 1
  return count
}

const SHAPES: readonly ListShape[] = [
  { name: 'default', query: '', total: (n) => n, target: 25 },
  { name: 'labels=label-7', query: 'labels=label-7', total: (n) => countWhere(n, (i) => i % 100 === 7), target: 25 },
  { name: 'search=tok123', query: 'search=tok123', total: (n) => countWhere(n, (i) => i % 1000 === 123), target: 25 },
  { name: 'state=closed&order_by=updated_at', query: 'state=closed&order_by=updated_at', total: (n) => countWhere(n, (i) => i % 3 === 0), target: 25 },
  { name: 'page 500', query: 'page=500', total: (n) => n, target: 50 },
]

async function api(base: string, token: string, method: string, urlPath: string, body?: unknown) {
  const res = await fetch(`${base}/api/v4${urlPath}`, {
    method, headers: { 'private-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${urlPath}: ${res.status} ${text.slice(0, 300)}`)
  return { headers: res.headers, body: text === '' ? null : JSON.parse(text) as Record<string, unknown> }
}

export async function measureIssues(dialects: readonly ('sqlite' | 'postgres')[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const dialect of dialects) rows.push(...await measureDialect(dialect))
  return rows
}

async function measureDialect(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const rows: Row[] = []
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `ingot-bench-issues-${dialect}-`))
  const database = await benchDatabase(dialect, 'issues_')
  const databaseUrl = database.url
  const port = 18_520 + (dialect === 'sqlite' ? 0 : 1)
  const base = `http://127.0.0.1:${port}`
  const env = {
    INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: databaseUrl, INGOT_ROOT_TOKEN: ROOT_TOKEN, INGOT_LOG_LEVEL: 'warn',
    INGOT_PORT: String(port), INGOT_EXTERNAL_URL: base, BENCH_TARGETS: '[]',
  }
  try {
    const handle = await openDatabase({ databaseUrl, dataDir })
    await migrateToLatest(handle.db, { secrets: new SecretBox(randomBytes(32).toString('hex')) })
    const seed = await seedUsersAndProjects(handle.db, 30)
    const [big, small] = (await handle.db.selectFrom('members').select('source_id').where('user_id', '=', seed.reader.id)
      .where('source_type', '=', 'project').orderBy('source_id').limit(2).execute()).map((row) => row.source_id)
    if (big === undefined || small === undefined) throw new Error('the seed gave the reader fewer than two projects')
    log(`[issues/${dialect}] seeding ${BIG} issues and ${MERGE_REQUESTS} merge requests, and ${SMALL} issues`)
    const seeding = performance.now()
    await seedIssues(handle.db, big, seed.reader.id, BIG, MERGE_REQUESTS)
    await seedIssues(handle.db, small, seed.reader.id, SMALL)
    log(`[issues/${dialect}] seeded in ${Math.round((performance.now() - seeding) / 1000)} s`)
    await handle.close()

    const server = await startBenchServer(env)
    try {
      const headers = { 'private-token': seed.reader.token }
      for (const shape of SHAPES) {
        const measured: Record<number, { p99: number; mean: number }> = {}
        for (const [project, count] of [[big, BIG], [small, SMALL]] as const) {
          const url = `${base}/api/v4/projects/${project}/issues${shape.query === '' ? '' : `?${shape.query}`}`
          const first = await fetch(url, { headers })
          const total = Number(first.headers.get('x-total'))
          await first.arrayBuffer()
          if (total !== shape.total(count)) throw new Error(`${shape.name}: X-Total ${total}, expected ${shape.total(count)}`)
          // Every request's URL is new (a parameter the API ignores varies), so none is answered
          // from the answer cache: each runs its page query (the total may come from its cache).
          const uncached = (n: number) => `${new URL(url).pathname}?${shape.query}&request=${n}`
          await load(url, { headers, seconds: 2, connections: 1, pathOf: uncached })
          const result = await load(url, { headers, seconds: SECONDS, connections: 1, pathOf: (n) => uncached(n + 1_000_000) })
          measured[count] = { p99: result.p99, mean: result.mean }
        }
        const [atBig, atSmall] = [measured[BIG] ?? { p99: NaN, mean: NaN }, measured[SMALL] ?? { p99: NaN, mean: NaN }]
        // The ratio of means: p99s are whole milliseconds, too coarse to divide at these sizes.
        const ratio = atBig.mean / atSmall.mean
        log(`[issues/${dialect}] ${shape.name}: p99 ${atBig.p99} ms (mean ${atBig.mean.toFixed(2)}) at ${BIG}, mean ${atSmall.mean.toFixed(2)} ms at ${SMALL}`)
        rows.push({
          metric: `${dialect}: GET /projects/:id/issues ${shape.name} at ${BIG.toLocaleString('en')} issues, one at a time, every URL new (X-Total exact)`,
          value: `p99 ${atBig.p99} ms, mean ${atBig.mean.toFixed(2)} ms = ${ratio.toFixed(2)}× the ${SMALL.toLocaleString('en')}-issue project (mean ${atSmall.mean.toFixed(2)} ms)`,
          target: `p99 < ${shape.target} ms, ≤ 2×`, ok: atBig.p99 < shape.target && ratio <= 2,
        })
      }

      log(`[issues/${dialect}] issue creation`)
      const create = await load(`${base}/api/v4/projects/${big}/issues`, {
        headers: { ...headers, 'content-type': 'application/json' }, seconds: SECONDS, connections: 10,
        method: 'POST', body: JSON.stringify({ title: 'Created under load', labels: 'label-1,label-2', description: 'Body text' }),
      })
      log(`[issues/${dialect}] creation: ${Math.round(create.rps)}/s`)
      rows.push({ metric: `${dialect}: POST /projects/:id/issues at 10 connections, into the ${BIG.toLocaleString('en')}-issue project`, value: `${Math.round(create.rps)} issues/s, p99 ${create.p99} ms`, target: '≥ 300/s', ok: create.rps >= 300 })

      log(`[issues/${dialect}] merges`)
      const merges = await mergeTimes(base, seed.reader.token)
      const mergeMedian = median(merges)
      rows.push({ metric: `${dialect}: PUT …/merge_requests/:iid/merge of a one-commit branch (median of ${MERGE_RUNS})`, value: `${mergeMedian.toFixed(1)} ms`, target: '< 150 ms', ok: mergeMedian < 150 })
    } finally {
      await stop(server)
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
    await database.drop()
  }
  return rows
}

/** Wall time of PUT …/merge for MERGE_RUNS merge requests, each of a fresh one-commit branch. */
async function mergeTimes(base: string, token: string): Promise<number[]> {
  const project = (await api(base, token, 'POST', '/projects', { name: `merges-${Date.now()}`, initialize_with_readme: true })).body as { id: number }
  const times: number[] = []
  for (let i = 0; i <= MERGE_RUNS; i++) {
    const branch = `feature-${i}`
    await api(base, token, 'POST', `/projects/${project.id}/repository/branches`, { branch, ref: 'master' })
    await api(base, token, 'POST', `/projects/${project.id}/repository/files/${encodeURIComponent(`file-${i}.txt`)}`, {
      branch, content: `change ${i}\n`, commit_message: `Add file ${i}`,
    })
    const mr = (await api(base, token, 'POST', `/projects/${project.id}/merge_requests`, {
      source_branch: branch, target_branch: 'master', title: `Merge ${i}`,
    })).body as { iid: number }
    const started = performance.now()
    await api(base, token, 'PUT', `/projects/${project.id}/merge_requests/${mr.iid}/merge`, {})
    // The first merge warms the server's git readers up; it is not counted.
    if (i > 0) times.push(performance.now() - started)
  }
  return times
}
