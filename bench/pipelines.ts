// CI lists at scale (issue 15): the real built server (`ingot web` from dist/, CPU 0) with one
// project holding 10,000 pipelines and 100,000 jobs, and a merge request with 100 of them. The first
// pipeline is made by the server from the project's CI file (ten jobs); the rest are copies of its
// rows written straight into the database, with statuses and refs spread over them. Each list shape
// is asked 200 times one at a time, each time another page (so that no answer comes from the answer
// cache), timed, and its X-Total checked against a count of the database. Then merge when pipeline
// succeeds, MERGE_RUNS times: a merge request of a new branch set to merge when its pipeline
// succeeds, the pipeline's jobs taken and finished by a runner over the runner protocol, timed from
// the last job's PUT state=success returning to the merge request's merged_at.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { sql } from 'kysely'
import { openDatabase, type Db } from '../src/db/index.js'
import { newRunnerToken } from '../src/services/ci/runners/runner-token.js'
import type { CiStatus } from '../src/db/schema.js'
import { benchDatabase, log, percentile, ROOT_TOKEN, type Row, startBuiltServer, stop } from './harness.js'

const PIPELINES = Number(process.env.BENCH_PIPELINES ?? 10_000)
const JOBS_PER_PIPELINE = 10
/** Every this many pipelines, one is of the merge request's branch and commit. */
const MERGE_REQUEST_EVERY = 100
const REQUESTS = 200
const P99_TARGET_MS = 25
const MERGE_RUNS = 5
const MERGED_TARGET_MS = 500
const STATUSES: readonly CiStatus[] = ['success', 'failed', 'success', 'canceled', 'success', 'running']

export async function measurePipelines(dialects: readonly ('sqlite' | 'postgres')[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const dialect of dialects) rows.push(...await measureDialect(dialect))
  return rows
}

async function measureDialect(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `ingot-bench-pipelines-${dialect}-`))
  const dataDir = path.join(work, 'data')
  const database = await benchDatabase(dialect, 'pipelines_')
  const port = 18_550 + (dialect === 'sqlite' ? 0 : 1)
  const base = `http://127.0.0.1:${port}`
  let server: ChildProcess | null = null
  try {
    fs.mkdirSync(dataDir)
    server = await startBuiltServer({
      INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: database.url, INGOT_ROOT_TOKEN: ROOT_TOKEN,
      INGOT_LOG_LEVEL: 'warn', INGOT_PORT: String(port), INGOT_EXTERNAL_URL: base,
    })
    const api = async (method: string, url: string, body?: unknown): Promise<{ body: any; total: number }> => {
      const res = await fetch(`${base}/api/v4${url}`, {
        method, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      })
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
      return { body: await res.json(), total: Number(res.headers.get('x-total')) }
    }
    const project = (await api('POST', '/projects', { name: 'bench-pipelines', initialize_with_readme: true })).body as { id: number }
    const ciFile = Array.from({ length: JOBS_PER_PIPELINE }, (_, i) => `job${i}: { stage: ${i < 5 ? 'build' : 'test'}, script: make }`).join('\n')
    await api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, { branch: 'master', content: ciFile, commit_message: 'CI' })
    await api('POST', `/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'master' })
    await api('POST', `/projects/${project.id}/repository/files/feature.txt`, { branch: 'feature', content: 'feature\n', commit_message: 'Feature' })
    const mergeRequest = (await api('POST', `/projects/${project.id}/merge_requests`, { source_branch: 'feature', target_branch: 'master', title: 'Feature' })).body as { iid: number; sha: string }

    const handle = await openDatabase({ databaseUrl: database.url, dataDir })
    try {
      log(`[pipelines ${dialect}] ${PIPELINES} pipelines × ${JOBS_PER_PIPELINE} jobs`)
      await seedPipelines(handle.db, project.id, mergeRequest.sha)
      // PostgreSQL's autovacuum analyzes a table within a minute of such a change; without the
      // statistics it plans for a few hundred jobs and sorts all 100,000 for each page.
      if (dialect === 'postgres') await sql`analyze`.execute(handle.db)
      const countPipelines = async (filter: { status?: CiStatus; ref?: string; sha?: string }) => Number((await handle.db.selectFrom('ci_pipelines')
        .select((eb) => eb.fn.countAll<number>().as('count')).where('project_id', '=', project.id)
        .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
        .$if(filter.ref !== undefined, (q) => q.where('ref', '=', filter.ref!))
        .$if(filter.sha !== undefined, (q) => q.where('sha', '=', filter.sha!))
        .executeTakeFirstOrThrow()).count)
      const countJobs = async (status?: CiStatus) => Number((await handle.db.selectFrom('ci_builds')
        .select((eb) => eb.fn.countAll<number>().as('count')).where('project_id', '=', project.id)
        .$if(status !== undefined, (q) => q.where('status', '=', status!))
        .executeTakeFirstOrThrow()).count)
      const shapes = [
        { name: 'GET /projects/:id/pipelines', url: `/projects/${project.id}/pipelines?per_page=20`, total: await countPipelines({}) },
        { name: 'GET /projects/:id/pipelines?status=failed', url: `/projects/${project.id}/pipelines?per_page=20&status=failed`, total: await countPipelines({ status: 'failed' }) },
        { name: 'GET /projects/:id/pipelines?ref=feature', url: `/projects/${project.id}/pipelines?per_page=20&ref=feature`, total: await countPipelines({ ref: 'feature' }) },
        { name: 'GET /projects/:id/jobs', url: `/projects/${project.id}/jobs?per_page=20`, total: await countJobs() },
        { name: 'GET /projects/:id/jobs?scope=failed', url: `/projects/${project.id}/jobs?per_page=20&scope=failed`, total: await countJobs('failed') },
        { name: 'GET …/merge_requests/:iid/pipelines', url: `/projects/${project.id}/merge_requests/${mergeRequest.iid}/pipelines?per_page=20`, total: await countPipelines({ ref: 'feature', sha: mergeRequest.sha }) },
      ]
      const rows: Row[] = []
      for (const shape of shapes) {
        const times: number[] = []
        let wrongTotal: number | null = null
        const pages = Math.max(1, Math.ceil(shape.total / 20))
        for (let i = 0; i < REQUESTS; i++) {
          const started = performance.now()
          const { total } = await api('GET', `${shape.url}&page=${1 + (i % Math.min(pages, REQUESTS))}`)
          times.push(performance.now() - started)
          if (total !== shape.total) wrongTotal = total
        }
        const p99 = percentile(times, 99)
        rows.push({
          metric: `${dialect}: ${shape.name} (${shape.total} rows, ${REQUESTS} pages one at a time)`,
          value: `p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; X-Total ${wrongTotal === null ? 'exact' : `${wrongTotal}, not ${shape.total}`}`,
          target: `p99 ≤ ${P99_TARGET_MS} ms, exact X-Total`,
          ok: p99 <= P99_TARGET_MS && wrongTotal === null,
        })
      }
      const { token, digest } = newRunnerToken()
      const now = Date.now()
      await handle.db.insertInto('ci_runners').values({ token_digest: digest, runner_type: 'instance_type', description: 'bench', created_at: now, updated_at: now }).execute()
      const mergeTimes: number[] = []
      for (let run = 0; run < MERGE_RUNS; run++) mergeTimes.push(await timeMergeWhenPipelineSucceeds(handle.db, api, base, project.id, token, `auto-${run}`))
      const slowest = Math.max(...mergeTimes)
      rows.push({
        metric: `${dialect}: merge when pipeline succeeds, last job's success → merged (${MERGE_RUNS} merge requests)`,
        value: `median ${[...mergeTimes].sort((a, b) => a - b)[Math.floor(MERGE_RUNS / 2)]} ms, slowest ${slowest} ms`,
        target: `≤ ${MERGED_TARGET_MS} ms`,
        ok: slowest <= MERGED_TARGET_MS,
      })
      return rows
    } finally {
      await handle.close()
    }
  } finally {
    if (server !== null) await stop(server)
    fs.rmSync(work, { recursive: true, force: true })
    await database.drop()
  }
}

/** Copies the project's first pipeline (made by the server) and its jobs until it has PIPELINES. */
async function seedPipelines(db: Db, projectId: number, mergeRequestSha: string): Promise<void> {
  let template: Awaited<ReturnType<typeof firstPipeline>> = null
  for (let waited = 0; template === null; waited += 100) {
    if (waited > 30_000) throw new Error('the CI file made no pipeline in 30 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
    template = await firstPipeline(db, projectId)
  }
  const { pipeline, jobs } = template
  const { id: _pipelineId, ...pipelineColumns } = pipeline
  const start = Date.now() - PIPELINES * 60_000
  const BATCH = 200
  for (let first = 1; first < PIPELINES; first += BATCH) {
    await db.transaction().execute(async (trx) => {
      const numbers = Array.from({ length: Math.min(BATCH, PIPELINES - first) }, (_, i) => first + i)
      const made = await trx.insertInto('ci_pipelines').values(numbers.map((n) => {
        const forMergeRequest = n % MERGE_REQUEST_EVERY === 0
        const at = start + n * 60_000
        return {
          ...pipelineColumns, iid: 1000 + n, status: STATUSES[n % STATUSES.length]!, ref: forMergeRequest ? 'feature' : 'master',
          sha: forMergeRequest ? mergeRequestSha : pipeline.sha, created_at: at, updated_at: at, started_at: at, finished_at: at + 30_000, duration: 30,
        }
      })).returning(['id', 'status', 'created_at']).execute()
      const jobRows = made.flatMap((made) => jobs.map(({ id: _jobId, ...job }, index) => ({
        // A running job not updated for an hour is failed by the server's stale-jobs sweep, which
        // would change the counts under the measurement: running ones were updated just now.
        ...job, pipeline_id: made.id, created_at: made.created_at, updated_at: made.status === 'running' ? Date.now() : made.created_at,
        // One failed job in each failed pipeline, the rest as the pipeline.
        status: made.status === 'failed' && index !== 0 ? 'success' as const : made.status,
      })))
      for (let i = 0; i < jobRows.length; i += 500) await trx.insertInto('ci_builds').values(jobRows.slice(i, i + 500)).execute()
    })
  }
}

async function firstPipeline(db: Db, projectId: number) {
  const pipeline = await db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).orderBy('id').executeTakeFirst()
  if (pipeline === undefined) return null
  const jobs = await db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipeline.id).orderBy('id').execute()
  return jobs.length === JOBS_PER_PIPELINE ? { pipeline, jobs } : null
}

type Api = (method: string, url: string, body?: unknown) => Promise<{ body: any; total: number }>

/** One merge request merged by its pipeline's success: ms from the last job's success to merged_at. */
async function timeMergeWhenPipelineSucceeds(db: Db, api: Api, base: string, projectId: number, runnerToken: string, branch: string): Promise<number> {
  // The runner takes the oldest pending job: other pipelines' (of master's pushes and merges) go first.
  const waiting = await db.selectFrom('ci_builds').select('pipeline_id').distinct().where('project_id', '=', projectId).where('status', '=', 'pending').execute()
  for (const { pipeline_id } of waiting) await api('POST', `/projects/${projectId}/pipelines/${pipeline_id}/cancel`)
  await api('POST', `/projects/${projectId}/repository/files/${branch}.txt`, { branch, start_branch: 'master', content: `${branch}\n`, commit_message: branch })
  const mr = (await api('POST', `/projects/${projectId}/merge_requests`, { source_branch: branch, target_branch: 'master', title: branch })).body as { iid: number }
  // The push's pipeline is made by the server's job worker; MWPS needs it as the head pipeline.
  let headPipeline = 0
  for (let waited = 0; ; waited += 50) {
    const { body } = await api('GET', `/projects/${projectId}/merge_requests/${mr.iid}`)
    headPipeline = body.pipeline?.id ?? 0
    if (headPipeline !== 0) break
    if (waited > 30_000) throw new Error(`no head pipeline for ${branch} after 30 s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await api('PUT', `/projects/${projectId}/merge_requests/${mr.iid}/merge`, { merge_when_pipeline_succeeds: true })
  let lastSuccess = 0
  for (let finished = 0; finished < JOBS_PER_PIPELINE;) {
    const res = await fetch(`${base}/api/v4/jobs/request`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: runnerToken }) })
    if (res.status !== 201) {
      await res.arrayBuffer()
      await new Promise((resolve) => setTimeout(resolve, 20))
      continue
    }
    const job = await res.json() as { id: number; token: string; variables: { key: string; value: string }[] }
    const done = await fetch(`${base}/api/v4/jobs/${job.id}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: job.token, state: 'success' }) })
    if (done.status !== 200) throw new Error(`PUT /jobs/${job.id} answered ${done.status}`)
    // A job of another pipeline (master's, made by the last merge after the cancel above) is run too, not counted.
    if (job.variables.find((variable) => variable.key === 'CI_PIPELINE_ID')?.value !== String(headPipeline)) continue
    lastSuccess = Date.now()
    finished += 1
  }
  for (let waited = 0; ; waited += 10) {
    const { body } = await api('GET', `/projects/${projectId}/merge_requests/${mr.iid}`)
    if (body.state === 'merged') return Date.parse(body.merged_at as string) - lastSuccess
    if (waited > 30_000) throw new Error(`${branch} not merged 30 s after its pipeline succeeded`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
