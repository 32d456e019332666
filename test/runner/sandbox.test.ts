// The sandbox for real: bash under bubblewrap as the runner runs a job's step, and what the job
// can and cannot reach. The runner's machine here stands for Ingot's: a "data directory" file
// beside the job, a secret in the runner's environment.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { BubblewrapSandbox, NoSandbox, bubblewrapProblem, type JobDirs, type Sandbox } from '../../src/runner/sandbox.js'
import { runStep, stepScript } from '../../src/runner/shell.js'

let root: string
let dataFile: string

async function jobDirs(name: string): Promise<JobDirs> {
  const dirs = { builds: path.join(root, name, 'builds'), tmp: path.join(root, name, 'tmp'), home: path.join(root, name, 'home') }
  for (const dir of Object.values(dirs)) await fs.mkdir(dir, { recursive: true })
  return dirs
}

async function run(sandbox: Sandbox, commands: string[], options: { timeoutMs?: number; signal?: AbortSignal; name?: string } = {}) {
  const dirs = await jobDirs(options.name ?? `job-${Math.random().toString(36).slice(2)}`)
  const inside = sandbox.inside(dirs)
  let output = ''
  const result = await runStep({
    sandbox, dirs, cwd: inside.builds, env: { PATH: '/usr/bin:/bin', HOME: inside.home, JOB_VARIABLE: 'visible' }, commands, name: 'script',
    timeoutMs: options.timeoutMs ?? 20_000, signal: options.signal ?? new AbortController().signal, output: (chunk) => { output += chunk.toString() },
  })
  return { ...result, output, dirs }
}

describe('runner sandbox (bubblewrap)', () => {
  const sandbox = new BubblewrapSandbox()

  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-sandbox-test-'))
    dataFile = path.join(root, 'data', 'ingot.sqlite3')
    await fs.mkdir(path.dirname(dataFile))
    await fs.writeFile(dataFile, 'the database')
    process.env.INGOT_SANDBOX_TEST_SECRET = 'runner-secret-value'
  })
  after(async () => {
    delete process.env.INGOT_SANDBOX_TEST_SECRET
    await fs.rm(root, { recursive: true, force: true })
  })

  it('works on this machine', async () => {
    assert.equal(await bubblewrapProblem(), null)
  })

  it('runs the commands in bash, each echoed, and lets the job write its build directory', async () => {
    const result = await run(sandbox, ['echo built > result.txt', 'cat result.txt', 'echo "$JOB_VARIABLE"'])
    assert.equal(result.outcome, 'success')
    assert.match(result.output, /\$ echo built > result\.txt/)
    assert.match(result.output, /^built$/m)
    assert.match(result.output, /^visible$/m)
    assert.equal(await fs.readFile(path.join(result.dirs.builds, 'result.txt'), 'utf8'), 'built\n')
  })

  it('shows nothing of the host beyond the system: not the data directory, nor the runner\'s environment', async () => {
    const result = await run(sandbox, [
      `test ! -e ${dataFile} && echo "no data file"`,
      `ls ${root} 2>&1 || echo "no runner directory"`,
      'env | grep -c INGOT_SANDBOX_TEST_SECRET || echo "no secret"',
      'test -z "$INGOT_SANDBOX_TEST_SECRET" && echo "empty secret"',
    ])
    assert.equal(result.outcome, 'success', result.output)
    assert.match(result.output, /^no data file$/m)
    assert.match(result.output, /^no runner directory$/m)
    assert.match(result.output, /^no secret$/m)
    assert.match(result.output, /^empty secret$/m)
    assert.doesNotMatch(result.output, /runner-secret-value|the database/)
  })

  it('keeps the system read-only and its secrets out', async () => {
    const result = await run(sandbox, ['touch /usr/sandbox-test 2>&1 || echo "usr is read-only"', 'touch /etc/sandbox-test 2>&1 || echo "etc is read-only"', 'test -s /etc/shadow || echo "no shadow"'])
    assert.equal(result.outcome, 'success', result.output)
    assert.match(result.output, /^usr is read-only$/m)
    assert.match(result.output, /^etc is read-only$/m)
    assert.match(result.output, /^no shadow$/m)
    await assert.rejects(fs.access('/usr/sandbox-test'))
  })

  it('stops at the first failing command, with its exit status', async () => {
    const result = await run(sandbox, ['echo before', 'exit 3', 'echo never'])
    assert.equal(result.outcome, 'failed')
    assert.equal(result.exitCode, 3)
    assert.match(result.output, /^before$/m)
    assert.doesNotMatch(result.output, /^never$/m)
  })

  it('fails a pipeline whose first command fails (pipefail)', async () => {
    const result = await run(sandbox, ['false | cat', 'echo never'])
    assert.equal(result.outcome, 'failed')
    assert.doesNotMatch(result.output, /^never$/m)
  })

  it('kills the whole step, background processes too, at its time limit', async () => {
    const started = Date.now()
    const result = await run(sandbox, ['sleep 30 &', 'sleep 30'], { timeoutMs: 500 })
    assert.equal(result.outcome, 'timeout')
    assert.ok(Date.now() - started < 5000)
  })

  it('stops when aborted (a canceled job)', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 300)
    const result = await run(sandbox, ['echo started', 'sleep 30'], { signal: controller.signal })
    assert.equal(result.outcome, 'aborted')
    assert.match(result.output, /^started$/m)
  })
})

describe('runner without a sandbox (INGOT_RUNNER_UNSANDBOXED)', () => {
  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-sandbox-test-'))
  })
  after(() => fs.rm(root, { recursive: true, force: true }))

  it('runs the commands in the host directory, with only the given environment', async () => {
    process.env.INGOT_SANDBOX_TEST_SECRET = 'runner-secret-value'
    try {
      const result = await run(new NoSandbox(), ['pwd', 'echo "secret=[$INGOT_SANDBOX_TEST_SECRET]"'])
      assert.equal(result.outcome, 'success')
      assert.match(result.output, new RegExp(`^${result.dirs.builds}$`, 'm'))
      assert.match(result.output, /^secret=\[\]$/m)
    } finally {
      delete process.env.INGOT_SANDBOX_TEST_SECRET
    }
  })
})

describe('step scripts', () => {
  it('echo each command quoted so that the echo itself runs nothing', () => {
    const script = stepScript(["echo 'a' $(whoami) \\ done"])
    assert.match(script, /^set -eo pipefail$/m)
    assert.ok(script.includes("echo $'\\x1b[32;1m$ echo \\'a\\' $(whoami) \\\\ done\\x1b[0;m'"), script)
  })
})
