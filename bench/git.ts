// The repository engine's benchmarks, against the fixtures of bench/git-fixtures.ts brought into
// projects of a running Ingot (SQLite) as users bring them: S and M by `git push` and the
// housekeeping that follows (so clones use the bitmap Ingot wrote, not the fixture's), D copied.
// Clones beside `git clone --no-local` of the bitmapped fixture and beside nginx + fcgiwrap + git
// http-backend serving it and beside a server replaying Ingot's answers (the client's own floor,
// bench/git-replay-server.ts), eight concurrent clones (time, and the memory of the server's whole
// process tree, git included), pushes beside `git push file://`, push-to-event, project creation
// beside `git init --bare`, raw files, trees, commit pages and archives beside the git commands alone. Everything Ingot runs (and the
// baselines' server side) is pinned to CPU 0; clients run on CPU 1. Contenders alternate.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { runGit } from '../src/git/command.js'
import { RepositoryStorage } from '../src/git/storage.js'
import { openDatabase, type DatabaseHandle } from '../src/db/index.js'
import { ensureFixtures } from './git-fixtures.js'
import { load, log, median, percentile, repoRoot, ROOT_TOKEN, rootApi, rssOf, startBuiltServer, stop, timed, type Row } from './harness.js'

/** BENCH_GIT_PORT moves the server (and nginx, 10 above it, the replay server 20 above), so that two checkouts can measure at once. */
const PORT = Number(process.env.BENCH_GIT_PORT ?? 18_510)
const NGINX_PORT = PORT + 10
const REPLAY_PORT = PORT + 20
const BASE = `http://127.0.0.1:${PORT}`
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const PINNED = ['taskset', '-c', '0']
const RAW_FILE = 'src/file-00001.txt'
const CLONE_RUNS = 5
const SMALL_CLONE_RUNS = 15
/** Project creations timed (after 5 unmeasured), each beside a `git init --bare`. */
const CREATION_RUNS = 50
/** Rounds of eight concurrent clones of M per contender (each some 100 s of the client's CPU). */
const CONCURRENT_RUNS = Number(process.env.BENCH_CONCURRENT_RUNS ?? 2)
const CONCURRENT_CLONES = 8
/**
 * BENCH_GIT_ONLY=small runs the rows of git's fixed costs alone (the clone of S, pushes, project
 * creation): minutes instead of the better part of an hour, without M and D.
 */
const SMALL_ONLY = process.env.BENCH_GIT_ONLY === 'small'

async function medianOf(runs: number, run: (i: number) => Promise<number>): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) times.push(await run(i))
  return median(times)
}

const ms = (value: number) => `${value.toFixed(1)} ms`
/** A difference with its sign: `+3.2 ms`, `−1.5 ms`. */
const signedMs = (value: number) => `${value < 0 ? '−' : '+'}${ms(Math.abs(value))}`
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`

const api = (method: string, url: string, body?: unknown) => rootApi(BASE, method, url, body)

/**
 * A public project of root's that the fixture's master was pushed to over HTTP, then housekept:
 * `POST /projects/:id/housekeeping`, answered 409 when the push started housekeeping itself, and
 * the wait until it and the jobs after it (statistics, commit-graph) are done. The times of both.
 */
export async function installByPush(db: DatabaseHandle, dataDir: string, name: string, fixture: string): Promise<{ id: number; pushMs: number; housekeepingMs: number }> {
  const project = await api('POST', '/projects', { name, visibility: 'public' }) as { id: number }
  const url = `${BASE}/root/${name}.git`.replace('http://', `http://root:${ROOT_TOKEN}@`)
  const pushMs = await timed('git', ['--git-dir', fixture, 'push', '--quiet', url, 'refs/heads/master:refs/heads/master'])
  const started = performance.now()
  const res = await fetch(`${BASE}/api/v4/projects/${project.id}/housekeeping`, { method: 'POST', headers: { 'private-token': ROOT_TOKEN } })
  if (res.status !== 201 && res.status !== 409) throw new Error(`housekeeping of ${name}: ${res.status} ${await res.text()}`)
  await jobsDone(db, project.id)
  const housekeepingMs = performance.now() - started
  const packDir = path.join(dataDir, 'repositories', `${RepositoryStorage.diskPath(project.id)}.git`, 'objects', 'pack')
  if (!fs.readdirSync(packDir).some((file) => file.endsWith('.bitmap'))) throw new Error(`${name}: housekeeping left no bitmap`)
  return { id: project.id, pushMs, housekeepingMs }
}

/** Waits until the project's housekeeping lease has ended and no job is due or running. */
async function jobsDone(handle: DatabaseHandle, projectId: number): Promise<void> {
  const deadline = Date.now() + 30 * 60_000
  for (;;) {
    const project = await handle.db.selectFrom('projects').select('housekeeping_lease_until').where('id', '=', projectId).executeTakeFirstOrThrow()
    const busy = await handle.db.selectFrom('jobs').select('id')
      .where((eb) => eb.or([eb('state', '=', 'running'), eb.and([eb('state', '=', 'waiting'), eb('run_at', '<=', Date.now())])])).execute()
    if (project.housekeeping_lease_until === null && busy.length === 0) return
    if (Date.now() > deadline) throw new Error('housekeeping did not end within 30 minutes')
    await sleep(100)
  }
}

/** A public project of root's whose repository holds the fixture's objects and refs, copied. */
async function installFixture(dataDir: string, name: string, fixture: string): Promise<number> {
  const project = await api('POST', '/projects', { name, visibility: 'public', default_branch: 'master' }) as { id: number }
  const repository = path.join(dataDir, 'repositories', `${RepositoryStorage.diskPath(project.id)}.git`)
  fs.cpSync(path.join(fixture, 'objects'), path.join(repository, 'objects'), { recursive: true })
  const tip = (await runGit(['rev-parse', 'refs/heads/master'], { gitDir: fixture })).trim()
  await runGit(['update-ref', 'refs/heads/master', tip], { gitDir: repository })
  return project.id
}

/** nginx + fcgiwrap + git http-backend serving the repositories in `projectRoot`, pinned to CPU 0; null when not installed. */
async function startCgiStack(projectRoot: string): Promise<{ stop(): Promise<void> } | null> {
  const programs = ['/usr/sbin/nginx', '/usr/sbin/fcgiwrap', '/usr/lib/git-core/git-http-backend']
  if (!programs.every((program) => fs.existsSync(program))) return null
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingot-bench-cgi-'))
  const socket = path.join(dir, 'fcgiwrap.sock')
  const config = `
user root;
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  fastcgi_temp_path ${dir}/fastcgi;
  proxy_temp_path ${dir}/proxy;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${NGINX_PORT};
    client_max_body_size 0;
    location / {
      include /etc/nginx/fastcgi_params;
      fastcgi_pass unix:${socket};
      fastcgi_buffering off;
      fastcgi_request_buffering off;
      fastcgi_param SCRIPT_FILENAME /usr/lib/git-core/git-http-backend;
      fastcgi_param GIT_HTTP_EXPORT_ALL "";
      fastcgi_param GIT_PROJECT_ROOT ${projectRoot};
      fastcgi_param PATH_INFO $uri;
    }
  }
}
`
  fs.writeFileSync(path.join(dir, 'nginx.conf'), config)
  // Each in a process group of its own: fcgiwrap's -c workers are its children and outlive it,
  // so stopping the stack stops the whole group.
  const children: ChildProcess[] = [
    spawn(PINNED[0]!, [...PINNED.slice(1), '/usr/sbin/fcgiwrap', '-c', '4', '-s', `unix:${socket}`], { stdio: 'ignore', detached: true }),
    spawn(PINNED[0]!, [...PINNED.slice(1), '/usr/sbin/nginx', '-c', path.join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore', detached: true }),
  ]
  for (let i = 0; i < 100; i++) {
    const ready = await fetch(`http://127.0.0.1:${NGINX_PORT}/S.git/info/refs?service=git-upload-pack`).then((r) => r.ok, () => false)
    if (ready) break
    await sleep(50)
  }
  return {
    async stop() {
      for (const child of children) {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM')
        } catch {
          // The group is gone already.
        }
        await stop(child)
      }
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** bench/git-replay-server.ts in front of Ingot, pinned to CPU 0. */
async function startReplayServer(): Promise<ChildProcess> {
  const child = spawn(PINNED[0]!, [...PINNED.slice(1), process.execPath, '--import', 'tsx', 'bench/git-replay-server.ts'], {
    cwd: repoRoot, env: { ...process.env, REPLAY_UPSTREAM: BASE, REPLAY_PORT: String(REPLAY_PORT) }, stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => { if (chunk.toString().includes('READY')) resolve() })
    child.once('exit', (code) => reject(new Error(`the replay server exited with ${code}`)))
  })
  return child
}

/** Clones `url` bare into a fresh directory and removes it; the wall time in ms. */
async function cloneOnce(work: string, url: string, extra: readonly string[] = []): Promise<number> {
  const target = fs.mkdtempSync(path.join(work, 'clone-'))
  try {
    return await timed('git', ['clone', '--bare', '--quiet', ...extra, url, target])
  } finally {
    fs.rmSync(target, { recursive: true, force: true })
  }
}

/** A protocol v2 fetch of everything master reaches: what a clone asks for once it knows the refs. */
async function fetchAllRequest(gitDir: string): Promise<Buffer> {
  const tip = (await runGit(['rev-parse', 'refs/heads/master'], { gitDir })).trim()
  const pkt = (line: string) => `${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}`
  return Buffer.from(`${pkt('command=fetch\n')}0001${pkt('thin-pack\n')}${pkt('ofs-delta\n')}${pkt(`want ${tip}\n`)}${pkt('done\n')}0000`)
}

/** Downloads the pack a fetch request asks of `repositoryUrl`, to its last byte; the time in ms. */
async function packTransfer(repositoryUrl: string, request: Buffer): Promise<number> {
  const started = performance.now()
  const res = await fetch(`${repositoryUrl}/git-upload-pack`, {
    method: 'POST', body: request,
    headers: { 'content-type': 'application/x-git-upload-pack-request', 'git-protocol': 'version=2' },
  })
  if (!res.ok || res.body === null) throw new Error(`pack of ${repositoryUrl}: ${res.status}`)
  let bytes = 0
  for await (const chunk of res.body) bytes += chunk.length
  if (bytes < 1_000_000) throw new Error(`pack of ${repositoryUrl}: only ${bytes} bytes`)
  return performance.now() - started
}

/** The proportional set size of a process in MB: its private memory plus its share of what it shares. */
function pssOf(pid: number): number {
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  return Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) / 1024
}

/**
 * The memory of `pid` and every process descending from it (git and its children), in MB: the sum
 * of their proportional set sizes. Not of their RSS: concurrent pack-objects map the same pack
 * files, and RSS counts those pages once per process (eight bitmapped pack-objects of M: 350 MB of
 * RSS, 94 MB of memory).
 */
function treeMemoryOf(pid: number): number {
  let total = 0
  for (const member of treeOf(pid)) {
    try {
      total += pssOf(member)
    } catch {
      // gone meanwhile
    }
  }
  return total
}

/** The largest memory `measure` reports while `action` runs, sampled every 10 ms, minus before. */
async function memoryGrowthDuring(measure: () => number, action: () => Promise<unknown>): Promise<{ before: number; growth: number }> {
  const before = measure()
  let peak = before
  let running = true
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, measure())
      await sleep(10)
    }
  })()
  try {
    await action()
  } finally {
    running = false
    await sampler
  }
  return { before, growth: peak - before }
}

/** The pack-objects processes (git's, not the cache's hook) among `pids`. */
function packObjectsAmong(pids: Iterable<number>): number[] {
  const found: number[] = []
  for (const pid of pids) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      if (path.basename(argv[0] ?? '') === 'git' && argv.includes('pack-objects')) found.push(pid)
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/** `pid` and every process descending from it. */
function treeOf(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // The parent is the fourth field, after the command name in parentheses (which may hold spaces).
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(parent, [...children.get(parent) ?? [], Number(entry)])
    } catch {
      // gone meanwhile
    }
  }
  const tree: number[] = []
  const pending = [pid]
  while (pending.length > 0) {
    const next = pending.pop()!
    tree.push(next)
    pending.push(...children.get(next) ?? [])
  }
  return tree
}

/** The wall time of `CONCURRENT_CLONES` clones started together. */
async function concurrentClones(work: string, url: string, extra: readonly string[] = []): Promise<number> {
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENT_CLONES }, () => cloneOnce(work, url, extra)))
  return performance.now() - started
}

/** The times of `runs` sequential GETs of `url` (after a warm-up), body read to its end. */
async function getTimes(url: string, runs: number): Promise<number[]> {
  const once = async () => {
    const started = performance.now()
    const res = await fetch(url)
    await res.arrayBuffer()
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`)
    return performance.now() - started
  }
  for (let i = 0; i < 20; i++) await once()
  const times: number[] = []
  for (let i = 0; i < runs; i++) times.push(await once())
  return times
}

/** The mean time of `runs` sequential GETs of `url` (after a warm-up), body read to its end. */
async function meanGet(url: string, runs: number): Promise<number> {
  const times = await getTimes(url, runs)
  return times.reduce((sum, t) => sum + t, 0) / runs
}

async function meanCommand(args: readonly string[], runs: number): Promise<number> {
  for (let i = 0; i < 5; i++) await timed(PINNED[0]!, [...PINNED.slice(1), ...args])
  let total = 0
  for (let i = 0; i < runs; i++) total += await timed(PINNED[0]!, [...PINNED.slice(1), ...args])
  return total / runs
}

export async function measureGit(): Promise<Row[]> {
  const rows: Row[] = []
  const fixture = await ensureFixtures()
  const fixturesDir = path.dirname(fixture.M)
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ingot-bench-git-'))
  const dataDir = path.join(work, 'data')
  const env = {
    INGOT_DATA_DIR: dataDir, INGOT_DATABASE_URL: '', INGOT_ROOT_TOKEN: ROOT_TOKEN, INGOT_LOG_LEVEL: 'warn',
    INGOT_PORT: String(PORT), INGOT_EXTERNAL_URL: BASE, BENCH_TARGETS: '[]',
  }
  const server = await startBuiltServer(env)
  const db = await openDatabase({ databaseUrl: '', dataDir })
  try {
    log('[git] S pushed into Ingot, then housekept')
    const pushedS = await installByPush(db, dataDir, 'bench-s', fixture.S)
    const cloneUrl = (name: string) => `${BASE}/root/${name}.git`
    const localUploadPack = ['--no-local', '--upload-pack', 'taskset -c 0 git-upload-pack']

    // The HTTP floor of S's rows: git http-backend behind nginx, serving a bare copy of S that takes pushes.
    const cgiRoot = path.join(work, 'cgi-root')
    const cgiS = path.join(cgiRoot, 'S.git')
    await timed('git', ['clone', '--bare', '--quiet', fixture.S, cgiS])
    await timed('git', ['--git-dir', cgiS, 'config', 'http.receivepack', 'true'])
    const cgiForS = await startCgiStack(cgiRoot)
    // The client's floor: a second copy of S, so that the replay server's one real push (the
    // answer it keeps) leaves the project Ingot's own pushes go to as it was.
    await installByPush(db, dataDir, 'bench-s-replay', fixture.S)
    const replay = await startReplayServer()
    const replayUrl = `http://127.0.0.1:${REPLAY_PORT}/root/bench-s-replay.git`
    try {
      log(`[git] clones of S, in turn: git clone --no-local, Ingot, its answers replayed${cgiForS === null ? '' : ', nginx + fcgiwrap + git http-backend'}`)
      // The replay server's first clone asks Ingot, to learn the answers.
      await cloneOnce(work, replayUrl)
      const contenders = [
        { name: 'local', url: fixture.S, extra: localUploadPack },
        { name: 'ingot', url: cloneUrl('bench-s'), extra: [] },
        { name: 'replay', url: replayUrl, extra: [] },
        ...(cgiForS === null ? [] : [{ name: 'cgi', url: `http://127.0.0.1:${NGINX_PORT}/S.git`, extra: [] }]),
      ]
      const small = new Map(contenders.map((contender) => [contender.name, [] as number[]]))
      for (let i = 0; i < SMALL_CLONE_RUNS; i++) {
        // In a rotating order, so that none always follows another's cache effects.
        for (let j = 0; j < contenders.length; j++) {
          const { name, url, extra } = contenders[(i + j) % contenders.length]!
          small.get(name)!.push(await cloneOnce(work, url, extra))
        }
      }
      const [ingotSmall, localSmall] = [median(small.get('ingot')!), median(small.get('local')!)]
      // S is the issue's repository of 200 commits (bench/git-fixtures.ts).
      rows.push({ metric: `git: clone of S (200 commits) through Ingot beside git clone --no-local (median of ${SMALL_CLONE_RUNS})`, value: `${ms(ingotSmall)} vs ${ms(localSmall)}: ${signedMs(ingotSmall - localSmall)}`, target: '≤ +20 ms', ok: ingotSmall - localSmall <= 20 })
      rows.push(replayFloorRow('clone of S', median(small.get('replay')!), localSmall, ingotSmall))
      if (cgiForS !== null) rows.push(httpFloorRow('clone of S', median(small.get('cgi')!), localSmall, ingotSmall))
      rows.push(...await measurePushes(work, fixture.S, pushedS.id, cloneUrl('bench-s'), replayUrl, cgiForS === null ? null : `http://127.0.0.1:${NGINX_PORT}/S.git`))
    } finally {
      await stop(replay)
      await cgiForS?.stop()
    }
    if (cgiForS === null) rows.push({ metric: 'git: clone of S and push through nginx + fcgiwrap + git http-backend (the HTTP floor)', value: 'not measured: apt-get install nginx fcgiwrap', target: '', ok: null })

    if (SMALL_ONLY) {
      rows.push(...await measureProjectCreation(work))
      return rows
    }
    log('[git] M pushed into Ingot, then housekept; D copied in')
    const pushedM = await installByPush(db, dataDir, 'bench-m', fixture.M)
    const ids = { S: pushedS.id, M: pushedM.id, D: await installFixture(dataDir, 'bench-d', fixture.D) }
    rows.push({ metric: 'git: M brought in by `git push` over HTTP, then housekeeping (`POST …/housekeeping` to the job\'s end, statistics included)', value: `push ${ms(pushedM.pushMs)}, housekeeping ${ms(pushedM.housekeepingMs)}`, target: '', ok: null })

    log('[git] clones of M, in turn: git clone --no-local, Ingot, nginx + fcgiwrap + git http-backend')
    const cgi = await startCgiStack(fixturesDir)
    const cgiUrl = `http://127.0.0.1:${NGINX_PORT}/M.git`
    const clones = { local: [] as number[], ingot: [] as number[], cgi: [] as number[] }
    const packs = { ingot: [] as number[], cgi: [] as number[] }
    const fetchRequest = await fetchAllRequest(fixture.M)
    try {
      // Interleaved, and in a rotating order, so that drift of the machine weighs on every contender alike.
      const contenders = [
        async () => { clones.local.push(await cloneOnce(work, fixture.M, localUploadPack)) },
        async () => {
          clones.ingot.push(await cloneOnce(work, cloneUrl('bench-m')))
          packs.ingot.push(await packTransfer(cloneUrl('bench-m'), fetchRequest))
        },
        ...(cgi === null ? [] : [async () => {
          clones.cgi.push(await cloneOnce(work, cgiUrl))
          packs.cgi.push(await packTransfer(cgiUrl, fetchRequest))
        }]),
      ]
      for (let i = 0; i < CLONE_RUNS; i++) {
        for (let j = 0; j < contenders.length; j++) await contenders[(i + j) % contenders.length]!()
      }
    } finally {
      await cgi?.stop()
    }
    const [ingotClone, localClone] = [median(clones.ingot), median(clones.local)]
    rows.push({ metric: `git: clone of M through Ingot (pushed, housekept) beside git clone --no-local of the bitmapped fixture (median of ${CLONE_RUNS})`, value: `${ms(ingotClone)} = ${ratio(ingotClone, localClone)} (${ms(localClone)})`, target: '≤ 1.10×', ok: ingotClone <= localClone * 1.1 })
    if (cgi === null) {
      rows.push({ metric: 'git: clone of M beside nginx + fcgiwrap + git http-backend', value: 'not measured: apt-get install nginx fcgiwrap', target: '≤ 1.0×', ok: false })
    } else {
      const [cgiClone, ingotPack, cgiPack] = [median(clones.cgi), median(packs.ingot), median(packs.cgi)]
      rows.push({ metric: 'git: clone of M through Ingot beside nginx + fcgiwrap + git http-backend on the bitmapped fixture', value: `${ratio(ingotClone, cgiClone)} (CGI stack ${ms(cgiClone)})`, target: '≤ 1.0×', ok: ingotClone <= cgiClone })
      rows.push({ metric: 'git: the server\'s part of that clone — the whole pack of M downloaded, no indexing (median)', value: `Ingot ${ms(ingotPack)} = ${ratio(ingotPack, cgiPack)} CGI stack (${ms(cgiPack)})`, target: '', ok: null })
    }

    rows.push(...await measureConcurrentClones(work, env, fixture.M, server.pid ?? 0, 'bench-m', localUploadPack))

    rows.push(...await measureProjectCreation(work))

    log('[git] raw file reads')
    const rawPath = `/api/v4/projects/${ids.M}/repository/files/${encodeURIComponent(RAW_FILE)}/raw?ref=master`
    await load(`${BASE}${rawPath}`, { seconds: 2, connections: 16 })
    const raw = await load(`${BASE}${rawPath}`, { seconds: SECONDS, connections: 16 })
    rows.push({ metric: 'git: GET …/repository/files/:path/raw of M at 16 connections', value: `${Math.round(raw.rps)} req/s, p50 ${raw.p50} ms, p99 ${raw.p99} ms`, target: '≥ 2000 req/s', ok: raw.rps >= 2000 })
    const rawOne = await meanGet(`${BASE}${rawPath}`, 200)
    const catFile = await meanCommand(['git', '--git-dir', fixture.M, 'cat-file', '-p', `master:${RAW_FILE}`], 50)
    rows.push({ metric: 'git: one raw file GET beside `git cat-file -p` alone (mean)', value: `${ms(rawOne)} = ${ratio(rawOne, catFile)} (${ms(catFile)})`, target: '≤ 1.5×', ok: rawOne <= catFile * 1.5 })

    // The files API answers with last_commit_id: its floor is the two git commands that find it and the content.
    const filePath = `/api/v4/projects/${ids.M}/repository/files/${encodeURIComponent(RAW_FILE)}?ref=master`
    const fileGet = await meanGet(`${BASE}${filePath}`, 100)
    const lastCommit = await meanCommand(['git', '--git-dir', fixture.M, 'log', '-1', '--format=%H', 'master', '--', RAW_FILE], 50)
    const fileContent = await meanCommand(['git', '--git-dir', fixture.M, 'cat-file', '-p', `master:${RAW_FILE}`], 50)
    const fileFloor = lastCommit + fileContent
    rows.push({ metric: 'git: GET …/repository/files/:path of M (with last_commit_id) beside `git log -1 -- path` + `git cat-file -p` (mean)', value: `${ms(fileGet)} = ${ratio(fileGet, fileFloor)} (${ms(lastCommit)} + ${ms(fileContent)})`, target: '≤ 1.5×', ok: fileGet <= fileFloor * 1.5 })

    log('[git] trees and commit pages')
    const tree = await meanGet(`${BASE}/api/v4/projects/${ids.D}/repository/tree?path=big&per_page=100`, 100)
    const lsTree = await meanCommand(['git', '--git-dir', fixture.D, 'ls-tree', 'master', 'big/'], 50)
    rows.push({ metric: 'git: GET …/repository/tree of D (2,000 entries, a page of 100) beside `git ls-tree` (mean)', value: `${ms(tree)} = ${ratio(tree, lsTree)} (${ms(lsTree)})`, target: '≤ 1.5×', ok: tree <= lsTree * 1.5 })
    const commitTimes = await getTimes(`${BASE}/api/v4/projects/${ids.M}/repository/commits?per_page=20`, 100)
    const commits = commitTimes.reduce((sum, t) => sum + t, 0) / commitTimes.length
    const commitsP99 = percentile(commitTimes, 99)
    const gitLog = await meanCommand(['git', '--git-dir', fixture.M, 'log', '-n20', 'master'], 50)
    rows.push({ metric: 'git: GET …/repository/commits?per_page=20 of M (20,000 commits) beside `git log -n20` (mean; p99 of 100)', value: `${ms(commits)} = ${ratio(commits, gitLog)} (${ms(gitLog)}), p99 ${ms(commitsP99)}`, target: '≤ 1.5×, p99 ≤ 10 ms', ok: commits <= gitLog * 1.5 && commitsP99 <= 10 })

    rows.push(...await measureArchive(fixture.M, ids.M))
  } finally {
    await db.close()
    await stop(server)
    fs.rmSync(work, { recursive: true, force: true })
  }
  return rows
}

/**
 * Eight concurrent clones of M through Ingot with its pack-objects cache (the server of the other
 * rows), and through a second server on the same data directory with the cache off, beside eight
 * parallel `git clone --no-local` of the bitmapped fixture, rounds alternating in a rotating order;
 * the growth of each server's memory, whole process tree and Node alone, and how many
 * pack-objects ran (processes seen by the 10 ms sampler). Cache entries live five minutes, so
 * after the first round the cached server's clones are all hits: what CI jobs cloning one commit
 * within minutes get.
 */
export async function measureConcurrentClones(work: string, env: Record<string, string>, fixtureM: string, pid: number, name: string, localUploadPack: readonly string[]): Promise<Row[]> {
  log(`[git] ${CONCURRENT_CLONES} concurrent clones of M, in turn: git clone --no-local, Ingot with the pack-objects cache, Ingot without`)
  const uncachedPort = PORT + 2
  const uncached = await startBuiltServer({ ...env, INGOT_PORT: String(uncachedPort), INGOT_WEB_JOBS: 'false', INGOT_PACK_OBJECTS_CACHE: 'false' })
  type Side = { times: number[]; tree: number[]; node: number[]; packObjects: number[]; before: number }
  const side = (): Side => ({ times: [], tree: [], node: [], packObjects: [], before: 0 })
  const sides = { cached: side(), uncached: side() }
  const local: number[] = []
  const ingot = (into: Side, serverPid: number, url: string) => async () => {
    let time = 0
    const node = { growth: 0 }
    const seen = new Set<number>()
    const tree = await memoryGrowthDuring(() => {
      const pids = treeOf(serverPid)
      for (const packer of packObjectsAmong(pids)) seen.add(packer)
      return treeMemoryOf(serverPid)
    }, async () => {
      Object.assign(node, await memoryGrowthDuring(() => rssOf(serverPid), async () => { time = await concurrentClones(work, url) }))
    })
    into.times.push(time)
    into.tree.push(tree.growth)
    into.node.push(node.growth)
    into.packObjects.push(seen.size)
    into.before = tree.before
  }
  try {
    const contenders = [
      async () => { local.push(await concurrentClones(work, fixtureM, localUploadPack)) },
      ingot(sides.cached, pid, `${BASE}/root/${name}.git`),
      ingot(sides.uncached, uncached.pid ?? 0, `http://127.0.0.1:${uncachedPort}/root/${name}.git`),
    ]
    for (let i = 0; i < CONCURRENT_RUNS; i++) {
      for (let j = 0; j < contenders.length; j++) await contenders[(i + j) % contenders.length]!()
    }
  } finally {
    await stop(uncached)
  }
  const localTime = median(local)
  const rows: Row[] = []
  for (const [label, measured] of [['with the pack-objects cache', sides.cached], ['without the cache (INGOT_PACK_OBJECTS_CACHE=false)', sides.uncached]] as const) {
    const time = median(measured.times)
    const treeGrowth = Math.max(...measured.tree)
    rows.push({ metric: `git: ${CONCURRENT_CLONES} concurrent clones of M through Ingot ${label} beside ${CONCURRENT_CLONES} parallel git clone --no-local started together (median of ${CONCURRENT_RUNS})`, value: `${ms(time)} = ${ratio(time, localTime)} (${ms(localTime)}); pack-objects run per round: ${measured.packObjects.join(', ')}`, target: '≤ 1.25×', ok: time <= localTime * 1.25 })
    rows.push({ metric: `git: server memory growth during them ${label}, the whole process tree with git, proportional set sizes (from ${measured.before.toFixed(0)} MB; largest of ${CONCURRENT_RUNS})`, value: `${treeGrowth.toFixed(1)} MB (Node's RSS alone ${Math.max(...measured.node).toFixed(1)} MB)`, target: '≤ 150 MB', ok: treeGrowth <= 150 })
  }
  return rows
}

/**
 * One-commit pushes of S through Ingot beside `git push file://` to a bare copy (its receive-pack on
 * CPU 0 too), and how long after Ingot's push returns its `pushed` event is listed.
 */
/**
 * What git over HTTP costs by itself, whoever serves it: the same operation through nginx +
 * fcgiwrap + git http-backend beside plain git, and Ingot beside that stack.
 */
function httpFloorRow(operation: string, cgi: number, local: number, ingot: number): Row {
  return {
    metric: `git: ${operation} through nginx + fcgiwrap + git http-backend beside plain git (the HTTP floor), and Ingot beside it`,
    value: `${ms(cgi)} vs ${ms(local)}: ${signedMs(cgi - local)}; Ingot ${signedMs(ingot - cgi)}`, target: '', ok: null,
  }
}

/**
 * What the client's side of git over HTTP costs by itself: the same operation against a server
 * that only sends back answers Ingot gave before, beside plain git, and Ingot beside that.
 */
function replayFloorRow(operation: string, replay: number, local: number, ingot: number): Row {
  return {
    metric: `git: ${operation} from a server replaying Ingot's answers beside plain git (the client's floor), and Ingot beside it`,
    value: `${ms(replay)} vs ${ms(local)}: ${signedMs(replay - local)}; Ingot ${signedMs(ingot - replay)}`, target: '', ok: null,
  }
}

async function measurePushes(work: string, fixtureS: string, projectId: number, cloneUrl: string, replayUrl: string, cgiUrl: string | null): Promise<Row[]> {
  log(`[git] pushes of one commit: Ingot, git push file://, Ingot's answers replayed${cgiUrl === null ? '' : ', nginx + fcgiwrap + git http-backend'}`)
  const withCredentials = (url: string) => url.replace('http://', `http://root:${ROOT_TOKEN}@`)
  const authenticated = withCredentials(cloneUrl)
  const localBare = path.join(work, 'S-copy.git')
  await timed('git', ['clone', '--bare', '--quiet', fixtureS, localBare])
  const pushes = { ingot: path.join(work, 'push-ingot'), local: path.join(work, 'push-local'), cgi: path.join(work, 'push-cgi'), replay: path.join(work, 'push-replay') }
  await timed('git', ['clone', '--quiet', authenticated, pushes.ingot])
  await timed('git', ['clone', '--quiet', withCredentials(replayUrl), pushes.replay])
  await timed('git', ['clone', '--quiet', `file://${localBare}`, pushes.local])
  if (cgiUrl !== null) await timed('git', ['clone', '--quiet', cgiUrl, pushes.cgi])
  const identity = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' }
  const commitIn = async (dir: string, i: number) => {
    fs.writeFileSync(path.join(dir, 'src', 'file-00007.txt'), `pushed ${i}\n`)
    await timed('git', ['commit', '--quiet', '-am', `Push ${i}`], { cwd: dir, env: identity })
  }
  const ingotTimes: number[] = []
  const localTimes: number[] = []
  const cgiTimes: number[] = []
  const replayTimes: number[] = []
  const eventLags: number[] = []
  for (let i = 0; i < 15; i++) {
    await commitIn(pushes.local, i)
    localTimes.push(await timed('git', ['push', '--quiet', '--receive-pack', 'taskset -c 0 git-receive-pack', 'origin', 'HEAD:master'], { cwd: pushes.local }))
    // The first push goes on to Ingot (into the replay's own project), to learn the answers.
    await commitIn(pushes.replay, i)
    replayTimes.push(await timed('git', ['push', '--quiet', 'origin', 'HEAD:master'], { cwd: pushes.replay }))
    if (cgiUrl !== null) {
      await commitIn(pushes.cgi, i)
      cgiTimes.push(await timed('git', ['push', '--quiet', 'origin', 'HEAD:master'], { cwd: pushes.cgi }))
    }
    await commitIn(pushes.ingot, i)
    ingotTimes.push(await timed('git', ['push', '--quiet', 'origin', 'HEAD:master'], { cwd: pushes.ingot }))
    const returned = performance.now()
    const head = fs.readFileSync(path.join(pushes.ingot, '.git', 'refs', 'heads', 'master'), 'utf8').trim()
    for (;;) {
      const events = await api('GET', `/projects/${projectId}/events?per_page=1`) as { push_data?: { commit_to: string } }[]
      if (events[0]?.push_data?.commit_to === head) break
      if (performance.now() - returned > 10_000) throw new Error('the push event did not appear within 10 s')
      await sleep(1)
    }
    eventLags.push(performance.now() - returned)
  }
  // The first pushes warm both sides up.
  const ingot = median(ingotTimes.slice(5))
  const local = median(localTimes.slice(5))
  const lag = median(eventLags.slice(5))
  return [
    { metric: 'git: push of one commit to S through Ingot beside `git push file://` (median of 10)', value: `${ms(ingot)} vs ${ms(local)}: ${signedMs(ingot - local)}`, target: '≤ +20 ms', ok: ingot - local <= 20 },
    replayFloorRow('push of one commit to S', median(replayTimes.slice(5)), local, ingot),
    ...(cgiUrl === null ? [] : [httpFloorRow('push of one commit to S', median(cgiTimes.slice(5)), local, ingot)]),
    { metric: 'git: push-to-event: `pushed` event listed after `git push` returns (p50)', value: ms(lag), target: '< 50 ms', ok: lag < 50 },
  ]
}

/**
 * Project creation (`POST /projects`, no README: the row and its empty repository) one at a time,
 * beside `git init --bare` on CPU 0, the two alternating; p50 and p99 of each.
 */
async function measureProjectCreation(work: string): Promise<Row[]> {
  log('[git] project creation: POST /projects, git init --bare')
  const ingot: number[] = []
  const local: number[] = []
  for (let i = 0; i < CREATION_RUNS + 5; i++) {
    const post = async () => {
      const started = performance.now()
      await api('POST', '/projects', { name: `bench-created-${i}` })
      return performance.now() - started
    }
    const init = () => timed(PINNED[0]!, [...PINNED.slice(1), 'git', 'init', '--bare', '--quiet', path.join(work, `init-${i}.git`)])
    // Alternating which goes first; the first five of each warm up.
    let created: number
    let initialized: number
    if (i % 2 === 0) { created = await post(); initialized = await init() } else { initialized = await init(); created = await post() }
    if (i >= 5) { ingot.push(created); local.push(initialized) }
  }
  const [ingotP50, localP50] = [median(ingot), median(local)]
  return [{
    metric: `git: project creation (POST /projects, no README) beside \`git init --bare\`, one at a time (p50 / p99 of ${CREATION_RUNS})`,
    value: `${ms(ingotP50)} / ${ms(percentile(ingot, 99))} vs ${ms(localP50)} / ${ms(percentile(local, 99))}: ${signedMs(ingotP50 - localP50)}`,
    target: '≤ +5 ms (p50)', ok: ingotP50 - localP50 <= 5,
  }]
}

/** The tar.gz archive of M through Ingot (whole body and first byte) beside `git archive | gzip`. */
async function measureArchive(fixtureM: string, projectId: number): Promise<Row[]> {
  log('[git] tar.gz archives of M')
  const url = `${BASE}/api/v4/projects/${projectId}/repository/archive.tar.gz?sha=master`
  const tmpBefore = fs.readdirSync(os.tmpdir()).length
  const once = async () => {
    const started = performance.now()
    const res = await fetch(url)
    if (!res.ok || res.body === null) throw new Error(`GET ${url}: ${res.status}`)
    let firstByte = 0
    for await (const _chunk of res.body) {
      if (firstByte === 0) firstByte = performance.now() - started
    }
    return { total: performance.now() - started, firstByte }
  }
  const runs = [await once(), await once(), await once()]
  const total = median(runs.map((r) => r.total))
  const firstByte = median(runs.map((r) => r.firstByte))
  const pipeline = await medianOf(3, () => timed(PINNED[0]!, [...PINNED.slice(1), 'sh', '-c',
    `git --git-dir "${fixtureM}" archive --format=tar master | gzip -c > /dev/null`]))
  const newTmpFiles = fs.readdirSync(os.tmpdir()).length - tmpBefore
  return [
    { metric: 'git: GET …/repository/archive.tar.gz of M beside `git archive | gzip` (median of 3)', value: `${ms(total)} = ${ratio(total, pipeline)} (${ms(pipeline)})`, target: '≤ 1.1×', ok: total <= pipeline * 1.1 },
    { metric: 'git: archive first byte', value: ms(firstByte), target: '< 100 ms', ok: firstByte < 100 },
    { metric: 'git: temporary files left by archives', value: String(Math.max(0, newTmpFiles)), target: '0', ok: newTmpFiles <= 0 },
  ]
}
