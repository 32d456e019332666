// What every benchmark shares: the result rows and their table, starting and stopping the bench
// server (bench/server.ts) pinned to CPU 0, its resident memory, and autocannon runs.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import pg from 'pg'

export const repoRoot = path.resolve(import.meta.dirname, '..')
export const ROOT_TOKEN = 'bench-root-token-0123456789'

export interface Row { metric: string; value: string; target: string; ok: boolean | null }

/** The PostgreSQL server benchmarks create their databases on. */
export const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** One statement on PG_SERVER's maintenance database (create database, drop database). */
export async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_SERVER })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/**
 * The database one dialect's measurements run on: '' for SQLite (in the server's data directory),
 * else a new PostgreSQL database named after `label`; drop() removes it.
 */
export async function benchDatabase(dialect: 'sqlite' | 'postgres', label: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') return { url: '', drop: async () => {} }
  const name = `ingot_bench_${label}${Date.now()}`
  await adminQuery(`create database ${name}`)
  const url = new URL(PG_SERVER)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`) }
}

export const log = (line: string) => process.stderr.write(`${line}\n`)

/** The p-th percentile (nearest rank) of the values. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}

/** Resident memory of a process in MB (for the server: the node child of taskset, which execs into it). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return kb / 1024
}

/** A process's CPU time in seconds, alone and with its reaped children (/proc/<pid>/stat). */
export function cpuOf(pid: number): { self: number; children: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The fields after the command name in parentheses (which may hold spaces); utime is the 14th field.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number)
  const tick = 100 // USER_HZ on Linux
  return { self: (fields[11]! + fields[12]!) / tick, children: (fields[13]! + fields[14]!) / tick }
}

/** Starts bench/server.ts on CPU 0 with `env` and waits until it listens. */
export async function startBenchServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn('taskset', ['-c', '0', process.execPath, '--import', 'tsx', 'bench/server.ts'], {
    cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => { if (chunk.toString().includes('READY')) resolve() })
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)))
  })
  return child
}

/**
 * Starts the built `ingot web` (dist/main.js, jobs worked as in production) on CPU 0 and waits for
 * the first 200 of GET /api/v4/version; `env` needs INGOT_PORT and INGOT_ROOT_TOKEN = ROOT_TOKEN.
 */
export async function startBuiltServer(env: Record<string, string>): Promise<ChildProcess> {
  // BENCH_SERVER_PROFILE=DIR writes a V8 CPU profile of each server into DIR when it stops.
  const profile = process.env.BENCH_SERVER_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_PROFILE}`] : []
  const child = spawn('taskset', ['-c', '0', process.execPath, ...profile, 'dist/main.js', 'web'], {
    // The built-in CI runner and the SSH server only where a measurement asks for them (bench/ci.ts, bench/ssh.ts).
    cwd: repoRoot, env: { ...process.env, INGOT_BUILTIN_RUNNER: 'false', INGOT_SSH_PORT: '0', ...env }, stdio: ['ignore', 'ignore', 'inherit'],
  })
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${env.INGOT_PORT}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } })
      if (res.status === 200) return child
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`ingot exited with ${child.exitCode} before answering`)
    await sleep(2)
  }
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))])
}

/** A call of the bench server's API as root; its JSON answer (fails on an error status). */
export async function rootApi(base: string, method: string, url: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}/api/v4${url}`, {
    method, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** Runs a command to its end; resolves with the wall time in ms, rejects on a non-zero exit. */
export function timed(command: string, args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code) => code === 0
      ? resolve(performance.now() - started)
      : reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr.trim()}`)))
  })
}

export interface LoadResult { rps: number; p50: number; p99: number; mean: number }

export interface LoadOptions {
  headers?: Record<string, string>
  seconds: number
  connections: number
  /** Requests per second over all connections; unset = as fast as the server answers. */
  rate?: number
  /** The path of the n-th request, when every request should differ. */
  pathOf?: (n: number) => string
  /** GET unless set; a POST sends `body` with every request. */
  method?: 'GET' | 'POST'
  body?: string
}

/** One autocannon run; any non-2xx answer or error fails the benchmark. */
export async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  let sent = 0
  const { pathOf } = options
  const result = await autocannon({
    url, headers: options.headers ?? {}, connections: options.connections, duration: options.seconds,
    ...(options.method === undefined ? {} : { method: options.method }),
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.rate === undefined ? {} : { overallRate: options.rate }),
    ...(pathOf === undefined ? {} : { requests: [{ setupRequest: (request) => ({ ...request, path: pathOf(sent++) }) }] }),
  })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.average }
}

export function renderTable(rows: readonly Row[]): string {
  const lines = ['| measurement | result | target | |', '|---|---|---|---|']
  for (const row of rows) lines.push(`| ${row.metric} | ${row.value} | ${row.target} | ${row.ok === null ? '' : row.ok ? 'met' : 'MISSED'} |`)
  return `${lines.join('\n')}\n`
}
