// A server killed with SIGKILL in the middle of a push, a merge and a file commit, then started
// again: every repository passes `git fsck`, each branch is where one side of the write left it,
// the merge request agrees with its target branch once stuck merges are recovered, and the server
// takes the same write again. The server is the real `ingot web` in a child process, on the test
// app's database and data directory; the kills land at several points of each write.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildTestApp, ROOT_PASSWORD, ROOT_TOKEN, type TestApp } from './helpers/app.js'
import { makeProject } from './helpers/factories.js'
import { commitFiles } from './helpers/git.js'
import { makeMergeRequest } from './helpers/merge-requests.js'
import { until } from './helpers/jobs.js'
import { projectFullPath } from './helpers/projects.js'
import { recoverStuckMerges, STUCK_AFTER_MS } from '../src/services/merge-requests/recover-stuck-merges.js'
import type { ProjectRow } from '../src/db/schema.js'
import { freePort } from './helpers/ports.js'
import { ingotMain } from './helpers/ingot-command.js'

interface RunningServer {
  child: ChildProcess
  url: string
  exited: Promise<unknown>
}

/** Where each write is killed, in milliseconds after it was sent. */
const KILL_DELAYS_MS = [10, 50]

describe('a server killed in the middle of a write', () => {
  let t: TestApp
  let work: string
  let project: ProjectRow
  let server: RunningServer | null = null

  async function startServer(): Promise<RunningServer> {
    const port = await freePort()
    const child = spawn(process.execPath, [ingotMain(), 'web'], {
      env: {
        ...process.env, INGOT_DATA_DIR: t.ctx.config.dataDir, INGOT_DATABASE_URL: t.ctx.config.databaseUrl,
        INGOT_ROOT_PASSWORD: ROOT_PASSWORD, INGOT_PORT: String(port), INGOT_SSH_PORT: '0', INGOT_LOG_LEVEL: 'warn', INGOT_LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await until(() => output.includes('Ingot is serving'), 'ingot web started', 60_000)
    server = { child, url: `http://127.0.0.1:${port}`, exited }
    return server
  }

  async function killServer(): Promise<void> {
    if (server === null) return
    server.child.kill('SIGKILL')
    await server.exited
    server = null
  }

  const git = (args: readonly string[], cwd = work) => new Promise<{ code: number; stderr: string; stdout: string }>((resolve) => {
    execFile('git', ['-c', 'credential.helper=', ...args], {
      cwd, maxBuffer: 64 * 1024 * 1024,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0',
        GIT_AUTHOR_NAME: 'Crash', GIT_AUTHOR_EMAIL: 'crash@example.com', GIT_COMMITTER_NAME: 'Crash', GIT_COMMITTER_EMAIL: 'crash@example.com',
      },
    }, (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }))
  })

  const api = (method: string, urlPath: string, body?: unknown) => fetch(`${server!.url}/api/v4${urlPath}`, {
    method, headers: { 'private-token': ROOT_TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

  const repoPath = () => t.ctx.repositories.repositoryPath(project.id)
  const tipOf = (branch: string) => t.ctx.repositories.open(project.id).resolveCommit(`refs/heads/${branch}`)

  async function assertRepositoryIntact(): Promise<void> {
    const fsck = await git(['--git-dir', repoPath(), 'fsck', '--no-progress'])
    assert.equal(fsck.code, 0, fsck.stderr)
  }

  before(async () => {
    t = await buildTestApp()
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-crash-'))
    project = await makeProject(t, null)
    await commitFiles(t, project.id, { 'README.md': '# crash\n' })
  })
  after(async () => {
    await killServer()
    await t.close()
    await fs.rm(work, { recursive: true, force: true })
  })

  it('keeps the repository whole when a push is killed while its pack arrives, and takes it again', async () => {
    await startServer()
    const remote = new URL(`${server!.url}/${await projectFullPath(t, project)}.git`)
    remote.username = 'root'
    remote.password = ROOT_TOKEN
    const clone = path.join(work, 'clone')
    assert.equal((await git(['clone', '--quiet', remote.toString(), clone])).code, 0)
    // Incompressible, so the pack takes a while to arrive.
    await fs.writeFile(path.join(clone, 'large.bin'), randomBytes(24 * 1024 * 1024))
    assert.equal((await git(['add', 'large.bin'], clone)).code, 0)
    assert.equal((await git(['commit', '--quiet', '-m', 'Large'], clone)).code, 0)
    const before = await tipOf('master')

    const push = git(['push', '--quiet', 'origin', 'master'], clone)
    // git receives into a quarantine directory; the kill lands while it is there.
    const quarantined = async () => (await fs.readdir(path.join(repoPath(), 'objects'))).some((name) => name.startsWith('tmp_objdir-incoming-'))
    await until(quarantined, 'the pack arriving', 30_000)
    await killServer()
    assert.notEqual((await push).code, 0)
    assert.equal(await tipOf('master'), before)
    await assertRepositoryIntact()

    // A new server takes the same push.
    await startServer()
    remote.host = new URL(server!.url).host
    assert.equal((await git(['push', '--quiet', remote.toString(), 'master'], clone)).code, 0)
    assert.notEqual(await tipOf('master'), before)
    await assertRepositoryIntact()
    await killServer()
  })

  it('leaves each killed merge merged or open, agreeing with its target branch, and never locked', async () => {
    for (const delay of KILL_DELAYS_MS) {
      const mr = await makeMergeRequest(t, project, null)
      await startServer()
      const merging = api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}/merge`).catch(() => null)
      await sleep(delay)
      await killServer()
      await merging

      await recoverStuckMerges(t.ctx, Date.now() + STUCK_AFTER_MS + 1)
      const row = await t.ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', mr.id).executeTakeFirstOrThrow()
      const tip = (await tipOf('master'))!
      const landed = await t.ctx.repositories.open(project.id).isAncestor(mr.sha!, tip)
      assert.ok(row.state === 'merged' || row.state === 'opened', `killed after ${delay} ms: ${row.state}`)
      assert.equal(row.state === 'merged', landed, `killed after ${delay} ms: ${row.state}, merge ${landed ? 'on' : 'not on'} master`)
      await assertRepositoryIntact()
    }
  })

  it('leaves each killed file commit whole or absent, and takes it again', async () => {
    for (const delay of KILL_DELAYS_MS) {
      const before = await tipOf('master')
      const file = `file-${delay}.txt`
      await startServer()
      const committing = api('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'master', commit_message: `Add ${file}`, actions: [{ action: 'create', file_path: file, content: 'written\n' }],
      }).catch(() => null)
      await sleep(delay)
      await killServer()
      await committing

      const tip = await tipOf('master')
      if (tip !== before) {
        const commit = await t.ctx.repositories.open(project.id).readCommit(tip!)
        assert.deepEqual(commit?.parents, [before], `killed after ${delay} ms: master moved to a commit not made on its tip`)
        assert.equal(commit?.message.trim(), `Add ${file}`)
      }
      await assertRepositoryIntact()
      // A new server takes the same commit, or answers that the file exists: no state stands in the way.
      await startServer()
      const again = await api('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'master', commit_message: `Add ${file}`, actions: [{ action: 'create', file_path: file, content: 'written\n' }],
      })
      assert.equal(again.status, tip === before ? 201 : 400, await again.text())
      await killServer()
    }
  })
})
