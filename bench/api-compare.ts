// API list throughput beside a separate-process floor (issue 19): the built `ingot web` and a
// minimal Fastify process (bench/floor-server.ts) sending the byte-identical answers Ingot gave,
// each pinned to CPU 0 in turn, loaded by `wrk -t1 -c16` on CPU 1 with PRIVATE-TOKEN on every
// request and the same URL repeated, over 2,000 users and projects. Rows per URL: Ingot req/s,
// floor req/s and their ratio; and each server's CPU time per request (utime + stime over the
// requests wrk completed) with the floor's ÷ Ingot's. The second is the steadier measure of the
// same thing: on this VM the floor's req/s moved by half between runs minutes apart, and a server
// that is not kept busy by one wrk thread (the floor, at 20,000–30,000 req/s) shows it in its
// req/s but not in its CPU per request. Ingot and the floor alternate, BENCH_COMPARE_ROUNDS
// times (medians).
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { openDatabase } from '../src/db/index.js'
import { seedUsersAndProjects } from './seed.js'
import { seedIssues } from './issues-seed.js'
import type { FloorAnswer } from './floor-server.js'
import { benchDatabase, cpuOf, log, median, repoRoot, ROOT_TOKEN, startBuiltServer, stop, type Row } from './harness.js'

const SEED_COUNT = Number(process.env.BENCH_COMPARE_SEED ?? 2_000)
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 3)
const CONNECTIONS = 16
const TARGET = 0.4
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length'])

export async function measureApiCompare(dialects: readonly ('sqlite' | 'postgres')[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const dialect of dialects) rows.push(...await measureDialect(dialect))
  return rows
}

async function measureDialect(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `ingot-bench-compare-${dialect}-`))
  const database = await benchDatabase(dialect, 'compare')
  const env = { INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: database.url, INGOT_ROOT_TOKEN: ROOT_TOKEN, INGOT_LOG_LEVEL: 'warn' }
  const port = 18_520 + (dialect === 'sqlite' ? 0 : 1)
  const floorPort = port + 10
  try {
    log(`[${dialect}] api-compare: seeding ${SEED_COUNT} users and projects`)
    // The first start migrates and seeds root; the fixtures go in once it has stopped.
    await stop(await startBuiltServer({ ...env, INGOT_PORT: String(port) }))
    const handle = await openDatabase({ databaseUrl: database.url, dataDir })
    const seed = await seedUsersAndProjects(handle.db, SEED_COUNT)
    await seedIssues(handle.db, seed.projectId, seed.reader.id, 100)
    await handle.close()

    const urls = ['/api/v4/projects?per_page=20', '/api/v4/users?per_page=20', `/api/v4/projects/${seed.projectId}/issues?per_page=20`]
    const token = seed.reader.token
    const ingot = await startBuiltServer({ ...env, INGOT_PORT: String(port) })
    let answers: FloorAnswer[]
    try {
      answers = await Promise.all(urls.map((url) => capture(`http://127.0.0.1:${port}`, url, token)))
    } catch (err) {
      await stop(ingot)
      throw err
    }
    const answersFile = path.join(dataDir, 'floor-answers.json')
    fs.writeFileSync(answersFile, JSON.stringify(answers))
    const floor = await startFloorServer(answersFile, floorPort)
    const results = urls.map(() => ({ ingot: [] as WrkRun[], floor: [] as WrkRun[] }))
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, url] of urls.entries()) {
          if (round === 0) {
            await wrk(`http://127.0.0.1:${port}${url}`, token, 2, ingot.pid!) // warm-up
            await wrk(`http://127.0.0.1:${floorPort}${url}`, token, 2, floor.pid!)
          }
          results[i]!.ingot.push(await wrk(`http://127.0.0.1:${port}${url}`, token, DURATION_S, ingot.pid!))
          results[i]!.floor.push(await wrk(`http://127.0.0.1:${floorPort}${url}`, token, DURATION_S, floor.pid!))
        }
      }
    } finally {
      await stop(floor)
      await stop(ingot)
    }
    return urls.flatMap((url, i) => {
      const [ingotRuns, floorRuns] = [results[i]!.ingot, results[i]!.floor]
      const ingotRps = median(ingotRuns.map((run) => run.rps))
      const floorRps = median(floorRuns.map((run) => run.rps))
      const ratio = ingotRps / floorRps
      const ingotCpu = median(ingotRuns.map((run) => run.cpuMicrosPerRequest))
      const floorCpu = median(floorRuns.map((run) => run.cpuMicrosPerRequest))
      const cpuRatio = floorCpu / ingotCpu
      const busy = (runs: WrkRun[]) => `${Math.round(median(runs.map((run) => run.cpuShare)) * 100)} %`
      const label = url.replace('/api/v4', '').replace(`/${seed.projectId}/`, '/:id/')
      return [{
        metric: `${dialect}: GET ${label}, wrk -t1 -c16, Ingot req/s, floor req/s (separate Fastify process, same answer), ratio (median of ${ROUNDS})`,
        value: `${Math.round(ingotRps)}, ${Math.round(floorRps)}, ${ratio.toFixed(2)}×`,
        target: `≥ ${TARGET.toFixed(2)}×`, ok: ratio >= TARGET,
      }, {
        metric: `${dialect}: GET ${label}, the same runs: server CPU per request, Ingot, floor, floor ÷ Ingot (the servers busy ${busy(ingotRuns)} and ${busy(floorRuns)} of their core)`,
        value: `${ingotCpu.toFixed(1)} µs, ${floorCpu.toFixed(1)} µs, ${cpuRatio.toFixed(2)}×`,
        target: `≥ ${TARGET.toFixed(2)}×`, ok: cpuRatio >= TARGET,
      }]
    })
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
    await database.drop()
  }
}

/** Ingot's answer to the URL as the floor replays it: status, headers a server sets itself left out, body. */
async function capture(base: string, url: string, token: string): Promise<FloorAnswer> {
  const res = await fetch(`${base}${url}`, { headers: { 'private-token': token } })
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`)
  const headers: Record<string, string> = {}
  for (const [key, value] of res.headers) if (!HOP_BY_HOP.has(key)) headers[key] = value
  return { url, status: res.status, headers, body: await res.text() }
}

/** Starts bench/floor-server.ts on CPU 0 replaying the answers in `answersFile`; resolves once it listens. */
export async function startFloorServer(answersFile: string, port: number): Promise<ChildProcess> {
  const child = spawn('taskset', ['-c', '0', process.execPath, '--import', 'tsx', 'bench/floor-server.ts'], {
    cwd: repoRoot, env: { ...process.env, FLOOR_ANSWERS: answersFile, FLOOR_PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => { if (chunk.toString().includes('READY')) resolve() })
    child.once('exit', (code) => reject(new Error(`floor server exited with ${code}`)))
  })
  return child
}

interface WrkRun {
  rps: number
  /** The server's CPU time (user and system, all its threads) over the requests wrk completed. */
  cpuMicrosPerRequest: number
  /** The server's CPU time over the run's wall time: 1 when wrk kept it busy throughout. */
  cpuShare: number
}

/** One wrk run on CPU 1 against the server `pid`; any non-2xx answer or socket error fails the benchmark. */
async function wrk(url: string, token: string, seconds: number, pid: number): Promise<WrkRun> {
  const cpuBefore = cpuOf(pid).self
  const started = performance.now()
  const { stdout } = await promisify(execFile)('taskset', [
    '-c', '1', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '-H', `PRIVATE-TOKEN: ${token}`, url,
  ])
  const wallSeconds = (performance.now() - started) / 1000
  const cpuSeconds = cpuOf(pid).self - cpuBefore
  if (/Non-2xx or 3xx responses|Socket errors/.test(stdout)) throw new Error(`${url}: ${stdout}`)
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1])
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1])
  if (!Number.isFinite(rps) || !(requests > 0)) throw new Error(`${url}: no rate in wrk's output: ${stdout}`)
  return { rps, cpuMicrosPerRequest: cpuSeconds * 1e6 / requests, cpuShare: cpuSeconds / wallSeconds }
}
