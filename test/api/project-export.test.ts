// Project export (POST/GET /projects/:id/export, GET …/export/download) over the real app: the job
// run by hand, the archive read back member by member (names with `./`, VERSION's bytes,
// project.json, bundles checked by git itself, uploads), the upload to a real HTTP server with PUT
// and POST, failures kept and emailed through a real SMTP listener, expiry, and who may do what.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import tar from 'tar-stream'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles, TEST_AUTHOR } from '../helpers/git.js'
import { startSmtpListener, type SmtpListener } from '../helpers/smtp.js'
import { NULL_OID } from '../../src/git/repository.js'
import { writeCommit } from '../../src/git/write.js'
import { storeProjectUpload } from '../../src/services/uploads/attachments.js'
import { uploadsRoot } from '../../src/services/uploads/user-avatar.js'
import { EXPIRE_EXPORTS } from '../../src/services/import-export/jobs.js'
import { exportFileName } from '../../src/services/import-export/export-project.js'
import type { ProjectRow } from '../../src/db/schema.js'

const DEVELOPER = 30
const GUEST = 10

/** Every member of a gzip'd tar: name → bytes (directories as empty buffers), in archive order. */
async function readArchive(data: Buffer): Promise<Map<string, Buffer>> {
  const members = new Map<string, Buffer>()
  const extract = tar.extract()
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer))
      stream.on('end', () => { members.set(header.name, Buffer.concat(chunks)); next() })
      stream.resume()
    })
    extract.on('finish', resolve)
    extract.on('error', reject)
  })
  extract.end(zlib.gunzipSync(data))
  await done
  return members
}

/** The refs a bundle carries, as `git bundle list-heads` reads them: ref → object id. */
async function bundleHeads(bundle: Buffer): Promise<Map<string, string>> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'export-bundle-'))
  try {
    const file = path.join(dir, 'b.bundle')
    await fs.writeFile(file, bundle)
    const out = execFileSync('git', ['bundle', 'list-heads', file], { encoding: 'utf8' })
    return new Map(out.trim().split('\n').map((line) => { const [id, ref] = line.split(' '); return [ref!, id!] }))
  } finally {
    await fs.rm(dir, { recursive: true, force: true })
  }
}

interface Received { method: string; headers: http.IncomingHttpHeaders; body: Buffer }

/** A real HTTP server standing in for the upload's receiver (S3 or a web server); answers as told. */
async function startReceiver(): Promise<{ url: string; received: Received[]; answer: { status: number; body: string }; close(): Promise<void> }> {
  const receiver = {
    url: '', received: [] as Received[], answer: { status: 200, body: 'ok' },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      receiver.received.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks) })
      res.writeHead(receiver.answer.status, { 'content-type': 'application/xml' }).end(receiver.answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return receiver
}

describe('project export', () => {
  let t: TestApp
  let smtp: SmtpListener
  let owner: TestUser
  let project: ProjectRow
  let fullPath: string
  let master: string
  let uploadSecret: string

  const runJobs = async () => { while (await t.ctx.jobs.runDue(Date.now()) > 0) { /* until none is due */ } }
  const status = async (p: ProjectRow = project, token = owner.token) => t.api('GET', `/projects/${p.id}/export`, { token })
  const exportRow = (p: ProjectRow = project) => t.ctx.db.selectFrom('project_exports').selectAll().where('project_id', '=', p.id).executeTakeFirst()
  const setSettings = async (body: Record<string, unknown>) => {
    const res = await t.api('PUT', '/application/settings', { body })
    assert.equal(res.status, 200, res.text)
  }
  const download = (p: ProjectRow = project) => t.app.inject({ method: 'GET', url: `/api/v4/projects/${p.id}/export/download`, headers: { 'private-token': owner.token } })

  before(async () => {
    smtp = await startSmtpListener()
    t = await buildTestApp({ env: { INGOT_SMTP_URL: smtp.url } })
    owner = await makeUser(t)
    project = await makeProject(t, owner, { description: 'the real description' })
    const namespace = await t.ctx.db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
    fullPath = `${namespace.full_path}/${project.path}`
    master = await commitFiles(t, project.id, { 'README.md': '# hello\n' })
    await commitFiles(t, project.id, { 'feature.txt': 'feature\n' }, { branch: 'feature' })
    const repo = t.ctx.repositories.open(project.id)
    await repo.run(['tag', 'v1.0', master])
    await repo.compareAndSwapRef('refs/merge-requests/1/head', master, NULL_OID)
    // A wiki with one page.
    await t.ctx.repositories.createWiki(project.id)
    const wiki = t.ctx.repositories.openWiki(project.id)
    const page = await writeCommit(wiki, { parent: null, changes: [{ path: 'home.md', content: Buffer.from('wiki home\n') }], message: 'Create home', author: TEST_AUTHOR, committer: TEST_AUTHOR })
    await wiki.compareAndSwapRef('refs/heads/master', page, NULL_OID)
    uploadSecret = (await storeProjectUpload(t.ctx.config.dataDir, project.id, 'screen shot.png', Buffer.from('PNG bytes'))).secret
    // A project avatar where the uploads keep avatars (no endpoint sets one yet).
    const avatarDir = `-/system/project/avatar/${project.id}`
    await fs.mkdir(path.join(uploadsRoot(t.ctx.config.dataDir), avatarDir), { recursive: true })
    await fs.writeFile(path.join(uploadsRoot(t.ctx.config.dataDir), avatarDir, 'logo.png'), 'logo bytes')
    await t.ctx.db.updateTable('projects').set({ avatar_path: `${avatarDir}/logo.png` }).where('id', '=', project.id).execute()
  })
  after(async () => {
    await t.close()
    await smtp.close()
  })
  beforeEach(() => { smtp.messages.length = 0 })

  it('answers none, then 202 and started, then finished with _links once the job ran, and mails the link', async () => {
    const before = await status()
    assert.equal(before.status, 200, before.text)
    assert.deepEqual(Object.keys(before.body).sort(), ['created_at', 'description', 'export_status', 'id', 'name', 'name_with_namespace', 'path', 'path_with_namespace'])
    assert.equal(before.body.export_status, 'none')
    assert.equal(before.body.path_with_namespace, fullPath)

    const started = await t.api('POST', `/projects/${project.id}/export`, { token: owner.token, body: { description: 'exported description' } })
    assert.equal(started.status, 202, started.text)
    assert.deepEqual(started.body, { message: '202 Accepted' })
    assert.equal((await status()).body.export_status, 'started')

    await runJobs()
    const finished = await status()
    assert.equal(finished.body.export_status, 'finished')
    assert.deepEqual(finished.body._links, {
      api_url: `http://ingot.test/api/v4/projects/${project.id}/export/download`,
      web_url: `http://ingot.test/${fullPath}/download_export`,
    })
    const [mail] = await smtp.waitFor(1)
    assert.deepEqual(mail!.to, [owner.user.email.toLowerCase()])
    assert.equal(mail!.subject, `${project.name} | Project was exported`)
    assert.match(mail!.text, new RegExp(`was exported successfully`))
    assert.match(mail!.text, new RegExp(`/${fullPath}/download_export`))
  })

  it('downloads the archive with the original name and layout: ./ names, VERSION, project.json, bundles of every ref, uploads', async () => {
    const res = await download()
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.headers['content-type'], 'application/gzip')
    const disposition = String(res.headers['content-disposition'])
    const name = /^attachment; filename="(.+)"$/.exec(disposition)?.[1]
    assert.ok(name !== undefined, disposition)
    assert.match(name, /^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{3}_.+_export\.tar\.gz$/)
    assert.ok(name.includes(fullPath.replaceAll('/', '_').slice(0, 20)))
    assert.equal(Number(res.headers['content-length']), res.rawPayload.length)

    const members = await readArchive(res.rawPayload)
    const names = [...members.keys()]
    assert.ok(names.every((n) => n.startsWith('./')), names.join(' '))
    assert.equal(names[0], './')
    for (const required of ['./VERSION', './project.json', './project.bundle', './project.wiki.bundle', `./uploads/${uploadSecret}/screen_shot.png`]) {
      assert.ok(members.has(required), `${required} in ${names.join(' ')}`)
    }
    assert.ok(members.has('./uploads/') && members.has(`./uploads/${uploadSecret}/`), 'directories have their entries')
    assert.deepEqual(members.get('./VERSION'), Buffer.from('0.2.4'))
    const tree = JSON.parse(members.get('./project.json')!.toString('utf8'))
    assert.equal(tree.description, 'exported description')
    assert.deepEqual(members.get(`./uploads/${uploadSecret}/screen_shot.png`), Buffer.from('PNG bytes'))
    assert.deepEqual(members.get('./avatar/logo.png'), Buffer.from('logo bytes'))

    const heads = await bundleHeads(members.get('./project.bundle')!)
    const repo = t.ctx.repositories.open(project.id)
    for (const ref of ['refs/heads/master', 'refs/heads/feature', 'refs/tags/v1.0', 'refs/merge-requests/1/head']) {
      assert.equal(heads.get(ref), await repo.resolveCommit(ref), ref)
    }
    assert.ok(heads.has('HEAD'))
    const wikiHeads = await bundleHeads(members.get('./project.wiki.bundle')!)
    assert.ok(wikiHeads.has('refs/heads/master'))
  })

  it('leaves out the bundles of an empty repository and a missing wiki', async () => {
    const empty = await makeProject(t, owner)
    assert.equal((await t.api('POST', `/projects/${empty.id}/export`, { token: owner.token })).status, 202)
    await runJobs()
    const res = await download(empty)
    assert.equal(res.statusCode, 200)
    const names = [...(await readArchive(res.rawPayload)).keys()].sort()
    assert.deepEqual(names, ['./', './VERSION', './project.json'])
  })

  it('names the file as the original: time to the millisecond, the path cut to 51 characters with it', () => {
    const at = new Date(Date.UTC(2017, 11, 5, 22, 11, 5, 148))
    assert.equal(exportFileName('namespace/project', at), '2017-12-05_22-11-148_namespace_project_export.tar.gz')
    const long = exportFileName(`group/${'p'.repeat(80)}`, at)
    assert.equal(long, `2017-12-05_22-11-148_group_${'p'.repeat(51 - 27)}_export.tar.gz`)
  })

  it('starts one export while one runs', async () => {
    const other = await makeProject(t, owner)
    await commitFiles(t, other.id, { 'a.txt': 'a\n' })
    for (let i = 0; i < 3; i++) assert.equal((await t.api('POST', `/projects/${other.id}/export`, { token: owner.token })).status, 202)
    const waiting = (await t.ctx.jobs.counts()).filter((c) => c.kind === 'import_export.export_project' && c.state === 'waiting')
    assert.deepEqual(waiting.map((c) => c.count), [1])
    await runJobs()
    assert.equal((await status(other)).body.export_status, 'finished')
    // Finished, a new request starts a new export.
    assert.equal((await t.api('POST', `/projects/${other.id}/export`, { token: owner.token })).status, 202)
    assert.equal((await status(other)).body.export_status, 'started')
    await runJobs()
    assert.equal((await status(other)).body.export_status, 'finished')
  })

  it('lets a new export start once a started one is older than any export may run (its process died)', async () => {
    const other = await makeProject(t, owner)
    const longAgo = Date.now() - 6 * 60 * 60 * 1000 - 11 * 60 * 1000
    await t.ctx.db.insertInto('project_exports').values({ project_id: other.id, status: 'started', user_id: owner.user.id, created_at: longAgo, updated_at: longAgo }).execute()
    assert.equal((await status(other)).body.export_status, 'none')
    assert.equal((await t.api('POST', `/projects/${other.id}/export`, { token: owner.token })).status, 202)
    assert.equal((await status(other)).body.export_status, 'started')
    await runJobs()
    assert.equal((await status(other)).body.export_status, 'finished')
    // A fresh started row, by contrast, holds: the request starts nothing.
    await t.ctx.db.updateTable('project_exports').set({ status: 'started', updated_at: Date.now() }).where('project_id', '=', other.id).execute()
    assert.equal((await t.api('POST', `/projects/${other.id}/export`, { token: owner.token })).status, 202)
    const waiting = (await t.ctx.jobs.counts()).filter((c) => c.kind === 'import_export.export_project' && c.state === 'waiting')
    assert.deepEqual(waiting, [])
  })

  describe('who may export', () => {
    let developer: TestUser
    let guest: TestUser
    let outsider: TestUser
    before(async () => {
      developer = await makeUser(t)
      guest = await makeUser(t)
      outsider = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
      await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
    })

    it('refuses developers and guests (403) and hides a private project from outsiders (404)', async () => {
      for (const user of [developer, guest]) {
        assert.equal((await t.api('POST', `/projects/${project.id}/export`, { token: user.token })).status, 403)
        assert.equal((await status(project, user.token)).status, 403)
        assert.equal((await t.api('GET', `/projects/${project.id}/export/download`, { token: user.token })).status, 403)
      }
      const hidden = await t.api('POST', `/projects/${project.id}/export`, { token: outsider.token })
      assert.equal(hidden.status, 404)
      assert.deepEqual(hidden.body, { message: '404 Project Not Found' })
      assert.equal((await status(project, outsider.token)).status, 404)
      assert.equal((await t.api('POST', `/projects/${project.id}/export`, { token: null })).status, 401)
    })

    it('answers 404 on all three while project_export_enabled is off, as the original', async () => {
      await setSettings({ project_export_enabled: false })
      try {
        for (const [method, suffix] of [['POST', ''], ['GET', ''], ['GET', '/download']] as const) {
          const res = await t.api(method, `/projects/${project.id}/export${suffix}`, { token: owner.token })
          assert.equal(res.status, 404, `${method} ${suffix}`)
          assert.deepEqual(res.body, { message: '404 Not Found' })
        }
      } finally {
        await setSettings({ project_export_enabled: true })
      }
    })

    it('checks upload[http_method] and upload[url] as the original validates them', async () => {
      const bad = await t.api('POST', `/projects/${project.id}/export`, { token: owner.token, body: { upload: { url: 'http://example.com/x', http_method: 'PATCH' } } })
      assert.equal(bad.status, 400)
      assert.deepEqual(bad.body, { message: { http_method: ['invalid. Only PUT and POST methods allowed.'] } })
      const badUrl = await t.api('POST', `/projects/${project.id}/export`, { token: owner.token, body: { upload: { url: 'ftp://example.com/x' } } })
      assert.equal(badUrl.status, 400)
      assert.deepEqual(badUrl.body, { message: { url: ['is blocked: Only allowed protocols are http, https'] } })
      const notUrl = await t.api('POST', `/projects/${project.id}/export`, { token: owner.token, body: { upload: { url: 'not a url' } } })
      assert.deepEqual([notUrl.status, notUrl.body], [400, { message: { url: ['is blocked: URI is invalid'] } }])
      // Form bodies as clients send them, method in any case.
      const form = await t.api('POST', `/projects/${project.id}/export`, { token: owner.token, form: 'upload[url]=ftp%3A%2F%2Fx&upload[http_method]=post' })
      assert.equal(form.status, 400)
      assert.deepEqual(form.body, { message: { url: ['is blocked: Only allowed protocols are http, https'] } })
    })
  })

  describe('upload[url]', () => {
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let target: ProjectRow
    before(async () => {
      receiver = await startReceiver()
      target = await makeProject(t, owner)
      await commitFiles(t, target.id, { 'a.txt': 'a\n' })
      await setSettings({ allow_local_requests_from_hooks_and_services: true })
    })
    after(async () => {
      await receiver.close()
      await setSettings({ allow_local_requests_from_hooks_and_services: false })
    })
    beforeEach(() => {
      receiver.received.length = 0
      receiver.answer = { status: 200, body: 'ok' }
    })

    for (const [given, method] of [[undefined, 'PUT'], ['post', 'POST'], ['Put', 'PUT']] as const) {
      it(`sends the archive as the raw body of a ${method} (http_method ${given ?? 'not given'}), then deletes it`, async () => {
        const upload = given === undefined ? { url: `${receiver.url}/bucket/x.tar.gz?sig=1` } : { url: `${receiver.url}/bucket/x.tar.gz?sig=1`, http_method: given }
        assert.equal((await t.api('POST', `/projects/${target.id}/export`, { token: owner.token, body: { upload } })).status, 202)
        // The URL (its signature) waits sealed in the job.
        const [waiting] = await t.ctx.jobs.list({ kind: 'import_export.export_project' })
        assert.ok(waiting !== undefined)
        assert.doesNotMatch(JSON.stringify(waiting.payload), /sig=1|bucket/)
        await runJobs()
        assert.equal(receiver.received.length, 1)
        const [sent] = receiver.received
        assert.equal(sent!.method, method)
        assert.equal(Number(sent!.headers['content-length']), sent!.body.length)
        const members = await readArchive(sent!.body)
        assert.deepEqual(members.get('./VERSION'), Buffer.from('0.2.4'))
        assert.ok(members.has('./project.bundle'))
        // Sent, so nothing is kept to download.
        assert.equal((await status(target)).body.export_status, 'none')
        assert.equal((await download(target)).statusCode, 404)
        const blobs = []
        for await (const blob of t.ctx.blobs.list(`exports/projects/${target.id}/`)) blobs.push(blob)
        assert.deepEqual(blobs, [])
      })
    }

    it('keeps a refusal of the receiver as the export error, read from S3\'s XML, and mails it', async () => {
      receiver.answer = { status: 403, body: '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>' }
      await t.api('POST', `/projects/${target.id}/export`, { token: owner.token, body: { upload: { url: `${receiver.url}/up` } } })
      await runJobs()
      const row = await exportRow(target)
      assert.equal(row?.status, 'failed')
      assert.equal(row?.error, 'Error uploading the project. Code AccessDenied: Access Denied')
      assert.equal((await status(target)).body.export_status, 'none')
      const [mail] = await smtp.waitFor(1)
      assert.equal(mail!.subject, `${target.name} | Project export error`)
      assert.match(mail!.text, /Error uploading the project\. Code AccessDenied: Access Denied/)
    })

    it('keeps a plain error answer with its status and reason', async () => {
      receiver.answer = { status: 500, body: 'boom' }
      await t.api('POST', `/projects/${target.id}/export`, { token: owner.token, body: { upload: { url: `${receiver.url}/up`, http_method: 'POST' } } })
      await runJobs()
      assert.equal((await exportRow(target))?.error, 'Error uploading the project. Code 500: Internal Server Error')
    })

    it('refuses a local address under the outbound rules: a failure kept and mailed, not a crash', async () => {
      await setSettings({ allow_local_requests_from_hooks_and_services: false })
      try {
        await t.api('POST', `/projects/${target.id}/export`, { token: owner.token, body: { upload: { url: `${receiver.url}/up` } } })
        await runJobs()
        assert.equal(receiver.received.length, 0)
        const row = await exportRow(target)
        assert.equal(row?.status, 'failed')
        assert.equal(row?.error, 'Error uploading the project. Requests to localhost are not allowed')
        const [mail] = await smtp.waitFor(1)
        assert.equal(mail!.subject, `${target.name} | Project export error`)
      } finally {
        await setSettings({ allow_local_requests_from_hooks_and_services: true })
      }
    })
  })

  it('deletes the kept archive with its project', async () => {
    const doomed = await makeProject(t, owner)
    await commitFiles(t, doomed.id, { 'a.txt': 'a\n' })
    await t.api('POST', `/projects/${doomed.id}/export`, { token: owner.token })
    await runJobs()
    const key = (await exportRow(doomed))!.blob_key!
    assert.notEqual(await t.ctx.blobs.stat(key), null)
    assert.equal((await t.api('DELETE', `/projects/${doomed.id}`, { token: owner.token })).status, 202)
    await runJobs()
    assert.equal(await exportRow(doomed), undefined)
    assert.equal(await t.ctx.blobs.stat(key), null)
  })

  it('expires an archive after 24 hours: the download answers 404, the hourly job removes blob and row', async () => {
    const old = await makeProject(t, owner)
    await commitFiles(t, old.id, { 'a.txt': 'a\n' })
    await t.api('POST', `/projects/${old.id}/export`, { token: owner.token })
    await runJobs()
    const row = (await exportRow(old))!
    assert.equal((await download(old)).statusCode, 200)
    const dayAgo = Date.now() - 24 * 60 * 60 * 1000 - 1000
    await t.ctx.db.updateTable('project_exports').set({ finished_at: dayAgo, updated_at: dayAgo }).where('project_id', '=', old.id).execute()
    const expired = await download(old)
    assert.equal(expired.statusCode, 404)
    assert.deepEqual(JSON.parse(expired.body), { message: '404 Not found or has expired' })
    assert.equal((await status(old)).body.export_status, 'none')
    await t.ctx.jobs.enqueue(EXPIRE_EXPORTS, null)
    await runJobs()
    assert.equal(await exportRow(old), undefined)
    assert.equal(await t.ctx.blobs.stat(row.blob_key!), null)
  })
})
