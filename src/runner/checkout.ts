// The job's sources: the commit fetched with the job token into a fresh directory, as the
// original runner's "fetch" strategy on an empty build directory (init, fetch the refspecs at the
// job's depth, check out the sha). git runs outside the sandbox, before any of the job's code,
// with an environment of its own (no system or user configuration, no prompts, the job's empty
// home) and never again afterwards: a build directory the job has touched is never given to git.
import { spawn } from 'node:child_process'

export interface CheckoutOptions {
  /** The project directory on the host (empty). */
  dir: string
  repoUrl: string
  refspecs: readonly string[]
  depth: number
  sha: string
  /** An empty directory for git's HOME. */
  home: string
  signal: AbortSignal
  output(text: string): void
}

const FETCH_EVERYTHING = ['+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*']

export class CheckoutError extends Error {}

/** Checks the commit out; the paths git tracks in it (what `untracked` leaves out). */
export async function checkoutCommit(options: CheckoutOptions): Promise<Set<string>> {
  const git = (args: string[]) => runGitClient(options, args)
  const refspecs = options.refspecs.length > 0 ? options.refspecs : FETCH_EVERYTHING
  options.output(options.depth > 0 ? `Fetching changes with git depth set to ${options.depth}...\n` : 'Fetching changes...\n')
  await git(['init', '-q'])
  await git(['remote', 'add', 'origin', options.repoUrl])
  await git(['fetch', '-q', '--no-tags', ...(options.depth > 0 ? [`--depth=${options.depth}`] : []), 'origin', ...refspecs])
  options.output(`Checking out ${options.sha.slice(0, 8)}...\n`)
  await git(['checkout', '-f', '-q', options.sha])
  const listed = await git(['ls-files', '-z'])
  return new Set(listed.split('\0').filter((name) => name !== ''))
}

function runGitClient(options: CheckoutOptions, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-c', 'credential.helper=', '-c', 'core.hooksPath=/dev/null', ...args], {
      cwd: options.dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: options.home, LC_ALL: 'C',
        GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_ASKPASS: '/bin/false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: options.signal,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('error', (err) => reject(new CheckoutError(`git ${args[0]}: ${err.message}`)))
    child.on('close', (code) => {
      if (code === 0) resolve(stdout)
      // The URL carries the job token: never into the trace.
      else reject(new CheckoutError(`git ${args[0]} failed: ${redactUrls(stderr.trim()) || `exit ${code}`}`))
    })
  })
}

/** `text` with the credentials of its URLs hidden. */
export function redactUrls(text: string): string {
  return text.replace(/(\w+:\/\/)[^/@\s]+@/g, '$1[MASKED]@')
}
