// Repositories for the git benchmarks, made with `git fast-import` from a generated stream:
//   S  200 commits over 300 files
//   M  20,000 commits over 5,000 files, repacked with bitmaps (the size that makes clones matter)
// Each ends up as a maintained server repository does: one pack, and a commit-graph with
// changed-path filters (which Ingot's post-push job keeps current).
//   D  one directory of 2,000 entries
// The content is deterministic, so every run measures the same repositories.
import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { GIT_ENV, runGit } from '../src/git/command.js'
import { log, repoRoot } from './harness.js'

export interface FixtureSpec {
  commits: number
  files: number
  /** Directory the files live in ('' for the root). */
  directory: string
  /** Files each later commit changes. */
  changesPerCommit: number
  bitmaps: boolean
}

/** Bump when createFixture makes repositories differently, so kept fixtures are made again. */
export const FIXTURE_VERSION = 2

export const FIXTURES = {
  S: { commits: 200, files: 300, directory: 'src', changesPerCommit: 2, bitmaps: false },
  M: { commits: 20_000, files: 5_000, directory: 'src', changesPerCommit: 3, bitmaps: true },
  D: { commits: 1, files: 2_000, directory: 'big', changesPerCommit: 0, bitmaps: false },
} satisfies Record<string, FixtureSpec>

export type FixtureName = keyof typeof FIXTURES

/** A small deterministic pseudo-random sequence, so fixtures are the same every run. */
function sequence(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    return state
  }
}

function fileContent(file: number, version: number): string {
  const lines: string[] = []
  for (let i = 0; i < 24; i++) lines.push(`// file ${file} version ${version} line ${i}: ${'x'.repeat((file * 7 + i * 3) % 50)}`)
  return `${lines.join('\n')}\n`
}

function* importStream(spec: FixtureSpec): Generator<string> {
  const next = sequence(42)
  const path = (file: number) => `${spec.directory === '' ? '' : `${spec.directory}/`}file-${String(file).padStart(5, '0')}.txt`
  const versions = new Array<number>(spec.files).fill(0)
  const time = 1_600_000_000
  for (let commit = 0; commit < spec.commits; commit++) {
    const message = commit === 0 ? 'Initial import\n' : `Change ${commit}\n\nTouches a few files.\n`
    let out = `commit refs/heads/master\nmark :${commit + 1}\n`
    out += `author Bench <bench@example.com> ${time + commit * 60} +0000\ncommitter Bench <bench@example.com> ${time + commit * 60} +0000\n`
    out += `data ${Buffer.byteLength(message)}\n${message}`
    if (commit > 0) out += `from :${commit}\n`
    const touched = commit === 0 ? Array.from({ length: spec.files }, (_, i) => i) : Array.from({ length: spec.changesPerCommit }, () => next() % spec.files)
    for (const file of touched) {
      versions[file] = commit
      const content = fileContent(file, commit)
      out += `M 100644 inline ${path(file)}\ndata ${Buffer.byteLength(content)}\n${content}`
    }
    yield `${out}\n`
  }
}

/** Creates the bare repository `dir` from the spec (replacing what is there). */
export async function createFixture(dir: string, spec: FixtureSpec): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true })
  await runGit(['init', '--bare', '--quiet', '--initial-branch=master', dir])
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['--git-dir', dir, 'fast-import', '--quiet'], { env: GIT_ENV, stdio: ['pipe', 'ignore', 'inherit'] })
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited with ${code}`))))
    const chunks = importStream(spec)
    const write = () => {
      for (let part = chunks.next(); !part.done; part = chunks.next()) {
        if (!child.stdin.write(part.value)) return void child.stdin.once('drain', write)
      }
      child.stdin.end()
    }
    write()
  })
  await runGit(['repack', '-a', '-d', '-q', ...(spec.bitmaps ? ['--write-bitmap-index'] : [])], { gitDir: dir, timeoutMs: 600_000 })
  await runGit(['commit-graph', 'write', '--reachable', '--changed-paths', '--split'], { gitDir: dir, timeoutMs: 600_000 })
}

/** The fixtures, made once and kept in .bench/fixtures (stamped with their spec and FIXTURE_VERSION) across runs. */
export async function ensureFixtures(): Promise<Record<FixtureName, string>> {
  const dir = path.join(repoRoot, '.bench', 'fixtures')
  await fs.mkdir(dir, { recursive: true })
  const paths = {} as Record<FixtureName, string>
  for (const [name, spec] of Object.entries(FIXTURES) as [FixtureName, FixtureSpec][]) {
    const gitDir = path.join(dir, `${name}.git`)
    const stamp = path.join(dir, `${name}.json`)
    const made = JSON.stringify({ version: FIXTURE_VERSION, ...spec })
    if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== made) {
      log(`creating fixture ${name}: ${spec.commits} commits over ${spec.files} files${spec.commits > 1000 ? ' (about a minute)' : ''}`)
      await createFixture(gitDir, spec)
      writeFileSync(stamp, made)
    }
    paths[name] = gitDir
  }
  return paths
}
