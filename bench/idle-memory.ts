// Idle memory after start (issue 19: ≤ 70 MB), beside two floors in the same run: `node -e` idle
// (Node itself) and a bare Fastify server with one route. The built `ingot web` (dist/, as
// `npm start` runs it) on a migrated SQLite data directory, pinned to CPU 0, with
// INGOT_BUILTIN_RUNNER=false and INGOT_SSH_PORT=0; VmRSS read 2 s after the first 200 of
// GET /api/v4/version. The first boot (migrations, argon2 hashing root's password) is left out;
// then BENCH_IDLE_STARTS starts (5), medians. Also the start time: spawn to the first 200 of
// /-/readiness (the machine's load moves it far more than the RSS).
//
//   BENCH_PARTS=idle-memory npm run bench       (builds dist/ first, as every part)
//   node --import tsx bench/idle-memory.ts      (alone, on the dist/ already built)
// BENCH_IDLE_NODE_ARGS="--flag …" and BENCH_IDLE_ENV="NAME=value …" start Ingot with node flags or
// environment variables of an experiment.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { log, median, renderTable, repoRoot, ROOT_TOKEN, rssOf, stop, type Row } from './harness.js'

const STARTS = Number(process.env.BENCH_IDLE_STARTS ?? 5)
const TARGET_MB = 70
const PORT = 18_590
const SETTLE_MS = 2000

/** A bare Fastify server answering GET /api/v4/version: what the framework alone holds. */
const BARE_FASTIFY = `
import Fastify from 'fastify'
const app = Fastify({ logger: false })
app.get('/api/v4/version', async () => ({ version: '17.0.0', revision: 'floor' }))
await app.listen({ port: Number(process.env.FLOOR_PORT), host: '127.0.0.1' })
`

export async function measureIdleMemory(): Promise<Row[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingot-bench-idle-'))
  const extraArgs = (process.env.BENCH_IDLE_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '')
  const extraEnv = Object.fromEntries((process.env.BENCH_IDLE_ENV ?? '').split(/\s+/).filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]))
  const env = {
    INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: '', INGOT_ROOT_TOKEN: ROOT_TOKEN, INGOT_LOG_LEVEL: 'warn',
    INGOT_BUILTIN_RUNNER: 'false', INGOT_SSH_PORT: '0', INGOT_PORT: String(PORT), ...extraEnv,
  }
  const ingotArgs = [...extraArgs, 'dist/main.js', 'web']
  try {
    log('idle-memory: first boot (migrations, root seed), left out')
    await idleStart(ingotArgs, env, '/-/readiness')
    const ingot: { rssMb: number; startMs: number }[] = []
    for (let i = 0; i < STARTS; i++) {
      const start = await idleStart(ingotArgs, env, '/-/readiness')
      log(`idle-memory: ingot start ${i + 1}: ${start.rssMb.toFixed(1)} MB, ${start.startMs} ms to /-/readiness`)
      ingot.push(start)
    }
    const nodeRss: number[] = []
    const fastifyRss: number[] = []
    for (let i = 0; i < STARTS; i++) {
      nodeRss.push((await idleStart(['-e', 'setInterval(() => {}, 1000)'], {}, null)).rssMb)
      fastifyRss.push((await idleStart(['--input-type=module', '-e', BARE_FASTIFY], { FLOOR_PORT: String(PORT) }, '/api/v4/version')).rssMb)
    }
    const rss = median(ingot.map((start) => start.rssMb))
    const floors = `floors: node -e ${median(nodeRss).toFixed(1)} MB, a bare Fastify server ${median(fastifyRss).toFixed(1)} MB`
    return [
      { metric: `idle RSS after start (ingot web, SQLite, no SSH or runner; 2 s after the first 200 of GET /api/v4/version; median of ${STARTS} starts; ${floors})`, value: `${rss.toFixed(1)} MB`, target: `≤ ${TARGET_MB} MB`, ok: rss <= TARGET_MB },
      { metric: `start of ingot web on a migrated database to the first 200 of /-/readiness (median of ${STARTS}; load average ${os.loadavg()[0]!.toFixed(1)})`, value: `${median(ingot.map((start) => start.startMs))} ms`, target: '', ok: null },
    ]
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * Starts node with `args` on CPU 0 (cwd: the checkout), waits for the first 200 of GET `probe` on
 * PORT (when not null), then SETTLE_MS; its VmRSS then and the time from spawn to that 200.
 */
async function idleStart(args: readonly string[], env: Record<string, string>, probe: string | null): Promise<{ rssMb: number; startMs: number }> {
  const started = performance.now()
  const child: ChildProcess = spawn('taskset', ['-c', '0', process.execPath, ...args], {
    cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'],
  })
  try {
    let startMs = 0
    if (probe !== null) {
      for (;;) {
        try {
          const res = await fetch(`http://127.0.0.1:${PORT}${probe}`, { headers: { 'private-token': ROOT_TOKEN } })
          await res.arrayBuffer()
          if (res.status === 200) break
        } catch {
          // not listening yet
        }
        if (child.exitCode !== null) throw new Error(`node ${args.join(' ')} exited with ${child.exitCode} before answering`)
        await sleep(2)
      }
      startMs = Math.round(performance.now() - started)
      if (probe !== '/api/v4/version') {
        const res = await fetch(`http://127.0.0.1:${PORT}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } })
        await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`GET /api/v4/version: ${res.status}`)
      }
    }
    await sleep(SETTLE_MS)
    return { rssMb: rssOf(child.pid ?? 0), startMs }
  } finally {
    await stop(child)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  void measureIdleMemory().then((rows) => process.stdout.write(renderTable(rows)), (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`)
    process.exit(1)
  })
}
