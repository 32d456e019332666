// The one way Ingot runs git: argument arrays (never a shell), a fixed environment that ignores
// the machine's git configuration, a timeout, and failures that carry git's own stderr. User
// values (refs, paths, revisions) reach git only through the checks below and after
// `--end-of-options` (or `--` for paths), so none can be read as an option.
import { spawn, type ChildProcessByStdio } from 'node:child_process'
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

export interface RunGitOptions {
  /** The repository (its .git directory, or a bare repository); omitted for commands such as init. */
  gitDir?: string
  timeoutMs?: number
  env?: Record<string, string>
  /** Written to git's standard input. */
  input?: string | Buffer
  /** Kills git when aborted (a job's time limit, a shutdown). */
  signal?: AbortSignal
}

function gitArgs(args: readonly string[], options: RunGitOptions): string[] {
  return options.gitDir === undefined ? [...args] : ['--git-dir', options.gitDir, ...args]
}

/** Runs git to completion and returns its stdout as bytes; a non-zero exit is a GitError. */
export function runGitBuffer(args: readonly string[], options: RunGitOptions = {}): Promise<Buffer> {
  const fullArgs = gitArgs(args, options)
  return new Promise((resolve, reject) => {
    const child = spawn('git', fullArgs, {
      env: { ...GIT_ENV, ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
    countGitProcess(child, args)
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out))
      else reject(new GitError(fullArgs, code, Buffer.concat(err).toString('utf8')))
    })
    if (options.input !== undefined && child.stdin !== null) {
      child.stdin.on('error', () => {}) // git may exit before reading all its input; its exit code tells
      child.stdin.end(options.input)
    }
  })
}

/** Runs git to completion and returns its stdout as text. */
export async function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<string> {
  return (await runGitBuffer(args, options)).toString('utf8')
}

export type GitProcess = ChildProcessByStdio<Writable, Readable, Readable>

/**
 * Starts git with its streams open, for output too large to hold (archives, packs, raw blobs)
 * and for protocols. The caller consumes stdout and handles exit; stderr is collected into
 * `stderrText()` for error reports.
 */
export function spawnGit(args: readonly string[], options: Omit<RunGitOptions, 'input'> & { extraFds?: number } = {}) {
  const fullArgs = gitArgs(args, options)
  const extra = Array.from({ length: options.extraFds ?? 0 }, () => 'pipe' as const)
  const child = spawn('git', fullArgs, {
    env: { ...GIT_ENV, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe', ...extra],
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  }) as GitProcess
  countGitProcess(child, args)
  const err: Buffer[] = []
  child.stderr.on('data', (chunk: Buffer) => { if (err.length < 64) err.push(chunk) })
  return { child, args: fullArgs, stderrText: () => Buffer.concat(err).toString('utf8') }
}

/** A full or abbreviated object id. */
const OBJECT_ID = /^[0-9a-f]{4,64}$/i

export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value)
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
