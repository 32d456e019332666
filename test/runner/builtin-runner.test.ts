// `npm start` runs CI with no set-up: `ingot web` (a real process, on a fresh data directory)
// starts its built-in runner as a child, which registers itself as an instance runner; a CI file
// pushed with git then runs to success. The child is started again when it dies, and stops with
// the server.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { createTestDatabase, testDatabaseServer } from '../helpers/app.js'
import { until } from '../helpers/jobs.js'
import { freePort } from '../helpers/ports.js'
import { ingotMain } from '../helpers/ingot-command.js'

const execFileAsync = promisify(execFile)
const ROOT_TOKEN = 'builtin-runner-test-root-token'

/** The pids of processes whose parent is `parent` and whose command line runs `ingot runner`. */
async function runnerChildren(parent: number): Promise<number[]> {
  const found: number[] = []
  for (const pid of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    const [cmdline, stat] = await Promise.all([fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''), fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')])
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (ppid === parent && cmdline.split('\0').includes('runner')) found.push(Number(pid))
  }
  return found
}

describe('the built-in runner of ingot web', () => {
  let dir: string
  let database: { url: string; drop(): Promise<void> } | null
  let web: ChildProcess
  let exited: Promise<number | null>
  let output = ''
  let url: string

  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${url}/api/v4${route}`, {
      method, headers: { 'private-token': ROOT_TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text), text }
  }

  const git = (args: string[], cwd: string) => execFileAsync('git', ['-c', 'credential.helper=', ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: 'Pusher', GIT_AUTHOR_EMAIL: 'pusher@example.com', GIT_COMMITTER_NAME: 'Pusher', GIT_COMMITTER_EMAIL: 'pusher@example.com',
    },
  })

  /** Pushes `ciFile` as a new project's first commit; the pipeline's jobs' traces once it finished. */
  const pushAndRun = async (name: string, ciFile: string) => {
    const project = await api('POST', '/projects', { name })
    assert.equal(project.status, 201, project.text)
    const work = path.join(dir, name)
    await fs.mkdir(work)
    await git(['init', '-q', '-b', 'master'], work)
    await fs.writeFile(path.join(work, '.gitlab-ci.yml'), ciFile)
    await git(['add', '.gitlab-ci.yml'], work)
    await git(['commit', '-q', '-m', 'Add CI'], work)
    const remote = new URL(`${url}/${project.body.path_with_namespace}.git`)
    remote.username = 'root'
    remote.password = ROOT_TOKEN
    await git(['push', '-q', remote.toString(), 'master'], work)
    let pipeline: { id: number; status: string } | undefined
    await until(async () => {
      pipeline = (await api('GET', `/projects/${project.body.id}/pipelines`)).body?.[0]
      return pipeline !== undefined && ['success', 'failed', 'canceled'].includes(pipeline.status)
    }, `the pipeline of ${name} finished`, 60_000)
    const jobs = (await api('GET', `/projects/${project.body.id}/pipelines/${pipeline!.id}/jobs`)).body as { id: number }[]
    const traces = await Promise.all(jobs.map(async (job) => (await fetch(`${url}/api/v4/projects/${project.body.id}/jobs/${job.id}/trace`, { headers: { 'private-token': ROOT_TOKEN } })).text()))
    return { status: pipeline!.status, traces }
  }

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-builtin-runner-'))
    const server = testDatabaseServer()
    database = server === null ? null : await createTestDatabase(server)
    const port = await freePort()
    url = `http://127.0.0.1:${port}`
    web = spawn(process.execPath, [ingotMain(), 'web'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin', INGOT_DATA_DIR: path.join(dir, 'data'), INGOT_DATABASE_URL: database?.url ?? '',
        INGOT_PORT: String(port), INGOT_SSH_PORT: '0', INGOT_EXTERNAL_URL: url, INGOT_ROOT_PASSWORD: 'root-password-for-tests', INGOT_ROOT_TOKEN: ROOT_TOKEN,
        INGOT_LOG_FORMAT: 'json',
        // On by default with SQLite only; PostgreSQL runs of this suite ask for it.
        ...(database === null ? {} : { INGOT_BUILTIN_RUNNER: 'true' }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    web.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString() })
    web.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString() })
    exited = new Promise((resolve) => web.once('exit', (code) => resolve(code)))
    await until(() => /"name":"runner".*"msg":"runner started"/.test(output), 'the built-in runner started', 60_000)
  })

  after(async () => {
    web.kill('SIGTERM')
    assert.equal(await exited, 0, output)
    assert.deepEqual(await runnerChildren(web.pid!), [])
    await fs.rm(dir, { recursive: true, force: true })
    await database?.drop()
  })

  it('registers as an instance runner in a directory of the data directory, and runs a pushed CI file', async () => {
    const saved = path.join(dir, 'data', 'builtin-runner', 'runner.json')
    assert.equal((await fs.stat(saved)).mode & 0o777, 0o600)
    const runners = await api('GET', '/runners/all')
    assert.equal(runners.status, 200, runners.text)
    assert.deepEqual(runners.body.map((runner: { description: string; is_shared: boolean }) => [runner.description, runner.is_shared]), [['ingot built-in runner', true]])
    const run = await pushAndRun('first', 'hello:\n  script: [ "echo hi from $CI_PROJECT_PATH" ]\n')
    assert.equal(run.status, 'success', run.traces.join('\n'))
    assert.match(run.traces[0]!, /^hi from root\/first$/m)
  })

  it('is started again when it dies, and keeps its registration', async () => {
    const [first] = await runnerChildren(web.pid!)
    assert.ok(first !== undefined)
    process.kill(first, 'SIGKILL')
    let second: number | undefined
    await until(async () => {
      second = (await runnerChildren(web.pid!))[0]
      return second !== undefined && second !== first && /"msg":"using the saved runner token"/.test(output)
    }, 'the runner started again', 30_000)
    const run = await pushAndRun('second', 'again:\n  script: [ "echo still running" ]\n')
    assert.equal(run.status, 'success', run.traces.join('\n'))
    assert.equal((await api('GET', '/runners/all')).body.length, 1)
  })
})
