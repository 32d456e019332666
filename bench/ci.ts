// Push → CI: the real built server (`ingot web` from dist/, CPU 0) with its built-in runner (the
// child `ingot runner`, jobs in the bubblewrap sandbox), and one-commit pushes over HTTP of a
// project whose CI file has one job, `echo hi`, in turn. Each push is timed from the moment `git
// push` returns (the push is recorded) to the moment the runner took the job (the job's
// `started_at`: pipeline made by its background job, handed out on the held job request) and to
// the moment the pipeline succeeded (its `finished_at`: clone, sandbox, script, trace, final
// update), both as the server's clock has them.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { benchDatabase, log, percentile, ROOT_TOKEN, type Row, startBuiltServer, stop } from './harness.js'

const PUSHES = Number(process.env.BENCH_CI_PUSHES ?? 20)
const WARM_UP = 3
const PICKED_P50_TARGET_MS = 200
const SUCCESS_TARGET_MS = 1500
const IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' }

function git(args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { ...process.env, ...IDENTITY }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code) => code === 0 ? resolve() : reject(new Error(`git ${args.join(' ')} exited with ${code}: ${stderr.trim()}`)))
  })
}

export async function measureCi(dialects: readonly ('sqlite' | 'postgres')[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const dialect of dialects) rows.push(...await measureDialect(dialect))
  return rows
}

async function measureDialect(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `ingot-bench-ci-${dialect}-`))
  const database = await benchDatabase(dialect, 'ci_')
  const port = 18_540 + (dialect === 'sqlite' ? 0 : 1)
  const base = `http://127.0.0.1:${port}`
  let server: ChildProcess | null = null
  try {
    fs.mkdirSync(path.join(work, 'data'))
    server = await startBuiltServer({
      INGOT_DATA_DIR: path.join(work, 'data'), INGOT_DATABASE_URL: database.url, INGOT_ROOT_TOKEN: ROOT_TOKEN,
      INGOT_LOG_LEVEL: 'warn', INGOT_PORT: String(port), INGOT_EXTERNAL_URL: base, INGOT_BUILTIN_RUNNER: 'true',
    })
    const api = async (method: string, url: string, body?: unknown): Promise<any> => {
      const res = await fetch(`${base}/api/v4${url}`, {
        method, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
      return res.json()
    }
    const project = await api('POST', '/projects', { name: 'bench-ci', initialize_with_readme: true }) as { id: number; path_with_namespace: string }
    const clone = path.join(work, 'clone')
    await git(['clone', '--quiet', `http://root:${ROOT_TOKEN}@127.0.0.1:${port}/${project.path_with_namespace}.git`, clone], work)
    fs.writeFileSync(path.join(clone, '.gitlab-ci.yml'), 'hello:\n  script: [ "echo hi" ]\n')
    await git(['add', '.gitlab-ci.yml'], clone)

    log(`[ci ${dialect}] ${PUSHES} pushes of one commit, each running a one-line job on the built-in runner`)
    const created: number[] = []
    const picked: number[] = []
    const succeeded: number[] = []
    for (let i = 0; i < PUSHES; i++) {
      fs.writeFileSync(path.join(clone, 'pushed.txt'), `push ${i}\n`)
      await git(['add', 'pushed.txt'], clone)
      await git(['commit', '--quiet', '-m', `Push ${i}`], clone)
      const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: clone, encoding: 'utf8' }).trim()
      await git(['push', '--quiet', 'origin', 'HEAD'], clone)
      const returned = Date.now()
      let pipeline: { id: number; status: string } | undefined
      const deadline = Date.now() + 60_000
      while (pipeline?.status !== 'success') {
        if (Date.now() > deadline) throw new Error(`the pipeline of ${head} did not succeed within 60 s (${pipeline?.status})`)
        if (pipeline !== undefined && ['failed', 'canceled'].includes(pipeline.status)) throw new Error(`the pipeline of ${head} ${pipeline.status}`)
        await sleep(20)
        pipeline = (await api('GET', `/projects/${project.id}/pipelines?sha=${head}`))[0]
      }
      const [job] = await api('GET', `/projects/${project.id}/pipelines/${pipeline.id}/jobs`) as { started_at: string }[]
      const { created_at: createdAt, finished_at: finishedAt } = await api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`) as { created_at: string; finished_at: string }
      if (i < WARM_UP) continue
      created.push(Date.parse(createdAt) - returned)
      picked.push(Date.parse(job!.started_at) - returned)
      succeeded.push(Date.parse(finishedAt) - returned)
    }
    const ms = (value: number) => `${Math.round(value)} ms`
    const runs = PUSHES - WARM_UP
    return [
      {
        metric: `${dialect}: push → pipeline created (for comparison)`,
        value: `p50 ${ms(percentile(created, 50))}, p99 ${ms(percentile(created, 99))}`, target: '', ok: null,
      },
      {
        metric: `${dialect}: push → first job taken by the built-in runner, from \`git push\` returned (${runs} pushes after ${WARM_UP} warm-up)`,
        value: `p50 ${ms(percentile(picked, 50))}, p99 ${ms(percentile(picked, 99))}`,
        target: `p50 ≤ ${PICKED_P50_TARGET_MS} ms`, ok: percentile(picked, 50) <= PICKED_P50_TARGET_MS,
      },
      {
        metric: `${dialect}: push → \`echo hi\` pipeline success (clone, sandbox, trace, final update)`,
        value: `p50 ${ms(percentile(succeeded, 50))}, p99 ${ms(percentile(succeeded, 99))}`,
        target: `≤ ${SUCCESS_TARGET_MS} ms`, ok: percentile(succeeded, 50) <= SUCCESS_TARGET_MS,
      },
    ]
  } finally {
    if (server !== null) await stop(server)
    fs.rmSync(work, { recursive: true, force: true })
    await database.drop()
  }
}
