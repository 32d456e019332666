// Limits of git over HTTP, with the real `git` command line against Ingot on a real socket: the
// number of git services at once from one address (429) and in all (503), both with Retry-After
// and a message git shows its user; the idle limit that stops a service nobody feeds (and gives
// its place back); the push size setting, refused by git with its own words. Runs on SQLite, and
// on PostgreSQL when INGOT_TEST_DATABASE_URL is set.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import http from 'node:http'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { projectFullPath } from '../helpers/projects.js'

const PASSWORD = 'password1234'

interface Held {
  /** The answer's status, once it came. */
  status: Promise<number>
  /** Resolves when the server ended the exchange (answer ended or connection closed). */
  ended: Promise<void>
  abort(): void
}

describe('git smart HTTP limits', () => {
  let t: TestApp
  let client: GitClient
  let owner: TestUser
  let fullPath: string
  let projectId: number

  before(async () => {
    t = await buildTestApp({
      env: { INGOT_GIT_SERVICES_MAX: '2', INGOT_GIT_SERVICES_PER_CLIENT: '1', INGOT_GIT_SERVICE_IDLE_TIMEOUT_MS: '1500' },
    })
    client = await startGitClient(t)
    owner = await makeUser(t, { password: PASSWORD })
    const project = await makeProject(t, owner, { visibility: 'public' })
    await commitFiles(t, project.id, { 'README.md': '# limits\n' })
    fullPath = await projectFullPath(t, project)
    projectId = project.id
  })
  after(async () => {
    await client.close()
    await t.close()
  })

  /** An upload-pack request from `from` whose body never comes: git waits for it, holding its place. */
  function hold(from: string): Held {
    const url = new URL(`${client.baseUrl}/${fullPath}.git/git-upload-pack`)
    const req = http.request(url, {
      method: 'POST', localAddress: from, agent: false,
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'transfer-encoding': 'chunked' },
    })
    req.on('error', () => {})
    req.flushHeaders()
    let ended!: () => void
    const status = new Promise<number>((resolve) => {
      req.on('response', (res) => {
        resolve(res.statusCode ?? 0)
        res.resume()
        res.on('close', () => ended())
      })
    })
    return { status, ended: new Promise<void>((resolve) => { ended = resolve; req.on('close', resolve) }), abort: () => req.destroy() }
  }

  /** GET info/refs from `from`: status, Retry-After, content type and body. */
  function advertise(from: string): Promise<{ status: number; retryAfter: string | undefined; type: string | undefined; body: string }> {
    const url = new URL(`${client.baseUrl}/${fullPath}.git/info/refs?service=git-upload-pack`)
    return new Promise((resolve, reject) => {
      http.get(url, { localAddress: from, agent: false }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => { body += chunk })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], type: res.headers['content-type'], body }))
      }).on('error', reject)
    })
  }

  /** Waits until the server took the held request (git started for it). */
  const started = async () => new Promise((resolve) => setTimeout(resolve, 300))

  it('answers 429 past the limit per address and 503 past the limit in all, with Retry-After and words git shows', async () => {
    const first = hold('127.0.0.1')
    await started()
    const busyClient = await advertise('127.0.0.1')
    assert.equal(busyClient.status, 429)
    assert.equal(busyClient.retryAfter, '10')
    assert.match(busyClient.type ?? '', /^text\/plain/)
    assert.match(busyClient.body, /Too many git operations from your address/)
    const shown = await client.git(['ls-remote', client.url(fullPath)])
    assert.notEqual(shown.code, 0)
    assert.match(shown.stderr, /Too many git operations from your address/)
    assert.equal((await advertise('127.0.0.2')).status, 200, 'another address still has room')

    const second = hold('127.0.0.2')
    await started()
    const busyServer = await advertise('127.0.0.3')
    assert.equal(busyServer.status, 503)
    assert.equal(busyServer.retryAfter, '10')
    assert.match(busyServer.body, /The server is running too many git operations/)

    first.abort()
    second.abort()
    await Promise.all([first.ended, second.ended])
    // The places come back once git is gone.
    for (let i = 0; i < 50 && (await advertise('127.0.0.1')).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal((await advertise('127.0.0.1')).status, 200)
    assert.equal((await advertise('127.0.0.3')).status, 200)
  })

  it('stops a git service that moves no data for the idle limit, and gives its place back', async () => {
    const idle = hold('127.0.0.4')
    const startedAt = Date.now()
    await idle.ended
    assert.ok(Date.now() - startedAt >= 1000, 'not before the idle limit')
    for (let i = 0; i < 50 && (await advertise('127.0.0.4')).status !== 200; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal((await advertise('127.0.0.4')).status, 200)
  })

  it('refuses a push over receive_max_input_size with git\'s own message, and takes it with the limit off', async () => {
    const credentials = { username: owner.user.username, password: PASSWORD }
    const dir = path.join(client.dir, 'big')
    await client.ok(['clone', client.url(fullPath, credentials), dir])
    // Random bytes: a pack cannot make them smaller than the limit. (The refused push also left
    // its connection waiting for the rest of its body, so that closing the server hung, once.)
    await fs.writeFile(path.join(dir, 'big.bin'), randomBytes(2 * 1024 * 1024))
    await client.ok(['add', 'big.bin'], { cwd: dir })
    await client.ok(['commit', '-q', '-m', 'Big file'], { cwd: dir })
    const repo = t.ctx.repositories.open(projectId)
    const before = await repo.resolveCommit('master')

    let res = await t.api('PUT', '/application/settings', { body: { receive_max_input_size: 1 } })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.receive_max_input_size, 1)
    const refused = await client.git(['push', 'origin', 'master'], { cwd: dir })
    assert.notEqual(refused.code, 0)
    assert.match(refused.stderr, /pack exceeds maximum allowed size/)
    assert.equal(await repo.resolveCommit('master'), before, 'the branch did not move')

    res = await t.api('PUT', '/application/settings', { body: { receive_max_input_size: 0 } })
    assert.equal(res.status, 200, res.text)
    await client.ok(['push', 'origin', 'master'], { cwd: dir })
    assert.notEqual(await repo.resolveCommit('master'), before)

    res = await t.api('PUT', '/application/settings', { body: { receive_max_input_size: -1 } })
    assert.equal(res.status, 400)
  })
})
