// A test app on a real socket (127.0.0.1, a free port) and the real `git` command line as its
// client, in temporary directories, with no configuration of the machine or the user: what a
// person's `git clone`/`push` does against Ingot, credentials included.
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { TestApp } from './app.js'

export interface GitResult {
  code: number
  stdout: string
  stderr: string
}

export interface Credentials {
  username: string
  password: string
}

export interface GitClient {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string
  /** A scratch directory, removed by close(). */
  dir: string
  /** The repository URL of a project path, with credentials when given. */
  url(fullPath: string, credentials?: Credentials): string
  /** Runs git (never throws: the result tells); `cwd` defaults to the scratch directory. */
  git(args: readonly string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<GitResult>
  /** Like git(), but a failure throws with git's output. */
  ok(args: readonly string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<string>
  close(): Promise<void>
}

/** Starts t's app on a socket (`port`, a free one when 0: for URLs the app itself hands out, its INGOT_EXTERNAL_URL's); t.close() stops it. */
/** The environment a test's git client runs in: its own HOME, nothing of the machine's or the user's configuration, fixed identities. */
export function gitClientEnvironment(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Test Pusher',
    GIT_AUTHOR_EMAIL: 'pusher@example.com',
    GIT_COMMITTER_NAME: 'Test Pusher',
    GIT_COMMITTER_EMAIL: 'pusher@example.com',
  }
}

export async function startGitClient(t: TestApp, port = 0): Promise<GitClient> {
  const address = await t.app.listen({ host: '127.0.0.1', port })
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-git-client-'))
  const home = path.join(dir, '.home')
  await fs.mkdir(home)
  const env = gitClientEnvironment(home)
  const git: GitClient['git'] = (args, options = {}) => new Promise((resolve) => {
    execFile('git', ['-c', 'init.defaultBranch=master', '-c', 'credential.helper=', ...args], {
      cwd: options.cwd ?? dir, env: { ...env, ...options.env }, maxBuffer: 64 * 1024 * 1024,
    }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
      resolve({ code, stdout, stderr })
    })
  })
  return {
    baseUrl: address,
    dir,
    url(fullPath, credentials) {
      const url = new URL(`${address}/${fullPath}.git`)
      if (credentials !== undefined) {
        url.username = encodeURIComponent(credentials.username)
        url.password = encodeURIComponent(credentials.password)
      }
      return url.toString()
    },
    git,
    async ok(args, options) {
      const result = await git(args, options)
      if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed (${result.code}):\n${result.stderr}`)
      return result.stdout
    },
    async close() {
      await fs.rm(dir, { recursive: true, force: true })
    },
  }
}
