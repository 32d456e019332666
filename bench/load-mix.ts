// The load mix (BENCH_PARTS=load-mix, issue 19): the original's 1k-user mix — 20 API, 2 web page,
// 2 git pull and 1 git push requests per second — for BENCH_LOAD_MIX_SECONDS (60 by default) at 1×
// and at 10× (the 10k-user tier's rate), open loop: each request is sent at its time on the clock
// whatever the earlier ones are doing, so a slow server shows as latency, not as a lower rate, and a
// request's latency counts from its scheduled time (time queued behind an earlier one included).
//
// The built `ingot web` (dist/main.js) on SQLite, pinned to CPU 0, jobs worked in the process as in
// production; the load generator and the git clients on CPU 1. Seeded: 1,000 users with a project
// each (bench/seed.ts) and a public project holding S (bench/git-fixtures.ts: 200 commits over 300
// files) pushed over HTTP, 30 issues with comments and 5 merge requests; the caller a Developer of it.
//   - API: a rotation of 18 GETs (project, lists, an issue, notes, merge requests, commits, a file,
//     a tree, branches, users, events…) and 2 writes (a note, an issue) with PRIVATE-TOKEN;
//   - web: the overview, an issue, a file and a merge request's changes, anonymous, gzip accepted;
//   - pull: `git fetch` over smart HTTP into a bare clone that is one commit behind master;
//   - push: `git push` of one new commit (one file changed) to a branch of its own.
// Each kind has its own keep-alive agent (1 connection at 1×, 10 at 10×: connections grow with the
// users). Git clients come from a pool of clones; all come from one address, so the bench raises
// INGOT_GIT_SERVICES_PER_CLIENT to the global cap (32).
//
// The floor, replayed on the same schedule right after: the HTTP kinds against bench/floor-server.ts
// (a separate Fastify process on CPU 0 replaying the bytes Ingot answered for each URL), the git
// kinds against `file://` of a mirror of the project with git-upload-pack/git-receive-pack on CPU 0:
// git's own cost of the same fetch or push, no HTTP.
//
// Rows: per kind the share passing (expected status; git exit 0), p90 and p99 beside the floor's;
// the server's CPU share over the run (utime+stime of the process, and with its reaped children:
// git, hooks); its peak RSS without git children (VmHWM after clear_refs, and VmRSS sampled every
// 100 ms) and its RSS idle before and after; at 10×, where it breaks first.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { openDatabase } from '../src/db/index.js'
import { seedUsersAndProjects } from './seed.js'
import { ensureFixtures } from './git-fixtures.js'
import { startFloorServer } from './api-compare.js'
import type { FloorAnswer } from './floor-server.js'
import { cpuOf, log, percentile, ROOT_TOKEN, rootApi, rssOf, startBuiltServer, stop, timed, type Row } from './harness.js'

const PORT = 18_540
const FLOOR_PORT = 18_541
const BASE = `http://127.0.0.1:${PORT}`
const SECONDS = Number(process.env.BENCH_LOAD_MIX_SECONDS ?? 60)
const SCALES = (process.env.BENCH_LOAD_MIX_SCALES ?? '1,10').split(',').map(Number)
const USERS = 1_000
const ISSUES = 30
const MERGE_REQUESTS = 5
const LATENCY_TARGET_MS = 50
/** How long a run waits for its last answers after the schedule ends. */
const DRAIN_MS = 60_000
const RSS_TARGET_MB = 150
/** Clones made before a run for the pulls: enough for every pull of this many seconds to be open at once. */
const PULL_POOL_SECONDS = 10
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length'])
const GIT_QUIET = ['-c', 'gc.auto=0', '-c', 'maintenance.auto=false', '-c', 'fetch.writeCommitGraph=false']
const IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' }

type KindName = 'api' | 'web' | 'pull' | 'push'
const RATES: Record<KindName, number> = { api: 20, web: 2, pull: 2, push: 1 }
const KINDS = Object.keys(RATES) as KindName[]

interface Sample { kind: KindName; at: number; latency: number; lag: number; ok: boolean }

interface HttpRequest { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string; expect: number }

/** What one run fires: each kind's n-th request against one target (Ingot or the floor). */
interface Target { fire: Record<KindName, (n: number) => Promise<boolean>>; close(): void }

interface Fixture {
  work: string
  projectPath: string
  token: string
  api: HttpRequest[]
  web: HttpRequest[]
  master: string
  parent: string
  /** A bare clone of master alone, copied for each pull slot. */
  pullTemplate: string
  /** The bare repository pushes are made from. */
  pushSource: string
}

/** Why requests failed in the present run, with their counts: the status and request, or git's last line on stderr. */
const failures = new Map<string, number>()
/** Counts up as each run ends: a request of an earlier run that fails late (its git killed) is not counted again. */
let epoch = 0
const failed = (reason: string, of: number) => {
  if (of === epoch) failures.set(reason, (failures.get(reason) ?? 0) + 1)
  return false
}

/** One request on a keep-alive agent; resolves whether it got the expected status (body read to its end). */
function send(port: number, agent: http.Agent, request: HttpRequest): Promise<boolean> {
  const run = epoch
  return new Promise((resolve) => {
    const headers = request.body === undefined ? request.headers
      : { ...request.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(request.body)) }
    const req = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, agent, headers }, (res) => {
      res.on('data', () => {})
      res.on('end', () => resolve(res.statusCode === request.expect || failed(`${res.statusCode} ${request.method} ${request.path}`, run)))
      res.on('error', (err) => resolve(failed(err.message, run)))
    })
    req.on('error', (err) => resolve(failed(err.message, run)))
    req.setTimeout(60_000, () => req.destroy())
    req.end(request.body)
  })
}

/** The raw answer (bytes as sent, compressed or not) to a request, as the floor replays it. */
function capture(request: HttpRequest): Promise<FloorAnswer> {
  return new Promise((resolve, reject) => {
    const headers = request.body === undefined ? request.headers
      : { ...request.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(request.body)) }
    const req = http.request({ host: '127.0.0.1', port: PORT, method: request.method, path: request.path, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        if (res.statusCode !== request.expect) return reject(new Error(`${request.method} ${request.path}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 200)}`))
        const kept: Record<string, string> = {}
        for (const [key, value] of Object.entries(res.headers)) if (!HOP_BY_HOP.has(key) && value !== undefined) kept[key] = String(value)
        resolve({ url: request.path, status: res.statusCode, headers: kept, body: Buffer.concat(chunks).toString('base64'), base64: true })
      })
    })
    req.on('error', reject)
    req.end(request.body)
  })
}

/** The git clients running, killed when a run's requests are left unanswered (see runSchedule). */
const running = new Set<ChildProcess>()

/** Runs git on CPU 1 (this process's CPU); resolves whether it exited 0. */
function git(args: readonly string[], run: number): Promise<boolean> {
  // A push queued behind one of a run that has ended is not started.
  if (run !== epoch) return Promise.resolve(false)
  return new Promise((resolve) => {
    const child = spawn('git', [...GIT_QUIET, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...IDENTITY } })
    running.add(child)
    child.once('exit', () => running.delete(child))
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('error', (err) => resolve(failed(err.message, run)))
    child.on('close', (code) => resolve(code === 0 || failed(`git ${args.includes('push') ? 'push' : 'fetch'}: ${stderr.trim().split('\n').pop() ?? ''}`, run)))
  })
}

async function gitOut(args: readonly string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...GIT_QUIET, ...args], { cwd, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...IDENTITY } })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
    child.on('close', (code) => code === 0 ? resolve(out.trim()) : reject(new Error(`git ${args.join(' ')} exited with ${code}`)))
  })
}

/** The instance the mix runs on: users, the project with its repository, issues, merge requests; the requests of each kind. */
async function seed(work: string, env: Record<string, string>, fixtureS: string): Promise<{ fixture: Fixture; projectId: number }> {
  const dataDir = env.INGOT_DATA_DIR!
  // The first start migrates and seeds root; the users go in once it has stopped.
  await stop(await startBuiltServer(env))
  const handle = await openDatabase({ databaseUrl: '', dataDir })
  const users = await seedUsersAndProjects(handle.db, USERS)
  await handle.close()

  const server = await startBuiltServer(env)
  try {
    const api = (method: string, url: string, body?: unknown) => rootApi(BASE, method, url, body)
    const project = await api('POST', '/projects', { name: 'mix', visibility: 'public' }) as { id: number; path_with_namespace: string }
    await api('POST', `/projects/${project.id}/members`, { user_id: users.reader.id, access_level: 30 })
    const authenticated = `${BASE}/${project.path_with_namespace}.git`.replace('http://', `http://root:${ROOT_TOKEN}@`)
    await timed('git', ['--git-dir', fixtureS, 'push', '--quiet', authenticated, 'refs/heads/master:refs/heads/master'])
    const projectUrl = `${BASE}/${project.path_with_namespace}.git`
    const pullTemplate = path.join(work, 'pull-template.git')
    await timed('git', ['clone', '--bare', '--quiet', '--single-branch', '--branch', 'master', projectUrl, pullTemplate])
    const pushSource = path.join(work, 'push-source.git')
    fs.cpSync(pullTemplate, pushSource, { recursive: true })
    const master = await gitOut(['--git-dir', pullTemplate, 'rev-parse', 'refs/heads/master'])
    const parent = await gitOut(['--git-dir', pullTemplate, 'rev-parse', 'refs/heads/master~1'])

    const asReader = async (method: string, url: string, body: unknown) => {
      const res = await fetch(`${BASE}/api/v4${url}`, { method, headers: { 'private-token': users.reader.token, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
      return res.json() as Promise<{ iid: number }>
    }
    for (let i = 0; i < ISSUES; i++) {
      const issue = await asReader('POST', `/projects/${project.id}/issues`, { title: `Issue ${i}: the parser drops a field`, description: `Steps:\n\n1. run \`parse ${i}\`\n2. see **nothing**\n\nSee src/file-${String(i).padStart(5, '0')}.txt.` })
      for (let c = 0; c < 3; c++) await asReader('POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: `Comment ${c} on #${issue.iid}: reproduced, see \`file-${c}\`.` })
    }
    for (let i = 0; i < MERGE_REQUESTS; i++) {
      const file = `src/file-${String(i + 10).padStart(5, '0')}.txt`
      await asReader('POST', `/projects/${project.id}/repository/commits`, {
        branch: `feature-${i}`, start_branch: 'master', commit_message: `Change ${file}`,
        actions: [{ action: 'update', file_path: file, content: Array.from({ length: 40 }, (_, l) => `line ${l} changed by feature ${i}`).join('\n') + '\n' }],
      })
      await asReader('POST', `/projects/${project.id}/merge_requests`, { title: `Feature ${i}`, source_branch: `feature-${i}`, target_branch: 'master', description: `Changes ${file}.` })
    }

    const p = `/api/v4/projects/${project.id}`
    const token = users.reader.token
    const get = (url: string): HttpRequest => ({ method: 'GET', path: url, headers: { 'private-token': token }, expect: 200 })
    const apiRequests: HttpRequest[] = [
      get(p), get('/api/v4/projects?per_page=20'), get(`${p}/issues?per_page=20`), get(`${p}/issues/3`),
      get(`${p}/issues/3/notes`), get(`${p}/merge_requests?per_page=20`), get(`${p}/merge_requests/1`),
      get(`${p}/repository/commits?per_page=20`), get(`${p}/repository/files/src%2Ffile-00001.txt?ref=master`),
      { method: 'POST', path: `${p}/issues/1/notes`, headers: { 'private-token': token }, body: JSON.stringify({ body: 'Seen again under load.' }), expect: 201 },
      get(`${p}/repository/tree?path=src&per_page=20`), get(`${p}/repository/branches?per_page=20`), get('/api/v4/users?per_page=20'),
      get('/api/v4/user'), get(`/api/v4/projects/${users.projectId}`), get(`${p}/events?per_page=20`), get(`${p}/issues/7`),
      get(`${p}/merge_requests/2/changes`), get(`${p}/labels`),
      { method: 'POST', path: `${p}/issues`, headers: { 'private-token': token }, body: JSON.stringify({ title: 'Found under load', description: 'A new issue from the load mix.' }), expect: 201 },
    ]
    const page = (url: string): HttpRequest => ({ method: 'GET', path: url, headers: { 'accept-encoding': 'gzip' }, expect: 200 })
    const w = `/${project.path_with_namespace}`
    const webRequests = [page(w), page(`${w}/issues/2`), page(`${w}/blob/master/src/file-00002.txt`), page(`${w}/merge_requests/3/diffs`)]
    return {
      projectId: project.id,
      fixture: { work, projectPath: project.path_with_namespace, token, api: apiRequests, web: webRequests, master, parent, pullTemplate, pushSource },
    }
  } finally {
    await stop(server)
  }
}

/**
 * The commits pushes send at one scale: for each of `slots` branches `load-<label>-<scale>x-<slot>`, a chain of
 * `length` commits from master each changing one file, written by one `git fast-import`.
 */
async function pushChains(fixture: Fixture, label: string, scale: number, slots: number, length: number): Promise<string[][]> {
  const marks = path.join(fixture.work, `marks-${label}-${scale}x`)
  let stream = ''
  let mark = 0
  const at = Math.floor(Date.now() / 1000)
  for (let slot = 0; slot < slots; slot++) {
    for (let i = 0; i < length; i++) {
      const message = `Load ${scale}x slot ${slot} push ${i}\n`
      const content = `pushed by slot ${slot}, push ${i}\n`
      stream += `commit refs/heads/load-${label}-${scale}x-${slot}\nmark :${++mark}\ncommitter Bench <bench@example.com> ${at + i} +0000\n`
      stream += `data ${Buffer.byteLength(message)}\n${message}${i === 0 ? `from ${fixture.master}\n` : ''}`
      stream += `M 100644 inline src/load-${slot}.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`
    }
  }
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['--git-dir', fixture.pushSource, 'fast-import', '--quiet', `--export-marks=${marks}`], { stdio: ['pipe', 'ignore', 'inherit'] })
    child.on('close', (code) => code === 0 ? resolve() : reject(new Error(`fast-import exited with ${code}`)))
    child.stdin.end(stream)
  })
  const byMark = new Map(fs.readFileSync(marks, 'utf8').trim().split('\n').map((line) => line.slice(1).split(' ') as [string, string]).map(([m, sha]) => [Number(m), sha]))
  return Array.from({ length: slots }, (_, slot) => Array.from({ length }, (_, i) => byMark.get(slot * length + i + 1)!))
}

/** The git side of a target: pulls into bare clones one commit behind, pushes of prepared chains. */
async function gitFirers(fixture: Fixture, scale: number, label: string, url: string, extra: { pull: string[]; push: string[] }):
  Promise<{ pull: (n: number) => Promise<boolean>; push: (n: number) => Promise<boolean> }> {
  const pool: string[] = []
  let made = 0
  // Copied asynchronously: a synchronous copy made while the schedule runs (once an overloaded
  // server keeps more pulls open than the pool holds) would stall the generator's event loop and
  // delay every kind's requests, counting the client's lag as the server's.
  const makeSlot = async () => {
    const dir = path.join(fixture.work, `pull-${label}-${scale}x-${made++}`)
    await fs.promises.cp(fixture.pullTemplate, dir, { recursive: true })
    return dir
  }
  for (let i = 0; i < PULL_POOL_SECONDS * RATES.pull * scale; i++) pool.push(await makeSlot())
  const slots = 2 * RATES.push * scale
  const length = Math.ceil((SECONDS * RATES.push * scale) / slots) + 1
  const chains = await pushChains(fixture, label, scale, slots, length)
  const slotTail = chains.map(() => Promise.resolve(true))
  return {
    async pull() {
      const dir = pool.pop() ?? await makeSlot()
      // One commit behind: the ref is set back to master's parent, whose objects the clone has.
      fs.writeFileSync(path.join(dir, 'refs', 'heads', 'master'), `${fixture.parent}\n`)
      const ok = await git(['--git-dir', dir, 'fetch', '--quiet', '--no-tags', ...extra.pull, url, '+refs/heads/master:refs/heads/master'], epoch)
      pool.push(dir)
      return ok
    },
    push(n) {
      const of = epoch
      const slot = n % slots
      const commit = chains[slot]![Math.floor(n / slots)]!
      const run = slotTail[slot]!.then(() => git(['--git-dir', fixture.pushSource, 'push', '--quiet', ...extra.push, url, `${commit}:refs/heads/load-${scale}x-${slot}`], of))
      slotTail[slot] = run
      return run
    },
  }
}

/** Requests at `port` and git at `gitUrl`, each kind on a keep-alive agent of its own (`scale` connections). */
async function makeTarget(fixture: Fixture, scale: number, label: string, port: number, gitUrl: string, extra: { pull: string[]; push: string[] }): Promise<Target> {
  const agents = Object.fromEntries(KINDS.map((kind) => [kind, new http.Agent({ keepAlive: true, maxSockets: scale })])) as Record<KindName, http.Agent>
  const gitKinds = await gitFirers(fixture, scale, label, gitUrl, extra)
  return {
    fire: {
      api: (n) => send(port, agents.api, fixture.api[n % fixture.api.length]!),
      web: (n) => send(port, agents.web, fixture.web[n % fixture.web.length]!),
      ...gitKinds,
    },
    close: () => { for (const agent of Object.values(agents)) agent.destroy() },
  }
}

const ingotTarget = (fixture: Fixture, scale: number) => makeTarget(fixture, scale, 'ingot', PORT,
  `${BASE}/${fixture.projectPath}.git`.replace('http://', `http://bench:${fixture.token}@`), { pull: [], push: [] })

/** The floor: the replaying server for HTTP, git's own upload-pack and receive-pack on CPU 0 over file:// for git. */
const floorTarget = (fixture: Fixture, scale: number, mirror: string) => makeTarget(fixture, scale, 'floor', FLOOR_PORT, `file://${mirror}`, {
  pull: ['--upload-pack', 'taskset -c 0 git-upload-pack'], push: ['--receive-pack', 'taskset -c 0 git-receive-pack'],
})

/**
 * Fires every kind at its rate × scale for SECONDS, open loop; every request's sample once all have
 * ended, or DRAIN_MS after the last was sent: those still unanswered then count as failed (their git
 * clients killed), so an overloaded run ends.
 */
async function runSchedule(target: Target, scale: number): Promise<Sample[]> {
  const samples: Sample[] = []
  const pending: Promise<void>[] = []
  const unanswered = new Map<number, Omit<Sample, 'latency' | 'ok'>>()
  let id = 0
  const start = performance.now() + 50
  await Promise.all(KINDS.map(async (kind, k) => {
    const interval = 1000 / (RATES[kind] * scale)
    const count = Math.floor(SECONDS * RATES[kind] * scale)
    const offset = (interval * k) / KINDS.length
    for (let n = 0; n < count; n++) {
      const at = start + offset + n * interval
      const wait = at - performance.now()
      if (wait >= 1) await sleep(wait)
      const lag = performance.now() - at
      const mine = id++
      unanswered.set(mine, { kind, at: at - start, lag })
      pending.push(target.fire[kind](n).then((ok) => {
        if (unanswered.delete(mine)) samples.push({ kind, at: at - start, latency: performance.now() - at, lag, ok })
      }))
    }
  }))
  await Promise.race([Promise.all(pending), sleep(DRAIN_MS)])
  for (const sample of unanswered.values()) {
    failed(`unanswered ${DRAIN_MS / 1000} s after the schedule's end`, epoch)
    samples.push({ ...sample, latency: Infinity, ok: false })
  }
  unanswered.clear()
  epoch++
  for (const child of running) child.kill('SIGKILL')
  return samples
}

function peakRssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

interface RunResult { samples: Sample[]; failures: Map<string, number>; cpuSelf: number; cpuWithChildren: number; idleBefore: number; peak: number; idleAfter: number }

/** One run against Ingot: the schedule, and meanwhile the server's CPU and memory. */
async function runIngot(fixture: Fixture, scale: number, pid: number): Promise<RunResult> {
  const target = await ingotTarget(fixture, scale)
  await sleep(3000)
  const idleBefore = rssOf(pid)
  // Resets VmHWM to the present RSS, so the peak is this run's.
  let hwmReset = true
  try { fs.writeFileSync(`/proc/${pid}/clear_refs`, '5') } catch { hwmReset = false }
  let sampled = idleBefore
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      sampled = Math.max(sampled, rssOf(pid))
      await sleep(100)
    }
  })()
  const before = cpuOf(pid)
  const started = performance.now()
  let samples: Sample[]
  failures.clear()
  try {
    samples = await runSchedule(target, scale)
  } finally {
    sampling = false
    await sampler
    target.close()
  }
  const seconds = (performance.now() - started) / 1000
  const after = cpuOf(pid)
  const peak = Math.max(sampled, hwmReset ? peakRssOf(pid) : 0)
  await sleep(10_000)
  return {
    samples, failures: new Map(failures), cpuSelf: (after.self - before.self) / seconds,
    cpuWithChildren: (after.self + after.children - before.self - before.children) / seconds,
    idleBefore, peak, idleAfter: rssOf(pid),
  }
}

function summary(samples: readonly Sample[], kind: KindName) {
  const mine = samples.filter((sample) => sample.kind === kind)
  const latencies = mine.map((sample) => sample.latency)
  return { count: mine.length, passing: mine.filter((sample) => sample.ok).length, p90: percentile(latencies, 90), p99: percentile(latencies, 99) }
}

/** Where the 10× run breaks first: the first 5-second window in which a kind fails a request, or an API or page p90 passes 50 ms. */
function breakingPoint(samples: readonly Sample[]): string {
  const WINDOW = 5000
  const windows = Math.ceil((SECONDS * 1000) / WINDOW)
  for (let w = 0; w < windows; w++) {
    const broken: string[] = []
    for (const kind of KINDS) {
      const inWindow = samples.filter((sample) => sample.kind === kind && sample.at >= w * WINDOW && sample.at < (w + 1) * WINDOW)
      if (inWindow.length === 0) continue
      const failed = inWindow.filter((sample) => !sample.ok).length
      const p90 = percentile(inWindow.map((sample) => sample.latency), 90)
      if (failed > 0) broken.push(`${kind}: ${failed} of ${inWindow.length} failed`)
      if ((kind === 'api' || kind === 'web') && p90 > LATENCY_TARGET_MS) broken.push(`${kind}: p90 ${p90.toFixed(0)} ms`)
    }
    if (broken.length > 0) return `from ${w * WINDOW / 1000} s: ${broken.join('; ')}`
  }
  return 'nowhere: every kind passed, API and page p90 within 50 ms in every 5 s window'
}

/** A latency for a row: unanswered ones are infinite. */
const ms = (value: number) => Number.isFinite(value) ? value.toFixed(1) : '∞'

function rowsOf(scale: number, ingot: RunResult, floor: Sample[], floorFailures: Map<string, number>): Row[] {
  const rows: Row[] = []
  const label = `load mix ${scale}× (${KINDS.map((kind) => `${RATES[kind] * scale} ${kind}`).join(', ')} per s, ${SECONDS} s)`
  const loadAverage = os.loadavg().map((value) => value.toFixed(1)).join(' ')
  for (const kind of KINDS) {
    const mine = summary(ingot.samples, kind)
    const theirs = summary(floor, kind)
    const share = mine.passing / mine.count
    const timed = kind === 'api' || kind === 'web'
    const target = timed ? `all pass, p90 ≤ ${LATENCY_TARGET_MS} ms` : 'all pass'
    const met = share === 1 && (!timed || mine.p90 <= LATENCY_TARGET_MS)
    rows.push({
      metric: `${label}: ${kind} — passing, p90 / p99 (floor: ${kind === 'pull' || kind === 'push' ? 'git over file://' : 'floor-server replay'})`,
      value: `${mine.passing}/${mine.count}, ${ms(mine.p90)} / ${ms(mine.p99)} ms (floor ${theirs.passing}/${theirs.count}, ${ms(theirs.p90)} / ${ms(theirs.p99)} ms)`,
      target: scale === 1 ? target : '', ok: scale === 1 ? met : null,
    })
  }
  const lag = percentile(ingot.samples.map((sample) => sample.lag), 99)
  rows.push({
    metric: `${label}: the server's CPU share (its process; with its git children) — load average ${loadAverage}, generator lag p99 ${lag.toFixed(1)} ms`,
    value: `${(ingot.cpuSelf * 100).toFixed(1)} %; ${(ingot.cpuWithChildren * 100).toFixed(1)} % of a core`,
    target: scale === 1 ? '≤ 100 % (one core)' : '', ok: scale === 1 ? ingot.cpuWithChildren <= 1 : null,
  })
  rows.push({
    metric: `${label}: peak RSS of the server process, without git children (idle before → peak → idle 10 s after)`,
    value: `${ingot.idleBefore.toFixed(0)} → ${ingot.peak.toFixed(0)} → ${ingot.idleAfter.toFixed(0)} MB`,
    target: `≤ ${RSS_TARGET_MB} MB`, ok: ingot.peak <= RSS_TARGET_MB,
  })
  for (const [who, reasons] of [['Ingot', ingot.failures], ['the floor', floorFailures]] as const) {
    if (reasons.size === 0) continue
    const top = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([reason, count]) => `${count} × ${reason}`).join('; ')
    rows.push({ metric: `${label}: failures of ${who}, the most frequent`, value: top, target: '', ok: null })
  }
  if (scale > 1) rows.push({ metric: `${label}: where it breaks first`, value: breakingPoint(ingot.samples), target: '', ok: null })
  return rows
}

export async function measureLoadMix(): Promise<Row[]> {
  const rows: Row[] = []
  const fixtures = await ensureFixtures()
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ingot-bench-mix-'))
  const env = {
    INGOT_DATA_DIR: path.join(work, 'data'), INGOT_DATABASE_URL: '', INGOT_ROOT_TOKEN: ROOT_TOKEN, INGOT_LOG_LEVEL: 'warn',
    INGOT_PORT: String(PORT), INGOT_EXTERNAL_URL: BASE, INGOT_GIT_SERVICES_PER_CLIENT: '32',
    // BENCH_LOAD_MIX_NODE_OPTIONS: Node options for the server alone (e.g. --heapsnapshot-signal=SIGUSR2).
    ...(process.env.BENCH_LOAD_MIX_NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: process.env.BENCH_LOAD_MIX_NODE_OPTIONS }),
  }
  try {
    log(`[load-mix] seeding ${USERS} users and projects, a project holding S with ${ISSUES} issues and ${MERGE_REQUESTS} merge requests`)
    const { fixture } = await seed(work, env, fixtures.S)
    const mirror = path.join(work, 'floor-mirror.git')
    fs.cpSync(fixture.pullTemplate, mirror, { recursive: true })
    const server = await startBuiltServer(env)
    const pid = server.pid ?? 0
    let answers: FloorAnswer[]
    try {
      answers = []
      for (const request of [...fixture.api, ...fixture.web]) answers.push(await capture(request))
      // Warm-up: each request once more, one pull and one push of a branch of its own.
      for (const request of [...fixture.api, ...fixture.web]) await send(PORT, http.globalAgent, request)
    } catch (err) {
      await stop(server)
      throw err
    }
    const answersFile = path.join(work, 'floor-answers.json')
    fs.writeFileSync(answersFile, JSON.stringify(answers))
    try {
      for (const scale of SCALES) {
        log(`[load-mix] ${scale}×: Ingot for ${SECONDS} s`)
        const ingot = await runIngot(fixture, scale, pid)
        log(`[load-mix] ${scale}×: the floor for ${SECONDS} s`)
        const floorServer = await startFloorServer(answersFile, FLOOR_PORT)
        let floor: Sample[]
        failures.clear()
        try {
          const target = await floorTarget(fixture, scale, mirror)
          try {
            floor = await runSchedule(target, scale)
          } finally {
            target.close()
          }
        } finally {
          await stop(floorServer)
        }
        rows.push(...rowsOf(scale, ingot, floor, new Map(failures)))
      }
    } finally {
      await stop(server)
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  return rows
}
