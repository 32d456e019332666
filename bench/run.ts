// `npm run bench`: measures Ingot on this machine and prints a markdown table (also written to
// .bench/latest.md). The server is pinned to CPU 0 and this process (the load generator,
// autocannon) to CPU 1 by the npm script. For each database (SQLite; PostgreSQL when reachable):
//   - first boot (migrations + root seed) and cold start on a migrated database, to the first 200
//     of GET /api/v4/version; idle RSS after boot
//   - with 10,000 users and projects seeded: GET /projects/:id, GET /projects?per_page=20 and
//     GET /users?per_page=20 at saturation (throughput, p50, p99) beside a floor route sending the
//     identical precomputed body and headers, then p99 at half the saturating rate.
// Then the repository engine (bench/git.ts) and the collaboration lists, creation and merges at a
// million issues (bench/issues.ts), push → webhook latency on each database (bench/hooks.ts), and
// CI trace appends under load and a 50 MB trace read (bench/traces.ts), runners' jobs/request over
// 200 pending jobs (bench/runner-jobs.ts), and push → CI job taken and succeeded on the built-in
// runner (bench/ci.ts).
// Git LFS uploads and downloads of a 200 MB object beside a plain Node HTTP server (bench/lfs.ts).
// Git over SSH beside OpenSSH's sshd (bench/ssh.ts). The web pages' render times and first-visit
// transfer (bench/web-pages.ts). The API lists beside a separate Fastify process sending the same
// answers, under wrk (bench/api-compare.ts). Idle RSS after start beside `node -e` and a bare Fastify
// server (bench/idle-memory.ts).
// The 1k-user load mix (20 API, 2 page, 2 pull, 1 push per second, open loop) at 1× and 10× beside
// its floor, with the server's CPU share and peak RSS (bench/load-mix.ts; BENCH_PARTS=load-mix, six
// to ten minutes; BENCH_LOAD_MIX_SECONDS, BENCH_LOAD_MIX_SCALES).
// BENCH_PARTS=api, =api-compare, =idle-memory, =git, =issues, =hooks, =traces, =runners, =ci, =pipelines, =import-export, =lfs, =ssh, =web or =load-mix (or a comma list) runs parts.
import { randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { openDatabase, migrateToLatest } from '../src/db/index.js'
import { SecretBox } from '../src/common/secret-box.js'
import { seedUsersAndProjects } from './seed.js'
import type { BenchTarget } from './server.js'
import { benchDatabase, load, log, PG_SERVER, renderTable, repoRoot, ROOT_TOKEN, rssOf, startBenchServer, startBuiltServer, stop, type Row } from './harness.js'
import { measureGit } from './git.js'
import { measureIssues } from './issues.js'
import { measureHooks } from './hooks.js'
import { measureTraces } from './traces.js'
import { measureRunnerJobs } from './runner-jobs.js'
import { measurePipelines } from './pipelines.js'
import { measureCi } from './ci.js'
import { measureImportExport } from './import-export.js'
import { measureLfs } from './lfs.js'
import { measureSsh } from './ssh.js'
import { measureWebPages } from './web-pages.js'
import { measureApiCompare } from './api-compare.js'
import { measureIdleMemory } from './idle-memory.js'
import { measureLoadMix } from './load-mix.js'

const SEED_COUNT = Number(process.env.BENCH_SEED ?? 10_000)
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = 10

async function main() {
  log('building dist/ …')
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' })
  const rows: Row[] = []
  const parts = (process.env.BENCH_PARTS ?? 'api,api-compare,idle-memory,git,issues,hooks,traces,runners,ci,pipelines,import-export,lfs,ssh,web,load-mix').split(',')
  const available = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[]
  const reachable = await postgresReachable()
  if (!reachable) log('PostgreSQL not reachable: skipping its measurements')
  const usable = available.filter((dialect) => dialect === 'sqlite' || reachable)
  const dialects = parts.includes('api') ? usable : []
  for (const dialect of dialects) {
    rows.push(...await measureDialect(dialect))
  }
  if (parts.includes('api-compare')) rows.push(...await measureApiCompare(usable))
  if (parts.includes('idle-memory')) rows.push(...await measureIdleMemory())
  if (parts.includes('git')) rows.push(...await measureGit())
  if (parts.includes('issues')) rows.push(...await measureIssues(usable))
  if (parts.includes('hooks')) rows.push(...await measureHooks(usable))
  if (parts.includes('traces')) rows.push(...await measureTraces(usable))
  if (parts.includes('runners')) rows.push(...await measureRunnerJobs(usable))
  if (parts.includes('ci')) rows.push(...await measureCi(usable))
  if (parts.includes('pipelines')) rows.push(...await measurePipelines(usable))
  if (parts.includes('import-export')) rows.push(...await measureImportExport(usable))
  if (parts.includes('lfs')) rows.push(...await measureLfs())
  if (parts.includes('ssh')) rows.push(...await measureSsh())
  if (parts.includes('web')) rows.push(...await measureWebPages())
  if (parts.includes('load-mix')) rows.push(...await measureLoadMix())
  const table = renderTable(rows)
  const header = `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ` +
    `${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; server on CPU 0, autocannon on CPU 1, ` +
    `${CONNECTIONS} connections, ${DURATION_S} s per run, ${SEED_COUNT} users and projects.\n\n`
  fs.mkdirSync(path.join(repoRoot, '.bench'), { recursive: true })
  fs.writeFileSync(path.join(repoRoot, '.bench', 'latest.md'), header + table)
  process.stdout.write(`\n${header}${table}`)
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_SERVER, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.end()
    return true
  } catch {
    return false
  }
}

async function measureDialect(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const rows: Row[] = []
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `ingot-bench-${dialect}-`))
  const database = await benchDatabase(dialect, '')
  const databaseUrl = database.url
  const env = { INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: databaseUrl, INGOT_ROOT_TOKEN: ROOT_TOKEN, INGOT_LOG_LEVEL: 'warn' }
  try {
    log(`[${dialect}] first boot, cold starts, idle RSS`)
    const firstBoot = await bootOnce(env, true)
    const cold: number[] = []
    for (let i = 0; i < 5; i++) cold.push((await bootOnce(env, false)).ms)
    cold.sort((a, b) => a - b)
    const boot = await bootOnce(env, true)
    rows.push({ metric: `${dialect}: first boot (migrations, root seed) to first 200`, value: `${firstBoot.ms} ms`, target: '< 3000 ms', ok: firstBoot.ms < 3000 })
    rows.push({ metric: `${dialect}: cold start on a migrated database (median of 5)`, value: `${cold[2]} ms`, target: '< 1000 ms', ok: (cold[2] ?? Infinity) < 1000 })
    rows.push({ metric: `${dialect}: idle RSS after boot`, value: `${boot.rssMb.toFixed(1)} MB`, target: '< 80 MB', ok: boot.rssMb < 80 })
    rows.push({ metric: `${dialect}: idle RSS after first boot (root's password hashed: argon2id holds 19 MiB while hashing)`, value: `${firstBoot.rssMb.toFixed(1)} MB`, target: '', ok: null })

    log(`[${dialect}] seeding ${SEED_COUNT} users and projects`)
    const handle = await openDatabase({ databaseUrl, dataDir })
    await migrateToLatest(handle.db, { secrets: new SecretBox(randomBytes(32).toString('hex')) })
    const seed = await seedUsersAndProjects(handle.db, SEED_COUNT)
    await handle.close()

    const targets: BenchTarget[] = [
      { name: 'project', path: `/api/v4/projects/${seed.projectId}`, token: seed.reader.token },
      { name: 'projects', path: '/api/v4/projects?per_page=20', token: seed.reader.token },
      { name: 'users', path: '/api/v4/users?per_page=20', token: seed.reader.token },
    ]
    const port = 18_500 + (dialect === 'sqlite' ? 0 : 1)
    const server = await startBenchServer({ ...env, INGOT_PORT: String(port), BENCH_TARGETS: JSON.stringify(targets) })
    try {
      for (const target of targets) {
        const base = `http://127.0.0.1:${port}`
        const headers = { 'private-token': target.token }
        await load(`${base}${target.path}`, { headers, seconds: 2, connections: CONNECTIONS }) // warm-up
        const real = await load(`${base}${target.path}`, { headers, seconds: DURATION_S, connections: CONNECTIONS })
        await load(`${base}/-/floor/${target.name}`, { seconds: 2, connections: CONNECTIONS })
        const floor = await load(`${base}/-/floor/${target.name}`, { seconds: DURATION_S, connections: CONNECTIONS })
        const half = await load(`${base}${target.path}`, { headers, seconds: DURATION_S, connections: CONNECTIONS, rate: Math.max(1, Math.floor(real.rps / 2)) })
        const share = real.rps / floor.rps
        const isList = target.name !== 'project'
        const needed = isList ? (dialect === 'sqlite' ? 0.33 : 0.15) : 0.4
        const label = `${dialect}: GET ${target.path.replace('/api/v4', '').replace(String(seed.projectId), ':id')}`
        rows.push({ metric: `${label} throughput (floor ${Math.round(floor.rps)} req/s)`, value: `${Math.round(real.rps)} req/s = ${(share * 100).toFixed(0)}% of floor`, target: `≥ ${needed * 100}% of floor`, ok: share >= needed })
        rows.push({ metric: `${label} latency at saturation`, value: `p50 ${real.p50} ms, p99 ${real.p99} ms`, target: '', ok: null })
        rows.push({ metric: `${label} p99 at half load (${Math.floor(real.rps / 2)} req/s)`, value: `${half.p99} ms`, target: '< 10 ms', ok: half.p99 < 10 })
      }
      // The list's first 25 pages in turn, each URL new (a parameter the API ignores varies), so no
      // answer comes from the answer cache: every request runs its page and count queries (the
      // items' JSON still comes from its cache).
      const uncached = await load(`http://127.0.0.1:${port}/api/v4/projects?per_page=20`, {
        headers: { 'private-token': seed.reader.token }, seconds: DURATION_S, connections: CONNECTIONS,
        pathOf: (n) => `/api/v4/projects?per_page=20&page=${(n % 25) + 1}&request=${n}`,
      })
      rows.push({ metric: `${dialect}: GET /projects?per_page=20&page=1…25, every URL new (answer cache missed)`, value: `${Math.round(uncached.rps)} req/s, p50 ${uncached.p50} ms, p99 ${uncached.p99} ms`, target: '', ok: null })
    } finally {
      await stop(server)
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
    await database.drop()
  }
  return rows
}

/** Starts `ingot web` from dist/ on CPU 0 and times it to the first 200 of GET /api/v4/version. */
async function bootOnce(env: Record<string, string>, measureRss: boolean): Promise<{ ms: number; rssMb: number }> {
  const started = performance.now()
  const child = await startBuiltServer({ ...env, INGOT_PORT: '18499' })
  try {
    const ms = Math.round(performance.now() - started)
    let rssMb = 0
    if (measureRss) {
      await sleep(2000)
      rssMb = rssOf(child.pid ?? 0)
    }
    return { ms, rssMb }
  } finally {
    await stop(child)
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
