// jobs/request at scale: the real built server (`ingot web` from dist/) on CPU 0 with 200 pending CI
// jobs, and 4 runners (instance runners, rows written as registration writes them) polling it from
// this process in turn, each request after the last one's answer, until the queue is empty. Every
// request is timed, beside the same loops asking GET /api/v4/version (the floor: the least a
// request costs on that server), and every job must be handed out exactly once. Each runner's
// first few requests take 20 more jobs and are not timed: a server that has just started opens its
// database connections and compiles its hot code then, which runners polling it all day never see.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { openDatabase } from '../src/db/index.js'
import { newRunnerToken } from '../src/services/ci/runners/runner-token.js'
import { benchDatabase, log, percentile, ROOT_TOKEN, type Row, startBuiltServer, stop } from './harness.js'

const JOBS = 200
const RUNNERS = 4
const WARM_UP_REQUESTS = 5
const ALL_JOBS = JOBS + RUNNERS * WARM_UP_REQUESTS
const P99_TARGET_MS = 20

export async function measureRunnerJobs(dialects: readonly ('sqlite' | 'postgres')[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const dialect of dialects) rows.push(...await measureDialect(dialect))
  return rows
}

async function measureDialect(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `ingot-bench-runners-${dialect}-`))
  const dataDir = path.join(work, 'data')
  const database = await benchDatabase(dialect, 'runners_')
  const port = 18_540 + (dialect === 'sqlite' ? 0 : 1)
  const base = `http://127.0.0.1:${port}`
  let server: ChildProcess | null = null
  try {
    fs.mkdirSync(dataDir)
    server = await startBuiltServer({
      INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: database.url, INGOT_ROOT_TOKEN: ROOT_TOKEN,
      INGOT_LOG_LEVEL: 'warn', INGOT_PORT: String(port), INGOT_EXTERNAL_URL: base,
      // Each empty answer at once: what is measured is the request, not the hold.
      INGOT_RUNNER_LONG_POLL_SECONDS: '0',
    })
    const api = async (method: string, url: string, body: unknown): Promise<any> => {
      const res = await fetch(`${base}/api/v4${url}`, {
        method, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, body: JSON.stringify(body),
      })
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
      return res.json()
    }
    const project = await api('POST', '/projects', { name: 'bench-runners', initialize_with_readme: true }) as { id: number }
    const ciFile = ['a', 'b', 'c', 'd', 'e'].map((name) => `${name}: { script: echo ${name}, parallel: ${ALL_JOBS / 5} }`).join('\n')
    // The file's push makes one pipeline of 220 jobs (ci.create_pipeline, in the server's job worker).
    await api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, { branch: 'master', content: ciFile, commit_message: 'CI' })
    const handle = await openDatabase({ databaseUrl: database.url, dataDir })
    const tokens: string[] = []
    try {
      for (let waited = 0; ; waited += 50) {
        const { count } = await handle.db.selectFrom('ci_builds').select((eb) => eb.fn.countAll<number>().as('count'))
          .where('project_id', '=', project.id).where('status', '=', 'pending').executeTakeFirstOrThrow()
        if (Number(count) === ALL_JOBS) break
        if (waited > 30_000) throw new Error(`${count} pending jobs after 30 s`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      for (let i = 0; i < RUNNERS; i++) {
        const { token, digest } = newRunnerToken()
        const now = Date.now()
        await handle.db.insertInto('ci_runners').values({ token_digest: digest, runner_type: 'instance_type', description: `bench ${i}`, created_at: now, updated_at: now }).execute()
        tokens.push(token)
      }
    } finally {
      await handle.close()
    }

    log(`[runners ${dialect}] ${RUNNERS} runners polling jobs/request over ${JOBS} pending jobs, beside GET /version`)
    const handed: number[] = []
    const requestTimes: number[] = []
    const floorTimes: number[] = []
    const info = { name: 'gitlab-runner', version: '17.0.0', platform: 'linux', architecture: 'amd64', features: { upload_multiple_artifacts: true } }
    await Promise.all(tokens.map(async (token) => {
      for (let request = 0, empty = 0; empty < 5; request++) {
        let started = performance.now()
        const res = await fetch(`${base}/api/v4/jobs/request`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, info }) })
        const body = await res.text()
        if (request >= WARM_UP_REQUESTS) requestTimes.push(performance.now() - started)
        if (res.status === 201) handed.push((JSON.parse(body) as { id: number }).id)
        else if (res.status === 204) empty += 1
        else if (res.status !== 409) throw new Error(`jobs/request answered ${res.status}: ${body}`)
        started = performance.now()
        await (await fetch(`${base}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } })).text()
        if (request >= WARM_UP_REQUESTS) floorTimes.push(performance.now() - started)
      }
    }))
    const twice = handed.length - new Set(handed).size
    const ms = (value: number) => `${value.toFixed(1)} ms`
    return [{
      metric: `${dialect}: POST /jobs/request, ${RUNNERS} runners over ${JOBS} pending jobs (${requestTimes.length} requests after ${WARM_UP_REQUESTS} each; floor GET /version)`,
      value: `p50 ${ms(percentile(requestTimes, 50))}, p99 ${ms(percentile(requestTimes, 99))} (floor p99 ${ms(percentile(floorTimes, 99))}); ${handed.length} handed out, ${twice} twice`,
      target: `p99 ≤ ${P99_TARGET_MS} ms, every job once`,
      ok: percentile(requestTimes, 99) <= P99_TARGET_MS && twice === 0 && handed.length === ALL_JOBS,
    }]
  } finally {
    if (server !== null) await stop(server)
    fs.rmSync(work, { recursive: true, force: true })
    await database.drop()
  }
}
