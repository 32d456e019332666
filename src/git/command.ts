// The one way Ingot runs git: argument arrays (never a shell), a fixed environment that ignores
// the machine's git configuration, a timeout, and failures that carry git's own stderr. User
// values (refs, paths, revisions) reach git only through the checks below and after
// `--end-of-options` (or `--` for paths), so none can be read as an option.
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { countGitProcess } from './processes.js'

export class GitError extends Error {
  constructor(readonly args: readonly string[], readonly exitCode: number | null, readonly stderr: string) {
    super(`git ${args.join(' ')} failed (${exitCode ?? 'killed'}): ${stderr.trim()}`)
  }
}

/** A private, empty HOME so no user's ~/.gitconfig changes what git does for us. */
const GIT_HOME = path.join(os.tmpdir(), 'ingot-git-home')

export const GIT_ENV: Readonly<Record<string, string>> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: GIT_HOME,
  LC_ALL: 'C',
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  // Paths users give are paths, never patterns.
  GIT_LITERAL_PATHSPECS: '1',
}

/** The first executable `name` on `searchPath` (a PATH-style list), or null. */
export function findProgram(name: string, searchPath: string = GIT_ENV.PATH ?? ''): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      return candidate
    } catch {
      // not in this directory
    }
  }
  return null
}

let gitProgram: string | undefined

/**
 * git's full path, looked up on PATH once. Spawned by its bare name, the forked child would try each
 * directory of PATH in turn, and the event loop waits until its exec succeeds (0.6-0.8 ms per git
 * process with eight directories before /usr/bin). Still `git` in `ps` (argv0).
 */
function gitExecutable(): string {
  gitProgram ??= findProgram('git') ?? 'git'
  return gitProgram
}

export interface RunGitOptions {
  /** The repository (its .git directory, or a bare repository); omitted for commands such as init. */
  gitDir?: string
  timeoutMs?: number
  env?: Record<string, string>
  /** Written to git's standard input. */
  input?: string | Buffer
  /** Kills git when aborted (a job's time limit, a shutdown). */
  signal?: AbortSignal
  /** At most this much of git's stdout is kept (DEFAULT_MAX_OUTPUT_BYTES unless given). */
  maxOutputBytes?: number
}

/** A command's time limit unless its caller gives one. */
const DEFAULT_TIMEOUT_MS = 60_000

/**
 * What one command may write to us unless its caller says otherwise: far more than any listing
 * the API answers needs, and small enough that a hostile repository cannot fill the heap.
 */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024

/** What was asked of git is larger than Ingot reads whole: answered as too large, never as a failure. */
export class GitTooLargeError extends Error {}

/** git wrote more than its caller would read: it was killed, and its output is not whole. */
export class GitOutputTooLargeError extends GitTooLargeError {
  constructor(args: readonly string[], readonly limit: number) {
    super(`git ${args.join(' ')} wrote more than ${limit} bytes`)
  }
}

function gitArgs(args: readonly string[], options: RunGitOptions): string[] {
  return options.gitDir === undefined ? [...args] : ['--git-dir', options.gitDir, ...args]
}

export interface LimitedOutput {
  stdout: Buffer
  /** git had more to say than the limit: it was stopped, and stdout is its first maxOutputBytes. */
  truncated: boolean
}

/**
 * Runs git and keeps at most `maxOutputBytes` of its stdout: past that, git is killed and the
 * output flagged truncated (its exit status then tells nothing). Chunks are kept as they come and
 * joined once. A non-zero exit of a git that was not stopped is a GitError.
 */
export function runGitLimited(args: readonly string[], options: RunGitOptions = {}): Promise<LimitedOutput> {
  const fullArgs = gitArgs(args, options)
  const limit = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES
  return new Promise((resolve, reject) => {
    const child = spawn(gitExecutable(), fullArgs, {
      argv0: 'git',
      env: { ...GIT_ENV, ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
    countGitProcess(child, args)
    const out: Buffer[] = []
    const err: Buffer[] = []
    let kept = 0
    let truncated = false
    child.stdout?.on('data', (chunk: Buffer) => {
      if (truncated) return
      if (kept + chunk.length > limit) {
        out.push(chunk.subarray(0, limit - kept))
        kept = limit
        truncated = true
        child.kill('SIGKILL')
        return
      }
      out.push(chunk)
      kept += chunk.length
    })
    child.stderr?.on('data', (chunk: Buffer) => { if (err.length < 64) err.push(chunk) })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0 || truncated) resolve({ stdout: Buffer.concat(out, kept), truncated })
      else reject(new GitError(fullArgs, code, Buffer.concat(err).toString('utf8')))
    })
    if (options.input !== undefined && child.stdin !== null) {
      child.stdin.on('error', () => {}) // git may exit before reading all its input; its exit code tells
      child.stdin.end(options.input)
    }
  })
}

/**
 * Runs git to completion and returns its stdout as bytes; a non-zero exit is a GitError, and
 * output past `maxOutputBytes` a GitOutputTooLargeError (a caller that can use a part of it asks
 * runGitLimited).
 */
export async function runGitBuffer(args: readonly string[], options: RunGitOptions = {}): Promise<Buffer> {
  const { stdout, truncated } = await runGitLimited(args, options)
  if (truncated) throw new GitOutputTooLargeError(gitArgs(args, options), options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES)
  return stdout
}

/** Runs git to completion and returns its stdout as text. */
export async function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<string> {
  return (await runGitBuffer(args, options)).toString('utf8')
}

export type GitProcess = ChildProcessByStdio<Writable, Readable, Readable>

/** A streaming command's time limit unless its caller gives one: a large archive on a slow link. */
export const DEFAULT_STREAM_TIMEOUT_MS = 60 * 60 * 1000

export interface SpawnGitOptions extends Omit<RunGitOptions, 'input' | 'maxOutputBytes' | 'timeoutMs'> {
  extraFds?: number
  /** Overall time limit (DEFAULT_STREAM_TIMEOUT_MS unless given); 0 only for a child that limits its own work (the cat-file readers). */
  timeoutMs?: number
  /** Kills git when nothing moved for this long: see `touch`. */
  idleTimeoutMs?: number
}

/**
 * Starts git with its streams open, for output too large to hold (archives, packs, raw blobs)
 * and for protocols. The caller consumes stdout and handles exit; stderr is collected into
 * `stderrText()` for error reports. git is killed at its time limit, and, with an idle limit,
 * when the caller has not called `touch()` (on each chunk moved either way) for that long;
 * `stoppedBy()` says which limit stopped it.
 */
export function spawnGit(args: readonly string[], options: SpawnGitOptions = {}) {
  const fullArgs = gitArgs(args, options)
  const extra = Array.from({ length: options.extraFds ?? 0 }, () => 'pipe' as const)
  const child = spawn(gitExecutable(), fullArgs, {
    argv0: 'git',
    env: { ...GIT_ENV, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe', ...extra],
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  }) as GitProcess
  countGitProcess(child, args)
  const err: Buffer[] = []
  child.stderr.on('data', (chunk: Buffer) => { if (err.length < 64) err.push(chunk) })
  let stoppedBy: 'time limit' | 'idle limit' | null = null
  const stop = (reason: 'time limit' | 'idle limit') => {
    if (child.exitCode !== null || child.signalCode !== null) return
    stoppedBy = reason
    child.kill('SIGKILL')
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS
  const overall = timeoutMs > 0 ? setTimeout(() => stop('time limit'), timeoutMs) : null
  let idle: NodeJS.Timeout | null = null
  const touch = () => {
    if (options.idleTimeoutMs === undefined) return
    if (idle === null) idle = setTimeout(() => stop('idle limit'), options.idleTimeoutMs)
    else idle.refresh()
  }
  touch()
  child.once('exit', () => {
    if (overall !== null) clearTimeout(overall)
    if (idle !== null) clearTimeout(idle)
  })
  return { child, args: fullArgs, stderrText: () => Buffer.concat(err).toString('utf8'), touch, stoppedBy: () => stoppedBy }
}

/** A full or abbreviated object id. */
const OBJECT_ID = /^[0-9a-f]{4,64}$/i

export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value)
}

const FULL_OBJECT_ID = /^[0-9a-f]{40}$/

/** A whole SHA-1 object id as git prints it: what it names never changes, so answers about it may be kept. */
export function isFullObjectId(value: string): boolean {
  return FULL_OBJECT_ID.test(value)
}

/**
 * Revision syntax that makes git search rather than name: commit messages (`main^{/fix}`,
 * `:/fix`, each a walk of the history with a regular expression of the caller's) or the reflog
 * (`main@{1}`, `@{-1}`, `main@{yesterday}`). No branch, tag or object id looks so.
 */
export function searchesHistory(revision: string): boolean {
  return revision.startsWith(':/') || revision.includes('^{/') || revision.includes('@{')
}

/**
 * A revision a user named (branch, tag, object id, `HEAD`, `name~2`): refused when it could be read
 * as an option or holds characters no ref or revision expression uses.
 */
export function isSafeRevision(value: string): boolean {
  if (value === '' || value.length > 1024 || value.startsWith('-')) return false
  // eslint-disable-next-line no-control-regex
  return !/[\x00-\x20\x7f\\:?*[]/.test(value) && !value.includes('..') && !value.includes('@{')
}
