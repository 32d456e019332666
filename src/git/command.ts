// The one way Ingot runs git: argument arrays (never a shell), a fixed environment that ignores
// the machine's git configuration, a timeout, and failures that carry git's own stderr.
import { spawn } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'

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
}

export interface RunGitOptions {
  /** The repository (its .git directory, or a bare repository); omitted for commands such as init. */
  gitDir?: string
  timeoutMs?: number
  env?: Record<string, string>
}

/** Runs git to completion and returns its stdout; a non-zero exit is a GitError. */
export function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<string> {
  const fullArgs = options.gitDir === undefined ? [...args] : ['--git-dir', options.gitDir, ...args]
  return new Promise((resolve, reject) => {
    const child = spawn('git', fullArgs, {
      env: { ...GIT_ENV, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'))
      else reject(new GitError(fullArgs, code, Buffer.concat(err).toString('utf8')))
    })
  })
}
