// Push → webhook latency: the real built server (`ingot web` from dist/, jobs worked in the web
// process as by default) on CPU 0, a project with a push-events hook pointing at a receiver in this
// process (CPU 1, with the `git push` clients), and one-commit pushes over HTTP in turn. Each push is
// timed from the moment `git push` is spawned (what the user waits through, then the receiver sees
// the event) and from the moment it returns (the part the job system adds after the push is
// recorded; negative when the delivery arrived before git had finished its exit) to the moment the
// receiver has read the whole request carrying the push's new commit as `after`.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { benchDatabase, log, percentile, ROOT_TOKEN, type Row, startBuiltServer, stop } from './harness.js'

const PUSHES = Number(process.env.BENCH_HOOK_PUSHES ?? 50)
const WARM_UP = 5
const P50_TARGET_MS = 50
const P99_TARGET_MS = 250
const IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' }

/** Runs git to its end; rejects on a non-zero exit. */
function git(args: readonly string[], cwd: string, onSpawn?: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: { ...process.env, ...IDENTITY }, stdio: ['ignore', 'ignore', 'pipe'] })
    onSpawn?.()
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code) => code === 0 ? resolve() : reject(new Error(`git ${args.join(' ')} exited with ${code}: ${stderr.trim()}`)))
  })
}

/** A local HTTP receiver: when the whole body of a push hook whose `after` is the id came in. */
async function startReceiver(): Promise<{ url: string; deliveredAt(after: string): Promise<number>; close(): Promise<void> }> {
  const arrived = new Map<string, number>()
  const waiting = new Map<string, (at: number) => void>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const at = performance.now()
      res.end('ok')
      if (req.headers['x-service-event'] !== 'Push Hook') return
      const { after } = JSON.parse(Buffer.concat(chunks).toString()) as { after: string }
      const waiter = waiting.get(after)
      if (waiter === undefined) arrived.set(after, at)
      else waiter(at)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveredAt(after) {
      const at = arrived.get(after)
      if (at !== undefined) return Promise.resolve(at)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no web hook for ${after} within 30 s`)), 30_000)
        waiting.set(after, (time) => { clearTimeout(timer); resolve(time) })
      })
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

export async function measureHooks(dialects: readonly ('sqlite' | 'postgres')[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const dialect of dialects) rows.push(...await measureDialect(dialect))
  return rows
}

async function measureDialect(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `ingot-bench-hooks-${dialect}-`))
  const database = await benchDatabase(dialect, 'hooks_')
  const databaseUrl = database.url
  const port = 18_530 + (dialect === 'sqlite' ? 0 : 1)
  const base = `http://127.0.0.1:${port}`
  const receiver = await startReceiver()
  let server: ChildProcess | null = null
  try {
    fs.mkdirSync(path.join(work, 'data'))
    server = await startBuiltServer({
      INGOT_DATA_DIR: path.join(work, 'data'), INGOT_DATABASE_URL: databaseUrl, INGOT_ROOT_TOKEN: ROOT_TOKEN,
      INGOT_LOG_LEVEL: 'warn', INGOT_PORT: String(port), INGOT_EXTERNAL_URL: base,
    })
    const api = async (method: string, url: string, body: unknown): Promise<any> => {
      const res = await fetch(`${base}/api/v4${url}`, {
        method, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, body: JSON.stringify(body),
      })
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
      return res.json()
    }
    // The receiver listens on loopback, which project hooks may reach only when the administrator allows it.
    await api('PUT', '/application/settings', { allow_local_requests_from_hooks_and_services: true })
    const project = await api('POST', '/projects', { name: 'bench-hooks', initialize_with_readme: true }) as { id: number; path_with_namespace: string }
    await api('POST', `/projects/${project.id}/hooks`, { url: receiver.url, push_events: true })
    const clone = path.join(work, 'clone')
    await git(['clone', '--quiet', `http://root:${ROOT_TOKEN}@127.0.0.1:${port}/${project.path_with_namespace}.git`, clone], work)

    log(`[hooks ${dialect}] ${PUSHES} pushes of one commit, each to its web hook at a local receiver`)
    const fromStart: number[] = []
    const fromReturn: number[] = []
    for (let i = 0; i < PUSHES; i++) {
      fs.writeFileSync(path.join(clone, 'pushed.txt'), `push ${i}\n`)
      await git(['add', 'pushed.txt'], clone)
      await git(['commit', '--quiet', '-m', `Push ${i}`], clone)
      const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: clone, encoding: 'utf8' }).trim()
      let started = 0
      await git(['push', '--quiet', 'origin', 'HEAD'], clone, () => { started = performance.now() })
      const returned = performance.now()
      const delivered = await receiver.deliveredAt(head)
      if (i < WARM_UP) continue
      fromStart.push(delivered - started)
      fromReturn.push(delivered - returned)
    }
    const ms = (value: number) => `${Math.round(value)} ms`
    const runs = PUSHES - WARM_UP
    const target = `p50 ≤ ${P50_TARGET_MS} ms, p99 ≤ ${P99_TARGET_MS} ms`
    // Both clocks against the target: from the spawn the push itself (about 50 ms of git over
    // HTTP at best) is inside it; from the return only what follows the recorded push is.
    const row = (metric: string, times: readonly number[]): Row => {
      const [p50, p99] = [percentile(times, 50), percentile(times, 99)]
      return { metric, value: `p50 ${ms(p50)}, p99 ${ms(p99)}`, target, ok: p50 <= P50_TARGET_MS && p99 <= P99_TARGET_MS }
    }
    return [
      row(`${dialect}: push → project web hook received, from \`git push\` spawned (${runs} pushes after ${WARM_UP} warm-up)`, fromStart),
      row(`${dialect}: the same, from \`git push\` returned`, fromReturn),
    ]
  } finally {
    // Also when the server failed to start: no database or directory is left behind.
    if (server !== null) await stop(server)
    await receiver.close()
    fs.rmSync(work, { recursive: true, force: true })
    await database.drop()
  }
}
