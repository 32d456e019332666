// CI traces under load: the real built server (`ingot web` on CPU 0) and 20 running jobs whose
// runners each PATCH a line of trace ten times a second for BENCH_TRACE_SECONDS, every request
// after the first second timed; then one job's 50 MB trace written in 1 MB appends and read back over HTTP while the
// server's resident memory is sampled (the read streams chunk by chunk, so memory stays flat). The
// jobs are put into running with their tokens through Ingot's own services (transitions.startJob)
// from this process, on the same database, as the runner protocol's jobs/request would.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { pino } from 'pino'
import { loadConfig } from '../src/config.js'
import { openContext } from '../src/context.js'
import { newJobToken } from '../src/services/ci/job-token.js'
import { startJob } from '../src/services/ci/transitions.js'
import { benchDatabase, log, percentile, ROOT_TOKEN, type Row, rssOf, startBuiltServer, stop } from './harness.js'

const JOBS = Number(process.env.BENCH_TRACE_JOBS ?? 20)
const PATCHES_PER_SECOND = 10
const SECONDS = Number(process.env.BENCH_TRACE_SECONDS ?? 10)
const P99_TARGET_MS = 10
/**
 * Each job's first second of appends is not counted: the server, alone on its core, compiles its
 * hot code then (V8's compiler threads share that core), which is start-up, not steady work.
 */
const WARM_UP_PATCHES = PATCHES_PER_SECOND
const BIG_TRACE_MB = 50
/**
 * What a streaming read may grow the server by: V8's young generation grows to its largest (two 16
 * MB halves) under any burst of short-lived allocations, collected or not, plus a few buffers. A
 * read that held the trace would grow it by the trace's 50 MB at least (on PostgreSQL three times
 * that: bytea comes as hex text).
 */
const STREAMING_GROWTH_MB = 40

export async function measureTraces(dialects: readonly ('sqlite' | 'postgres')[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const dialect of dialects) rows.push(...await measureDialect(dialect))
  return rows
}

async function measureDialect(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `ingot-bench-traces-${dialect}-`))
  const database = await benchDatabase(dialect, 'traces_')
  const port = 18_540 + (dialect === 'sqlite' ? 0 : 1)
  const base = `http://127.0.0.1:${port}`
  const env = {
    INGOT_DATA_DIR: path.join(work, 'data'), INGOT_DATABASE_URL: database.url, INGOT_ROOT_TOKEN: ROOT_TOKEN,
    INGOT_LOG_LEVEL: 'warn', INGOT_PORT: String(port), INGOT_EXTERNAL_URL: base,
  }
  let server: ChildProcess | null = null
  try {
    fs.mkdirSync(env.INGOT_DATA_DIR)
    server = await startBuiltServer(env)
    const api = async (method: string, url: string, body: unknown): Promise<any> => {
      const res = await fetch(`${base}/api/v4${url}`, {
        method, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, body: JSON.stringify(body),
      })
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
      return res.json()
    }
    const project = await api('POST', '/projects', { name: 'bench-traces', initialize_with_readme: true }) as { id: number }
    const ciFile = Array.from({ length: JOBS }, (_, i) => `job${i}: { script: make }`).join('\n')
    await api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, { branch: 'master', content: ciFile, commit_message: 'CI' })
    const pipeline = await api('POST', `/projects/${project.id}/pipeline`, { ref: 'master' }) as { id: number }

    const ctx = await openContext(loadConfig(env), pino({ level: 'warn' }))
    const jobs: { id: number; token: string }[] = []
    try {
      const rows = await ctx.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', pipeline.id).orderBy('id').execute()
      for (const row of rows) {
        const { token, digest } = newJobToken()
        await ctx.db.updateTable('ci_builds').set({ token_digest: digest }).where('id', '=', row.id).execute()
        await startJob(ctx, row.id)
        jobs.push({ id: row.id, token })
      }
    } finally {
      await ctx.close()
    }

    const patch = async (job: { id: number; token: string }, offset: number, data: Buffer): Promise<number> => {
      const res = await fetch(`${base}/api/v4/jobs/${job.id}/trace`, {
        method: 'PATCH', body: data,
        headers: { 'job-token': job.token, 'content-type': 'text/plain', 'content-range': `${offset}-${offset + data.length - 1}` },
      })
      await res.arrayBuffer()
      if (res.status !== 202) throw new Error(`PATCH answered ${res.status}`)
      return Number(res.headers.get('range')!.split('-')[1])
    }

    log(`[traces ${dialect}] ${JOBS} jobs × ${PATCHES_PER_SECOND} PATCH/s for ${SECONDS} s`)
    const times: number[] = []
    await Promise.all(jobs.map(async (job, index) => {
      let offset = 0
      const start = performance.now() + index * (1000 / PATCHES_PER_SECOND / JOBS)
      for (let i = 0; i < SECONDS * PATCHES_PER_SECOND; i++) {
        const due = start + i * (1000 / PATCHES_PER_SECOND)
        const wait = due - performance.now()
        if (wait > 0) await sleep(wait)
        const sent = performance.now()
        offset = await patch(job, offset, Buffer.from(`${new Date().toISOString()} line ${i} of job ${job.id}: some output of a build step\n`))
        if (i >= WARM_UP_PATCHES) times.push(performance.now() - sent)
      }
    }))
    const p50 = percentile(times, 50)
    const p99 = percentile(times, 99)
    // The same client's floor: GET /version, timed the same way, one after the other.
    const floor: number[] = []
    for (let i = 0; i < 200; i++) {
      const sent = performance.now()
      await (await fetch(`${base}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } })).arrayBuffer()
      floor.push(performance.now() - sent)
    }

    log(`[traces ${dialect}] a ${BIG_TRACE_MB} MB trace, read back while the server's memory is sampled`)
    const big = jobs[0]!
    let offset = Number((await fetch(`${base}/api/v4/jobs/${big.id}/trace`, {
      method: 'PATCH', headers: { 'job-token': big.token, 'content-range': '0-0', 'content-type': 'text/plain' }, body: '',
    })).headers.get('range')!.split('-')[1])
    const megabyte = Buffer.alloc(1024 * 1024, 'x\n')
    for (let i = 0; i < BIG_TRACE_MB; i++) offset = await patch(big, offset, megabyte)
    const rssBefore = rssOf(server.pid!)
    let rssPeak = rssBefore
    const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, rssOf(server!.pid!)) }, 20)
    const readStart = performance.now()
    const res = await fetch(`${base}/api/v4/projects/${project.id}/jobs/${big.id}/trace`, { headers: { 'private-token': ROOT_TOKEN } })
    let read = 0
    for await (const chunk of res.body!) read += (chunk as Uint8Array).length
    const readMs = performance.now() - readStart
    clearInterval(sampler)
    if (read !== offset) throw new Error(`read ${read} bytes of a ${offset}-byte trace`)

    const ms = (value: number) => `${value.toFixed(1)} ms`
    return [
      {
        metric: `${dialect}: trace PATCH, ${JOBS} running jobs × ${PATCHES_PER_SECOND}/s for ${SECONDS} s (${times.length} requests after a second's warm-up)`,
        value: `p50 ${ms(p50)}, p99 ${ms(p99)} (GET /version one at a time: p50 ${ms(percentile(floor, 50))}, p99 ${ms(percentile(floor, 99))})`,
        target: `p99 ≤ ${P99_TARGET_MS} ms`, ok: p99 <= P99_TARGET_MS,
      },
      {
        metric: `${dialect}: GET a ${BIG_TRACE_MB} MB live trace (chunks in the database)`,
        value: `${Math.round(readMs)} ms, server RSS ${Math.round(rssBefore)} → peak ${Math.round(rssPeak)} MB`,
        target: `streams: RSS grows < ${STREAMING_GROWTH_MB} MB`, ok: rssPeak - rssBefore < STREAMING_GROWTH_MB,
      },
    ]
  } finally {
    if (server !== null) await stop(server)
    fs.rmSync(work, { recursive: true, force: true })
    await database.drop()
  }
}
