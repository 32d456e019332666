// python-gitlab (Debian's python3-gitlab) scripts in test/compat/python/, run against a compat
// server. Without python-gitlab on the machine their tests are skipped, except in CI (.ci/run
// installs it).
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const PYTHON = '/usr/bin/python3'

/** A reason to skip (python-gitlab missing on a developer's machine), or false. */
export function pythonGitlabMissing(): string | false {
  try {
    execFileSync(PYTHON, ['-c', 'import gitlab'], { stdio: 'ignore' })
    return false
  } catch {
    if (process.env.CI === 'true') throw new Error('CI must have python-gitlab: apt-get install python3-gitlab')
    return 'python-gitlab is not installed (apt-get install python3-gitlab)'
  }
}

/** Runs python/<script> with the arguments; its standard output, or the test fails with its errors. */
export async function runPythonScript(script: string, args: readonly string[]): Promise<string> {
  const file = path.join(import.meta.dirname, 'python', script)
  const { stdout } = await run(PYTHON, [file, ...args], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
    assert.fail(`python-gitlab script ${script} failed:\n${err.stderr ?? err.message}`)
  })
  return stdout
}
