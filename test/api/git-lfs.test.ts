// Git LFS over HTTP with the real git-lfs client (Debian's): track, push, clone with smudge,
// fetch, refused credentials and pushes, locks; then the batch, object and locks APIs directly,
// their edge cases, and the LFS token of `git-lfs-authenticate` (lfsAuthenticateAnswer) as the
// HTTP side accepts it: for the LFS routes of its project only, and only while it lives.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { freePort } from '../helpers/ports.js'
import { makeRunner, requestJob, updateJob } from '../helpers/runners.js'
import { makeMember, makeProject, makeToken, makeUser, type TestUser } from '../helpers/factories.js'
import { DEVELOPER, MAINTAINER, REPORTER } from '../../src/policies/access-levels.js'
import { lfsAuthenticateAnswer } from '../../src/services/lfs/ssh-authenticate.js'
import { LFS_TOKEN_TTL_S, issueLfsToken } from '../../src/services/lfs/lfs-token.js'
import { lfsObjectBlobKey } from '../../src/services/lfs/lfs-objects.js'
import { localBlobRoot } from '../../src/storage/local-blob-storage.js'
import type { ProjectRow } from '../../src/db/schema.js'

const LFS_JSON = 'application/vnd.git-lfs+json'

function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`
}

function objectOf(content: Buffer): { oid: string; size: number } {
  return { oid: createHash('sha256').update(content).digest('hex'), size: content.length }
}

interface LfsResponse {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: any
}

describe('Git LFS over HTTP', () => {
  let t: TestApp
  let git: GitClient
  let developer: TestUser
  let reporter: TestUser
  let maintainer: TestUser
  let outsider: TestUser
  let project: ProjectRow
  let projectPath: string

  /** A request to the app, parsed as the LFS API answers. */
  async function lfs(method: string, url: string, options: { authorization?: string; body?: unknown; raw?: Buffer; headers?: Record<string, string> } = {}): Promise<LfsResponse> {
    const headers: Record<string, string> = { ...options.headers }
    if (options.authorization !== undefined) headers.authorization = options.authorization
    let payload: string | Buffer | undefined = options.raw
    if (options.body !== undefined) {
      headers['content-type'] = LFS_JSON
      payload = JSON.stringify(options.body)
    }
    const res = await t.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) })
    let body: unknown = res.rawPayload
    if (String(res.headers['content-type'] ?? '').startsWith(LFS_JSON)) body = JSON.parse(res.body)
    return { status: res.statusCode, headers: res.headers, body }
  }

  const as = (user: TestUser) => basic(user.user.username, user.token)
  const batchUrl = (fullPath: string) => `/${fullPath}.git/info/lfs/objects/batch`
  const objectUrl = (fullPath: string, oid: string, size?: number) => `/${fullPath}.git/gitlab-lfs/objects/${oid}${size === undefined ? '' : `/${size}`}`

  async function upload(fullPath: string, content: Buffer, authorization: string) {
    const { oid, size } = objectOf(content)
    return lfs('PUT', objectUrl(fullPath, oid, size), { authorization, raw: content, headers: { 'content-type': 'application/octet-stream' } })
  }

  async function lfsSize(projectId: number): Promise<number> {
    const row = await t.ctx.db.selectFrom('project_statistics').select('lfs_objects_size').where('project_id', '=', projectId).executeTakeFirstOrThrow()
    return Number(row.lfs_objects_size)
  }

  async function storedObject(oid: string) {
    return t.ctx.db.selectFrom('lfs_objects').selectAll().where('oid', '=', oid).executeTakeFirst()
  }

  before(async () => {
    const port = await freePort()
    t = await buildTestApp({ env: { INGOT_EXTERNAL_URL: `http://127.0.0.1:${port}`, INGOT_RUNNER_LONG_POLL_SECONDS: '0' } })
    git = await startGitClient(t, port)
    developer = await makeUser(t)
    reporter = await makeUser(t)
    maintainer = await makeUser(t)
    outsider = await makeUser(t)
    project = await makeProject(t, null)
    projectPath = `root/${project.path}`
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
    await commitFiles(t, project.id, { 'README.md': 'hello' })
    // git-lfs's filters and hooks, in the client's own (temporary) HOME.
    await git.ok(['lfs', 'install', '--skip-repo'])
  })
  after(async () => {
    await git?.close()
    await t?.close()
  })

  describe('with the git-lfs client', () => {
    const big = randomBytes(3 * 1024 * 1024 + 17)
    const credentials = (user: TestUser) => ({ username: user.user.username, password: user.token })

    it('tracks and pushes an object, which a clone then smudges', async () => {
      const work = path.join(git.dir, 'push')
      await git.ok(['clone', git.url(projectPath, credentials(developer)), work])
      await git.ok(['lfs', 'track', '*.bin'], { cwd: work })
      await fs.writeFile(path.join(work, 'big.bin'), big)
      await git.ok(['add', '.gitattributes', 'big.bin'], { cwd: work })
      await git.ok(['commit', '-m', 'big'], { cwd: work })
      await git.ok(['push', 'origin', 'master'], { cwd: work })

      const { oid, size } = objectOf(big)
      const row = await storedObject(oid)
      assert.equal(Number(row?.size), size)
      assert.equal(await lfsSize(project.id), size)
      assert.ok(await t.ctx.blobs.stat(lfsObjectBlobKey(oid)))

      // The reporter reads: the clone's checkout downloads the object.
      const clone = path.join(git.dir, 'clone')
      await git.ok(['clone', git.url(projectPath, credentials(reporter)), clone])
      assert.deepEqual(await fs.readFile(path.join(clone, 'big.bin')), big)
    })

    it('fetches an object a clone skipped, and says so for one the server does not have', async () => {
      const work = path.join(git.dir, 'skipped')
      await git.ok(['clone', git.url(projectPath, credentials(reporter)), work], { env: { GIT_LFS_SKIP_SMUDGE: '1' } })
      assert.match(await fs.readFile(path.join(work, 'big.bin'), 'utf8'), /^version https:\/\/git-lfs/)
      await git.ok(['lfs', 'pull'], { cwd: work })
      assert.deepEqual(await fs.readFile(path.join(work, 'big.bin')), big)

      // A pointer to an object nobody uploaded, pushed past git-lfs's pre-push hook.
      const missing = objectOf(randomBytes(100))
      const pusher = path.join(git.dir, 'pointer')
      await git.ok(['clone', git.url(projectPath, credentials(developer)), pusher])
      await fs.writeFile(path.join(pusher, 'missing.bin'), `version https://git-lfs.github.com/spec/v1\noid sha256:${missing.oid}\nsize ${missing.size}\n`)
      await git.ok(['add', 'missing.bin'], { cwd: pusher })
      await git.ok(['commit', '-m', 'pointer'], { cwd: pusher })
      await git.ok(['push', '--no-verify', 'origin', 'master'], { cwd: pusher })
      await git.ok(['pull'], { cwd: work, env: { GIT_LFS_SKIP_SMUDGE: '1' } })
      const fetch = await git.git(['lfs', 'fetch'], { cwd: work })
      assert.notEqual(fetch.code, 0)
      assert.match(fetch.stdout + fetch.stderr, /Object does not exist on the server/)
    })

    it('refuses wrong credentials', async () => {
      const work = path.join(git.dir, 'wrong')
      await git.ok(['clone', git.url(projectPath, credentials(reporter)), work], { env: { GIT_LFS_SKIP_SMUDGE: '1' } })
      const wrong = git.url(projectPath, { username: reporter.user.username, password: 'not-the-password' })
      await git.ok(['config', 'lfs.url', `${wrong}/info/lfs`], { cwd: work })
      const pull = await git.git(['lfs', 'pull'], { cwd: work })
      assert.notEqual(pull.code, 0)
      assert.match(pull.stderr, /Authentication required: HTTP Basic: Access denied/)
      assert.match(await fs.readFile(path.join(work, 'big.bin'), 'utf8'), /^version https:\/\/git-lfs/)
    })

    it('refuses a push of objects by a reader, and stores none of them', async () => {
      const work = path.join(git.dir, 'reporter-push')
      await git.ok(['clone', git.url(projectPath, credentials(reporter)), work], { env: { GIT_LFS_SKIP_SMUDGE: '1' } })
      const content = randomBytes(2048)
      await fs.writeFile(path.join(work, 'other.bin'), content)
      await git.ok(['add', 'other.bin'], { cwd: work })
      await git.ok(['commit', '-m', 'other'], { cwd: work })
      // (git push itself would stop at git's refusal; git lfs push sends the objects alone.)
      const push = await git.git(['lfs', 'push', 'origin', 'master'], { cwd: work })
      assert.notEqual(push.code, 0)
      assert.match(push.stderr, /Access forbidden\. Check your access level\./)
      assert.equal(await storedObject(objectOf(content).oid), undefined)
    })

    it('locks, lists and unlocks files with git lfs lock', async () => {
      const work = path.join(git.dir, 'push')
      const lock = await git.ok(['lfs', 'lock', 'big.bin'], { cwd: work })
      assert.match(lock, /Locked big\.bin/)
      const locks = await git.ok(['lfs', 'locks'], { cwd: work })
      assert.match(locks, new RegExp(`big\\.bin\\s+${developer.user.name}\\s+ID:\\d+`))

      // Another Developer cannot take it, nor remove it without force.
      const other = path.join(git.dir, 'other-locker')
      const second = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, second, DEVELOPER)
      await git.ok(['clone', git.url(projectPath, credentials(second)), other], { env: { GIT_LFS_SKIP_SMUDGE: '1' } })
      const taken = await git.git(['lfs', 'lock', 'big.bin'], { cwd: other })
      assert.notEqual(taken.code, 0)
      assert.match(taken.stderr, /already locked/)
      const refused = await git.git(['lfs', 'unlock', 'big.bin'], { cwd: other })
      assert.notEqual(refused.code, 0)

      assert.match(await git.ok(['lfs', 'unlock', 'big.bin'], { cwd: work }), /Unlocked big\.bin/)
      assert.equal((await git.ok(['lfs', 'locks'], { cwd: work })).trim(), '')
    })
  })

  describe('the batch API', () => {
    it('answers downloads with actions carrying the caller\'s credentials, and 404s per missing object', async () => {
      const content = randomBytes(64)
      assert.equal((await upload(projectPath, content, as(developer))).status, 200)
      const known = objectOf(content)
      const unknown = objectOf(randomBytes(64))
      const res = await lfs('POST', batchUrl(projectPath), {
        authorization: as(reporter),
        body: { operation: 'download', transfers: ['basic'], objects: [known, unknown, { oid: 'not-an-oid', size: 1 }, { oid: known.oid, size: -1 }] },
      })
      assert.equal(res.status, 200)
      assert.match(String(res.headers['content-type']), /^application\/vnd\.git-lfs\+json/)
      const [found, missing, badOid, badSize] = res.body.objects
      assert.deepEqual(found, {
        ...known,
        authenticated: true,
        actions: { download: { href: `${git.baseUrl}${objectUrl(projectPath, known.oid)}`, header: { Authorization: as(reporter) } } },
      })
      assert.deepEqual(missing, { ...unknown, error: { code: 404, message: "Object does not exist on the server or you don't have permissions to access it" } })
      assert.equal(badOid.error.code, 422)
      assert.equal(badSize.error.code, 422)
    })

    it('asks for uploads only of objects the project does not have, even when another project has them', async () => {
      const content = randomBytes(80)
      const elsewhere = await makeProject(t, null)
      assert.equal((await upload(`root/${elsewhere.path}`, content, basic('root', t.root.token))).status, 200)
      const object = objectOf(content)
      const first = await lfs('POST', batchUrl(projectPath), { authorization: as(developer), body: { operation: 'upload', objects: [object] } })
      assert.equal(first.status, 200)
      const actions = first.body.objects[0].actions
      assert.equal(actions.upload.href, `${git.baseUrl}${objectUrl(projectPath, object.oid, object.size)}`)
      assert.deepEqual(actions.upload.header, { Authorization: as(developer), 'Content-Type': 'application/octet-stream' })
      assert.equal(actions.verify.href, `${git.baseUrl}/${projectPath}.git/info/lfs/objects/verify`)
      // Until uploaded here, another project's object is not this one's.
      assert.equal((await lfs('GET', objectUrl(projectPath, object.oid), { authorization: as(developer) })).status, 404)
      const verifyBefore = await lfs('POST', `/${projectPath}.git/info/lfs/objects/verify`, { authorization: as(developer), body: object })
      assert.equal(verifyBefore.status, 404)

      const before = await lfsSize(project.id)
      assert.equal((await upload(projectPath, content, as(developer))).status, 200)
      assert.equal(await lfsSize(project.id), before + object.size)
      const second = await lfs('POST', batchUrl(projectPath), { authorization: as(developer), body: { operation: 'upload', objects: [object] } })
      assert.deepEqual(second.body.objects, [object])
      assert.equal((await lfs('POST', `/${projectPath}.git/info/lfs/objects/verify`, { authorization: as(developer), body: object })).status, 200)
      assert.equal((await lfs('POST', `/${projectPath}.git/info/lfs/objects/verify`, { authorization: as(developer), body: { ...object, size: object.size + 1 } })).status, 404)
      const download = await lfs('GET', objectUrl(projectPath, object.oid), { authorization: as(reporter) })
      assert.equal(download.status, 200)
      assert.equal(download.headers['content-type'], 'application/octet-stream')
      assert.deepEqual(download.body, content)
      const head = await lfs('HEAD', objectUrl(projectPath, object.oid), { authorization: as(reporter) })
      assert.equal(head.status, 200)
      assert.equal(head.headers['content-length'], String(object.size))
    })

    it('refuses requests without objects, unknown operations and bodies that are not JSON', async () => {
      const empty = await lfs('POST', batchUrl(projectPath), { authorization: as(developer), body: { operation: 'download', objects: [] } })
      assert.equal(empty.status, 404)
      assert.equal(empty.body.message, 'Not found.')
      const unknown = await lfs('POST', batchUrl(projectPath), { authorization: as(developer), body: { operation: 'delete', objects: [objectOf(Buffer.from('x'))] } })
      assert.equal(unknown.status, 403)
      const broken = await lfs('POST', batchUrl(projectPath), { authorization: as(developer), raw: Buffer.from('{"operation":'), headers: { 'content-type': LFS_JSON } })
      assert.equal(broken.status, 400)
      assert.equal(broken.body.message, 'The request body is not valid JSON.')
      const legacy = await lfs('POST', `/${projectPath}.git/info/lfs/objects`, { authorization: as(developer), body: {} })
      assert.equal(legacy.status, 501)
      assert.equal(legacy.body.message, 'Server supports batch API only, please update your Git LFS client to version 1.0.1 and up.')
    })

    it('hides private projects from outsiders, and asks anonymous callers for credentials', async () => {
      const object = objectOf(Buffer.from('secret'))
      const outsiderRes = await lfs('POST', batchUrl(projectPath), { authorization: as(outsider), body: { operation: 'download', objects: [object] } })
      assert.equal(outsiderRes.status, 404)
      assert.equal(outsiderRes.body.message, 'Not found.')
      assert.equal((await lfs('GET', objectUrl(projectPath, object.oid), { authorization: as(outsider) })).status, 404)
      const anonymous = await lfs('POST', batchUrl(projectPath), { body: { operation: 'download', objects: [object] } })
      assert.equal(anonymous.status, 401)
      assert.equal(anonymous.headers['lfs-authenticate'], 'Basic realm="Ingot"')
      assert.equal(anonymous.headers['www-authenticate'], 'Basic realm="Ingot"')
      const wrong = await lfs('POST', batchUrl(projectPath), { authorization: basic(developer.user.username, 'wrong'), body: { operation: 'download', objects: [object] } })
      assert.equal(wrong.status, 401)
      assert.equal((await lfs('POST', batchUrl('root/no-such-project'), { authorization: as(developer), body: { operation: 'download', objects: [object] } })).status, 404)
    })

    it('lets anyone download from a public project, and nobody anonymous upload', async () => {
      const open = await makeProject(t, null, { visibility: 'public' })
      const content = randomBytes(32)
      assert.equal((await upload(`root/${open.path}`, content, basic('root', t.root.token))).status, 200)
      const object = objectOf(content)
      const res = await lfs('POST', batchUrl(`root/${open.path}`), { body: { operation: 'download', objects: [object] } })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body.objects[0].actions.download.header, {})
      assert.deepEqual((await lfs('GET', objectUrl(`root/${open.path}`, object.oid))).body, content)
      assert.equal((await lfs('POST', batchUrl(`root/${open.path}`), { body: { operation: 'upload', objects: [object] } })).status, 401)
      // Signed in without membership: reads, but may not write.
      assert.equal((await lfs('POST', batchUrl(`root/${open.path}`), { authorization: as(outsider), body: { operation: 'upload', objects: [object] } })).status, 403)
    })

    it('lets tokens do what their scopes allow: read_repository downloads, never uploads', async () => {
      const { token } = await makeToken(t, developer.user.id, ['read_repository'])
      const object = objectOf(Buffer.from('scoped'))
      const auth = basic(developer.user.username, token)
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: auth, body: { operation: 'download', objects: [object] } })).status, 200)
      const upload = await lfs('POST', batchUrl(projectPath), { authorization: auth, body: { operation: 'upload', objects: [object] } })
      assert.equal(upload.status, 403)
      assert.equal(upload.body.message, 'Access forbidden. Check your access level.')
    })

    it('lets a running job\'s CI_JOB_TOKEN download, never upload, and nothing once the job ends', async () => {
      await commitFiles(t, project.id, { '.gitlab-ci.yml': 'fetch: { script: git lfs pull }' })
      assert.equal((await t.api('POST', `/projects/${project.id}/pipeline`, { token: developer.token, body: { ref: 'master' } })).status, 201)
      const res = await requestJob(t, await makeRunner(t))
      assert.equal(res.status, 201, res.text)
      const job = res.body as { id: number; token: string }
      const auth = basic('gitlab-ci-token', job.token)
      const object = objectOf(Buffer.from('for the job'))
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: auth, body: { operation: 'download', objects: [object] } })).status, 200)
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: auth, body: { operation: 'upload', objects: [object] } })).status, 403)
      assert.equal((await updateJob(t, job.id, job.token, { state: 'success' })).status, 200)
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: auth, body: { operation: 'download', objects: [object] } })).status, 401)
    })

    it('answers 403 where the project has LFS off', async () => {
      const off = await makeProject(t, null)
      await makeMember(t, { type: 'project', id: off.id }, developer, DEVELOPER)
      await t.ctx.db.updateTable('projects').set({ lfs_enabled: 0 }).where('id', '=', off.id).execute()
      const object = objectOf(Buffer.from('off'))
      const res = await lfs('POST', batchUrl(`root/${off.path}`), { authorization: as(developer), body: { operation: 'upload', objects: [object] } })
      assert.equal(res.status, 403)
      assert.equal((await upload(`root/${off.path}`, Buffer.from('off'), as(developer))).status, 403)
      assert.equal(await storedObject(object.oid), undefined)
    })
  })

  describe('uploads', () => {
    async function leftovers(): Promise<string[]> {
      return fs.readdir(path.join(localBlobRoot(t.ctx.config.dataDir), '.tmp')).catch(() => [])
    }

    it('refuses content that is not the object, and keeps nothing of it', async () => {
      const content = randomBytes(4096)
      const { oid, size } = objectOf(content)
      const corrupted = Buffer.from(content)
      corrupted[100] = corrupted[100]! ^ 0xff
      const wrongContent = await lfs('PUT', objectUrl(projectPath, oid, size), { authorization: as(developer), raw: corrupted })
      assert.equal(wrongContent.status, 422)
      assert.equal(wrongContent.body.message, 'The uploaded content does not match its oid (sha256).')
      // Fewer bytes than the URL's size, and a Content-Length that disagrees with it.
      const short = await t.app.inject({
        method: 'PUT', url: objectUrl(projectPath, oid, size + 10), payload: content, headers: { authorization: as(developer) },
      })
      assert.equal(short.statusCode, 400)
      const chunked = await lfs('PUT', objectUrl(projectPath, oid, size - 1), { authorization: as(developer), raw: content, headers: { 'content-length': String(size - 1) } })
      assert.equal(chunked.status, 400)
      assert.equal(await storedObject(oid), undefined)
      assert.equal(await t.ctx.blobs.stat(lfsObjectBlobKey(oid)), null)
      assert.deepEqual(await leftovers(), [])
    })

    it('refuses a longer body than the size as it streams, over a real socket', async () => {
      const content = randomBytes(256 * 1024)
      const { oid } = objectOf(content.subarray(0, 1000))
      const res = await fetch(`${git.baseUrl}${objectUrl(projectPath, oid, 1000)}`, {
        method: 'PUT',
        headers: { authorization: as(developer) },
        body: new ReadableStream({ start(controller) { controller.enqueue(content); controller.close() } }),
        duplex: 'half',
      } as RequestInit)
      assert.equal(res.status, 400)
      assert.equal(((await res.json()) as { message: string }).message, 'The uploaded content does not have the size the URL names.')
      assert.equal(await storedObject(oid), undefined)
      assert.deepEqual(await leftovers(), [])
    })

    it('refuses bad oids and sizes in the URL as no route', async () => {
      assert.equal((await lfs('PUT', `/${projectPath}.git/gitlab-lfs/objects/abc/3`, { authorization: as(developer), raw: Buffer.from('abc') })).status, 404)
      assert.equal((await lfs('PUT', `/${projectPath}.git/gitlab-lfs/objects/${'a'.repeat(64)}/-3`, { authorization: as(developer), raw: Buffer.from('abc') })).status, 404)
      assert.equal((await lfs('GET', `/${projectPath}.git/gitlab-lfs/objects/${'A'.repeat(64)}`, { authorization: as(developer) })).status, 404)
    })
  })

  describe('the locks API', () => {
    const locksUrl = () => `/${projectPath}.git/info/lfs/locks`

    it('creates, refuses a second lock of a path with the existing one, lists, verifies and unlocks', async () => {
      const created = await lfs('POST', locksUrl(), { authorization: as(developer), body: { path: 'docs/a.psd', ref: { name: 'refs/heads/master' } } })
      assert.equal(created.status, 201)
      const lock = created.body.lock
      assert.equal(lock.path, 'docs/a.psd')
      assert.equal(typeof lock.id, 'string')
      assert.deepEqual(lock.owner, { name: developer.user.name })
      assert.ok(!Number.isNaN(Date.parse(lock.locked_at)))

      const taken = await lfs('POST', locksUrl(), { authorization: as(maintainer), body: { path: 'docs/a.psd' } })
      assert.equal(taken.status, 409)
      assert.equal(taken.body.message, 'already locked')
      assert.deepEqual(taken.body.lock, lock)

      const second = (await lfs('POST', locksUrl(), { authorization: as(maintainer), body: { path: 'docs/b.psd' } })).body.lock
      const all = await lfs('GET', locksUrl(), { authorization: as(reporter) })
      assert.equal(all.status, 200)
      assert.deepEqual(all.body.locks.map((l: { id: string }) => l.id), [lock.id, second.id])
      assert.deepEqual((await lfs('GET', `${locksUrl()}?path=docs/b.psd`, { authorization: as(reporter) })).body.locks, [second])
      assert.deepEqual((await lfs('GET', `${locksUrl()}?id=${lock.id}`, { authorization: as(reporter) })).body.locks, [lock])
      const page = await lfs('GET', `${locksUrl()}?limit=1`, { authorization: as(reporter) })
      assert.deepEqual(page.body, { locks: [lock], next_cursor: second.id })
      assert.deepEqual((await lfs('GET', `${locksUrl()}?limit=1&cursor=${page.body.next_cursor}`, { authorization: as(reporter) })).body, { locks: [second] })

      const verify = await lfs('POST', `${locksUrl()}/verify`, { authorization: as(developer), body: { ref: { name: 'refs/heads/master' } } })
      assert.equal(verify.status, 200)
      assert.deepEqual(verify.body, { ours: [lock], theirs: [second] })
      // Readers may list but neither lock nor verify.
      assert.equal((await lfs('POST', locksUrl(), { authorization: as(reporter), body: { path: 'c' } })).status, 403)
      assert.equal((await lfs('POST', `${locksUrl()}/verify`, { authorization: as(reporter), body: {} })).status, 403)
      assert.equal((await lfs('GET', locksUrl(), { authorization: as(outsider) })).status, 404)

      const notOwner = await lfs('POST', `${locksUrl()}/${second.id}/unlock`, { authorization: as(developer), body: {} })
      assert.equal(notOwner.status, 403)
      assert.equal(notOwner.body.message, `docs/b.psd is locked by GitLab User ${maintainer.user.id}`)
      const notMaintainer = await lfs('POST', `${locksUrl()}/${second.id}/unlock`, { authorization: as(developer), body: { force: true } })
      assert.equal(notMaintainer.status, 403)
      assert.equal(notMaintainer.body.message, 'You must have maintainer access to force delete a lock')
      const forced = await lfs('POST', `${locksUrl()}/${lock.id}/unlock`, { authorization: as(maintainer), body: { force: true } })
      assert.equal(forced.status, 200)
      assert.deepEqual(forced.body.lock, lock)
      assert.equal((await lfs('POST', `${locksUrl()}/${second.id}/unlock`, { authorization: as(maintainer), body: {} })).status, 200)
      const gone = await lfs('POST', `${locksUrl()}/${second.id}/unlock`, { authorization: as(maintainer), body: {} })
      assert.equal(gone.status, 404)
      assert.equal(gone.body.message, 'Lock not found')
      assert.deepEqual((await lfs('GET', locksUrl(), { authorization: as(reporter) })).body, { locks: [] })
    })
  })

  describe('the LFS token of git-lfs-authenticate', () => {
    it('is accepted for its project\'s LFS routes, as its user, and for nothing else', async () => {
      const answer = await lfsAuthenticateAnswer(t.ctx, { kind: 'user', userId: developer.user.id }, project.id, 'upload')
      assert.equal(answer.href, `${git.baseUrl}/${projectPath}.git/info/lfs`)
      assert.equal(answer.expires_in, 1800)
      const auth = answer.header.Authorization
      assert.ok(auth.startsWith('Basic '))
      const content = randomBytes(128)
      const object = objectOf(content)
      const batch = await lfs('POST', `${new URL(answer.href).pathname}/objects/batch`, { authorization: auth, body: { operation: 'upload', objects: [object] } })
      assert.equal(batch.status, 200)
      assert.equal((await lfs('PUT', new URL(batch.body.objects[0].actions.upload.href).pathname, { authorization: auth, raw: content })).status, 200)
      const created = await lfs('POST', `/${projectPath}.git/info/lfs/locks`, { authorization: auth, body: { path: 'token.bin' } })
      assert.equal(created.status, 201)
      assert.deepEqual(created.body.lock.owner, { name: developer.user.name })

      // Not for git itself, nor the API, nor another project the user may write.
      const refs = await t.app.inject({ method: 'GET', url: `/${projectPath}.git/info/refs?service=git-upload-pack`, headers: { authorization: auth } })
      assert.equal(refs.statusCode, 401)
      const other = await makeProject(t, null)
      await makeMember(t, { type: 'project', id: other.id }, developer, DEVELOPER)
      assert.equal((await lfs('POST', batchUrl(`root/${other.path}`), { authorization: auth, body: { operation: 'download', objects: [object] } })).status, 403)
    })

    it('of a download reads but does not write, and dies after its time', async () => {
      const download = await lfsAuthenticateAnswer(t.ctx, { kind: 'user', userId: developer.user.id }, project.id, 'download')
      const object = objectOf(Buffer.from('download only'))
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: download.header.Authorization, body: { operation: 'download', objects: [object] } })).status, 200)
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: download.header.Authorization, body: { operation: 'upload', objects: [object] } })).status, 403)

      const stale = issueLfsToken(t.ctx.secrets, { subject: { kind: 'user', userId: developer.user.id }, projectId: project.id, operation: 'download' }, Date.now() - LFS_TOKEN_TTL_S * 1000 - 1)
      const expired = await lfs('POST', batchUrl(projectPath), { authorization: basic(developer.user.username, stale), body: { operation: 'download', objects: [object] } })
      assert.equal(expired.status, 401)
      // Under another user's name, a live token is nobody's.
      const live = issueLfsToken(t.ctx.secrets, { subject: { kind: 'user', userId: developer.user.id }, projectId: project.id, operation: 'download' })
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: basic(reporter.user.username, live), body: { operation: 'download', objects: [object] } })).status, 401)
    })

    it('of a deploy key reads where the key is enabled, and writes only with can_push', async () => {
      const now = Date.now()
      const key = await t.ctx.db.insertInto('deploy_keys').values({
        title: 'ci', key: 'ssh-ed25519 AAAA test', fingerprint: `SHA256:${randomBytes(8).toString('hex')}`, key_type: 'ed25519', key_bits: 256,
        user_id: null, created_at: now, updated_at: now,
      }).returning('id').executeTakeFirstOrThrow()
      await t.ctx.db.insertInto('deploy_keys_projects').values({ deploy_key_id: key.id, project_id: project.id, can_push: 0, created_at: now, updated_at: now }).execute()
      const subject = { kind: 'deploy_key' as const, deployKeyId: key.id }
      const read = await lfsAuthenticateAnswer(t.ctx, subject, project.id, 'download')
      assert.equal(Buffer.from(read.header.Authorization.slice('Basic '.length), 'base64').toString().split(':')[0], `lfs+deploy-key-${key.id}`)
      const object = objectOf(randomBytes(40))
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: read.header.Authorization, body: { operation: 'download', objects: [object] } })).status, 200)

      const write = await lfsAuthenticateAnswer(t.ctx, subject, project.id, 'upload')
      const refused = await lfs('POST', batchUrl(projectPath), { authorization: write.header.Authorization, body: { operation: 'upload', objects: [object] } })
      assert.equal(refused.status, 403)
      await t.ctx.db.updateTable('deploy_keys_projects').set({ can_push: 1 }).where('deploy_key_id', '=', key.id).execute()
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: write.header.Authorization, body: { operation: 'upload', objects: [object] } })).status, 200)
      // Once the key is removed from the project, its tokens open nothing there.
      await t.ctx.db.deleteFrom('deploy_keys_projects').where('deploy_key_id', '=', key.id).execute()
      assert.equal((await lfs('POST', batchUrl(projectPath), { authorization: read.header.Authorization, body: { operation: 'download', objects: [object] } })).status, 404)
    })
  })
})

describe('Git LFS switched off for the instance', () => {
  let t: TestApp
  before(async () => {
    t = await buildTestApp({ env: { INGOT_LFS_ENABLED: 'false' } })
  })
  after(async () => {
    await t?.close()
  })

  it('answers the original\'s 501', async () => {
    const project = await makeProject(t, null)
    const res = await t.app.inject({
      method: 'POST',
      url: `/root/${project.path}.git/info/lfs/objects/batch`,
      headers: { authorization: basic('root', t.root.token), 'content-type': LFS_JSON },
      payload: JSON.stringify({ operation: 'download', objects: [objectOf(Buffer.from('x'))] }),
    })
    assert.equal(res.statusCode, 501)
    assert.equal(JSON.parse(res.body).message, 'Git LFS is not enabled on this GitLab server, contact your admin.')
    // Projects show LFS off while the instance has it off, whatever their own setting.
    assert.equal(project.lfs_enabled, 1)
    assert.equal((await t.api('GET', `/projects/${project.id}`)).body.lfs_enabled, false)
  })
})
