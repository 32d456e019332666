// The `ingot` command as the tests start it: the bundle `npm run build` makes (what `npm start`
// runs), built once per test process from the current sources. Starting src/main.ts through tsx
// costs about 4 s of CPU per process on a CI machine, the bundle well under 1 s, and the command,
// start-up, crash, runner and SSH tests start dozens of processes.
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '../..')

let bundle: string | null = null

/**
 * The script that runs `ingot`: this test process's bundle of src/main.ts, built at the first call
 * (a second or two, once). It lies in dist/ beside the shipped one, so it finds package.json, the
 * checkout and node_modules as dist/main.js does; it and its chunks are removed when the process exits.
 */
export function ingotMain(): string {
  if (bundle !== null) return bundle
  const name = `test-${process.pid}-${randomBytes(4).toString('hex')}`
  const outfile = path.join(ROOT, 'dist', `${name}.js`)
  process.on('exit', () => {
    // The entry, and its chunks beside it (scripts/build.mjs): `<name>.<chunk>-<hash>.js`.
    for (const file of fs.readdirSync(path.join(ROOT, 'dist'))) {
      if (file.startsWith(`${name}.`)) fs.rmSync(path.join(ROOT, 'dist', file), { force: true })
    }
  })
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--outfile', outfile], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
  bundle = outfile
  return bundle
}

export interface NodeRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs `ingot <args>` with this environment to its end (a minute at most), `stdin` as its standard input. */
export function runIngot(args: readonly string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<NodeRun> {
  return runNode([ingotMain(), ...args], env, stdin)
}

/** Runs node on these arguments with this environment to its end (a minute at most), `stdin` as its standard input. */
export function runNode(args: readonly string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<NodeRun> {
  const child = spawn(process.execPath, args, { env, timeout: 60_000 })
  return new Promise((resolve, reject) => {
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8') })
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
    child.stdin.end(stdin)
  })
}
