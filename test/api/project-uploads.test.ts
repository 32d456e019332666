// Project uploads: POST /projects/:id/uploads (multipart `file`) answers the original's alt, url and
// markdown; the file is served at <project URL>/uploads/<secret>/<name> to those who can see the
// project; files above the max_attachment_size setting get the original's 413; refusals 401, 404, 400.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import fs from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import type { ProjectRow } from '../../src/db/schema.js'
import { projectUploadPath } from '../../src/services/uploads/attachments.js'
import { GUEST } from '../../src/policies/access-levels.js'
import { projectFullPath } from '../helpers/projects.js'
import { multipart } from '../helpers/multipart.js'

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const MB = 1024 * 1024

describe('project uploads', () => {
  let t: TestApp
  let owner: TestUser
  let outsider: TestUser
  let privateProject: ProjectRow
  let publicProject: ProjectRow

  const fullPathOf = (project: ProjectRow) => projectFullPath(t, project)
  let address: Promise<string> | null = null
  /** The app on a real socket, for what inject cannot show (a body still arriving). */
  const listening = () => (address ??= t.app.listen({ host: '127.0.0.1', port: 0 }))
  const upload = async (project: ProjectRow, parts: Record<string, string | { name: string; data: Buffer }>, token: string | null = owner.token) => {
    const { payload, contentType } = await multipart(parts)
    const headers: Record<string, string> = { 'content-type': contentType }
    if (token !== null) headers['private-token'] = token
    return t.app.inject({ method: 'POST', url: `/api/v4/projects/${project.id}/uploads`, payload, headers })
  }
  /** GET <project web path><url>, as a browser follows an upload's Markdown link. */
  const fetchUpload = async (project: ProjectRow, url: string, token: string | null = owner.token) =>
    t.app.inject({ method: 'GET', url: `/${await fullPathOf(project)}${url}`, headers: token === null ? {} : { 'private-token': token } })
  const setMaxAttachmentSize = async (megabytes: number) => {
    const res = await t.api('PUT', '/application/settings', { body: { max_attachment_size: megabytes } })
    assert.equal(res.status, 200, res.text)
  }

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    outsider = await makeUser(t)
    privateProject = await makeProject(t, owner, { visibility: 'private' })
    publicProject = await makeProject(t, owner, { visibility: 'public' })
  })
  after(async () => { await t.close() })

  it('stores an image: 201 with alt, url and an image link, and serves it inline', async () => {
    const res = await upload(privateProject, { file: { name: 'screen shot.png', data: PNG } })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.deepEqual(Object.keys(body).sort(), ['alt', 'markdown', 'url'])
    const secret = /^\/uploads\/([0-9a-f]{32})\/screen_shot\.png$/.exec(body.url)?.[1]
    assert.ok(secret, body.url)
    assert.deepEqual(body, { alt: 'screen_shot', url: `/uploads/${secret}/screen_shot.png`, markdown: `![screen_shot](/uploads/${secret}/screen_shot.png)` })
    const served = await fetchUpload(privateProject, body.url)
    assert.equal(served.statusCode, 200)
    assert.equal(served.headers['content-type'], 'image/png')
    assert.equal(served.headers['content-disposition'], undefined)
    assert.deepEqual(served.rawPayload, PNG)
  })

  it('removes the files with their project, and with a group deleted around it', async () => {
    for (const remove of ['project', 'group'] as const) {
      const group = remove === 'group' ? (await t.api('POST', '/groups', { token: owner.token, body: { name: `Up ${Date.now()}`, path: `up-${Date.now()}` } })).body : null
      const project = await makeProject(t, owner, { visibility: 'private', ...(group === null ? {} : { namespace: await t.ctx.db.selectFrom('namespaces').selectAll().where('id', '=', group.id).executeTakeFirstOrThrow() }) })
      const body = (await upload(project, { file: { name: 'gone.png', data: PNG } })).json()
      const [, secret, name] = /^\/uploads\/([0-9a-f]{32})\/(.+)$/.exec(body.url)!
      const file = projectUploadPath(t.ctx.config.dataDir, project.id, { secret: secret!, name: name! })!
      await fs.access(file)
      const deleted = remove === 'project'
        ? await t.api('DELETE', `/projects/${project.id}`, { token: owner.token })
        : await t.api('DELETE', `/groups/${group.id}`, { token: owner.token })
      assert.equal(deleted.status, 202, deleted.text)
      await assert.rejects(fs.access(path.dirname(path.dirname(file))), { code: 'ENOENT' })
    }
  })

  it('links other files by their whole name and serves them as downloads; SVGs as images but downloaded', async () => {
    const text = (await upload(privateProject, { file: { name: 'notes v1.2.txt', data: Buffer.from('hello\n') } })).json()
    assert.equal(text.alt, 'notes_v1.2.txt')
    assert.equal(text.markdown, `[notes_v1.2.txt](${text.url})`)
    const served = await fetchUpload(privateProject, text.url)
    assert.equal(served.statusCode, 200)
    assert.equal(served.headers['content-type'], 'application/octet-stream')
    assert.match(String(served.headers['content-disposition']), /^attachment; filename="notes_v1\.2\.txt"/)
    assert.equal(served.headers['x-content-type-options'], 'nosniff')
    assert.equal(served.body, 'hello\n')

    const svg = (await upload(privateProject, { file: { name: 'logo.svg', data: Buffer.from('<svg/>') } })).json()
    assert.equal(svg.markdown, `![logo.svg](${svg.url})`)
    const svgServed = await fetchUpload(privateProject, svg.url)
    assert.equal(svgServed.headers['content-type'], 'application/octet-stream')
    assert.match(String(svgServed.headers['content-disposition']), /^attachment;/)
  })

  it('keeps the letters of any script and only the last segment of a path', async () => {
    const res = (await upload(privateProject, { file: { name: '../../etc/Ünïcödé (1).md', data: Buffer.from('x') } })).json()
    assert.match(res.url, /^\/uploads\/[0-9a-f]{32}\/Ünïcödé__1_\.md$/)
    const served = await fetchUpload(privateProject, encodeURI(res.url))
    assert.equal(served.statusCode, 200, served.body)
    assert.equal(served.body, 'x')
    assert.match(String(served.headers['content-disposition']), /filename\*=UTF-8''%C3%9Cn%C3%AFc%C3%B6d%C3%A9__1_\.md$/)
  })

  it('serves an upload only to those who can see the project, and only under its own project', async () => {
    const { url } = (await upload(privateProject, { file: { name: 'secret.png', data: PNG } })).json()
    assert.equal((await fetchUpload(privateProject, url, null)).statusCode, 404)
    assert.equal((await fetchUpload(privateProject, url, outsider.token)).statusCode, 404)
    assert.deepEqual((await fetchUpload(privateProject, url, outsider.token)).json(), { message: '404 Not Found' })
    assert.equal((await fetchUpload(publicProject, url)).statusCode, 404)
    assert.equal((await fetchUpload(privateProject, url.replace(/[0-9a-f]{32}/, '0'.repeat(32)))).statusCode, 404)
    assert.equal((await fetchUpload(privateProject, url.replace('secret.png', 'other.png'))).statusCode, 404)

    const open = (await upload(publicProject, { file: { name: 'open.png', data: PNG } }, outsider.token)).json()
    assert.equal((await fetchUpload(publicProject, open.url, null)).statusCode, 200)
  })

  it('takes uploads from anyone signed in who can see the project: 401 anonymous, 404 outsiders of a private project', async () => {
    const file = { file: { name: 'a.png', data: PNG } }
    const anonymous = await upload(publicProject, file, null)
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [401, { message: '401 Unauthorized' }])
    const outside = await upload(privateProject, file, outsider.token)
    assert.deepEqual([outside.statusCode, outside.json()], [404, { message: '404 Project Not Found' }])
    const guest = await makeUser(t)
    await makeMember(t, { type: 'project', id: privateProject.id }, guest, GUEST)
    assert.equal((await upload(privateProject, file, guest.token)).statusCode, 201)
    const missing = await upload({ ...privateProject, id: 999999 }, file)
    assert.deepEqual([missing.statusCode, missing.json()], [404, { message: '404 Project Not Found' }])
  })

  it('refuses an outsider before reading the body: the 404 comes while the file is still on its way', async () => {
    const { hostname, port } = new URL(await listening())
    for (const [url, token] of [
      [`/api/v4/projects/${privateProject.id}/uploads`, outsider.token],
      [`/api/v4/projects/${privateProject.id}/wikis/attachments`, outsider.token],
    ] as const) {
      const socket = net.connect(Number(port), hostname)
      const answer = new Promise<string>((resolve, reject) => {
        let text = ''
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1')
          if (text.includes('\r\n\r\n')) resolve(text)
        })
        socket.on('error', reject)
      })
      // Headers for 5 MB, then 1 KB of it: an answer now was decided without the rest.
      socket.write(`POST ${url} HTTP/1.1\r\nHost: ingot.test\r\nPrivate-Token: ${token}\r\n` +
        `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${5 * MB}\r\n\r\n`)
      socket.write(Buffer.alloc(1024, 'a'))
      const head = await Promise.race([answer, new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), 5000))])
      socket.destroy()
      assert.match(head, /^HTTP\/1\.1 404 /, url)
    }
  })

  it('refuses a missing file or a field that is not a file with 400', async () => {
    const none = await upload(privateProject, { other: 'x' })
    assert.deepEqual([none.statusCode, none.json()], [400, { error: 'file is missing' }])
    const notFile = await upload(privateProject, { file: 'just text' })
    assert.deepEqual([notFile.statusCode, notFile.json()], [400, { error: 'file is invalid' }])
    const json = await t.api('POST', `/projects/${privateProject.id}/uploads`, { body: { file: 'x' } })
    assert.deepEqual([json.status, json.body], [400, { error: 'file is invalid' }])
  })

  it('takes files up to max_attachment_size megabytes (default 10) and refuses larger ones with 413', async () => {
    const tenMegabytes = await upload(privateProject, { file: { name: 'big.bin', data: Buffer.alloc(10 * MB, 1) } })
    assert.equal(tenMegabytes.statusCode, 201, tenMegabytes.body)
    const stored = await fetchUpload(privateProject, tenMegabytes.json().url)
    assert.equal(stored.rawPayload.length, 10 * MB)
    const tooBig = await upload(privateProject, { file: { name: 'big.bin', data: Buffer.alloc(10 * MB + 1, 1) } })
    assert.deepEqual([tooBig.statusCode, tooBig.json()], [413, { message: '413 Request Entity Too Large' }])

    await setMaxAttachmentSize(1)
    try {
      assert.equal((await upload(privateProject, { file: { name: 'one.bin', data: Buffer.alloc(MB) } })).statusCode, 201)
      const over = await upload(privateProject, { file: { name: 'one.bin', data: Buffer.alloc(MB + 1) } })
      assert.deepEqual([over.statusCode, over.json()], [413, { message: '413 Request Entity Too Large' }])
      // Far above the limit, the body is refused before it is read.
      const far = await upload(privateProject, { file: { name: 'far.bin', data: Buffer.alloc(5 * MB) } })
      assert.deepEqual([far.statusCode, far.json()], [413, { message: '413 Request Entity Too Large' }])
      // A body of no stated length (chunked) is cut off once it passes the limit.
      const { payload, contentType } = await multipart({ file: { name: 'far.bin', data: Buffer.alloc(5 * MB) } })
      const address = await listening()
      const chunks = Array.from({ length: 80 }, (_, i) => payload.subarray(i * 64 * 1024, (i + 1) * 64 * 1024))
      const chunked = await fetch(`${address}/api/v4/projects/${privateProject.id}/uploads`, {
        method: 'POST',
        headers: { 'content-type': contentType, 'private-token': owner.token },
        body: new ReadableStream({ pull(controller) { const next = chunks.shift(); if (next === undefined) controller.close(); else controller.enqueue(next) } }),
        duplex: 'half',
      } as RequestInit)
      assert.deepEqual([chunked.status, await chunked.json()], [413, { message: '413 Request Entity Too Large' }])
      assert.ok(chunks.length > 0, 'the rest of the body was not read')
    } finally {
      await setMaxAttachmentSize(10)
    }
  })
})
