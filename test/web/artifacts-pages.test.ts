// A job's artifacts in the web (web/projects/job-artifacts.ts): the job page's links, the archive's
// download, its directories and files browsed from the stored central directory (names escaped),
// one file as the API sends it and raw, each with its exact bytes, a type that is never HTML and a
// sandboxing policy; who may read them as the API's artifact routes (public jobs or Reporters), and
// the 404 page for an expired archive or a path the archive lacks.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import yazl from 'yazl'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { MULTIPART_TYPE, multipartBody, newPipeline, rawRequest, runJob } from '../helpers/running-jobs.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { GUEST, REPORTER } from '../../src/policies/access-levels.js'
import { Browser, signedInBrowser } from './browser.js'

function makeZip(files: Record<string, Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const [name, data] of Object.entries(files)) zip.addBuffer(data, name, { mode: 0o100644 })
  zip.end()
  const parts: Buffer[] = []
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (part: Buffer) => parts.push(part)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject)
  })
}

describe('Web job artifacts pages', () => {
  let t: TestApp
  let owner: TestUser
  let guest: TestUser
  let reporter: TestUser
  let project: ProjectRow
  let jobUrl: string
  let jobId: number
  let zip: Buffer
  const page = Buffer.from('<html><script>alert(document.cookie)</script></html>\n')
  const binary = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256))
  const hostile = 'x"><img src=x onerror=alert(1)>.txt'

  const get = (url: string) => t.app.inject({ method: 'GET', url })

  before(async () => {
    t = await buildTestApp()
    ;[owner, guest, reporter] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await commitFiles(t, project.id, { '.gitlab-ci.yml': 'build: { script: make }\n' })
    zip = await makeZip({
      'out/page.html': page, 'out/data.bin': binary, 'out/sub/deep.txt': Buffer.from('deep\n'), [hostile]: Buffer.from('hostile\n'),
    })
    const pipeline = await newPipeline(t, project.id, owner.token)
    const job = await runJob(t, pipeline.jobs.build!)
    const res = await rawRequest(t, 'POST', `/jobs/${job.id}/artifacts?artifact_type=archive&artifact_format=zip`,
      { 'job-token': job.token, 'content-type': MULTIPART_TYPE }, multipartBody({ name: 'artifacts.zip', data: zip }))
    assert.equal(res.status, 201, res.text)
    jobId = job.id
    jobUrl = `/${owner.user.username}/${project.path}/-/jobs/${job.id}`
  })
  after(async () => { await t.close() })

  it('links the job page to the download and the browser', async () => {
    const res = await new Browser(t).get(jobUrl)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.text.includes(`href="${jobUrl}/artifacts/download"`) && res.text.includes(`href="${jobUrl}/artifacts/browse"`))
  })

  it('downloads the archive as the API does, sandboxed', async () => {
    const res = await get(`${jobUrl}/artifacts/download`)
    assert.equal(res.statusCode, 200)
    assert.ok(res.rawPayload.equals(zip))
    assert.equal(res.headers['content-type'], 'application/octet-stream')
    assert.equal(res.headers['content-disposition'], 'attachment; filename="artifacts.zip"')
    assert.match(String(res.headers['content-security-policy']), /sandbox/)
  })

  it('browses the archive\'s directories and files, names escaped', async () => {
    const top = await new Browser(t).get(`${jobUrl}/artifacts/browse`)
    assert.equal(top.status, 200, top.text)
    assert.ok(top.text.includes(`href="${jobUrl}/artifacts/browse/out">out/</a>`))
    assert.ok(top.text.includes('x&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.txt') && !top.text.includes('<img src=x'))
    assert.ok(top.text.includes(`${jobUrl}/artifacts/raw/x%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E.txt`))
    const out = await new Browser(t).get(`${jobUrl}/artifacts/browse/out`)
    assert.equal(out.status, 200)
    assert.ok(out.text.includes(`href="${jobUrl}/artifacts/browse/out/sub">sub/</a>`))
    assert.ok(out.text.includes(`href="${jobUrl}/artifacts/raw/out/page.html">page.html</a>`) && out.text.includes(`href="${jobUrl}/artifacts/file/out/data.bin"`))
    assert.ok(out.text.includes('3000 B') || out.text.includes('2.9 KB'))
    const sub = await new Browser(t).get(`${jobUrl}/artifacts/browse/out/sub`)
    assert.ok(sub.text.includes('deep.txt') && !sub.text.includes('page.html'))
    assert.equal((await new Browser(t).get(`${jobUrl}/artifacts/browse/nope`)).status, 404)
    assert.equal((await new Browser(t).get(`${jobUrl}/artifacts/browse/out/page.html`)).status, 404, 'a file is no directory')
  })

  it('serves one file as the API does and raw: exact bytes, never HTML, sandboxed', async () => {
    const file = await get(`${jobUrl}/artifacts/file/out/page.html`)
    assert.equal(file.statusCode, 200)
    assert.ok(file.rawPayload.equals(page))
    assert.equal(file.headers['content-type'], 'application/octet-stream')
    assert.equal(file.headers['content-disposition'], 'attachment; filename="page.html"')
    assert.match(String(file.headers['content-security-policy']), /sandbox/)
    const api = await rawRequest(t, 'GET', `/projects/${project.id}/jobs/${jobId}/artifacts/out/page.html`, {})
    assert.deepEqual([api.headers['content-type'], api.headers['content-disposition']], [file.headers['content-type'], file.headers['content-disposition']])

    const raw = await get(`${jobUrl}/artifacts/raw/out/page.html`)
    assert.equal(raw.statusCode, 200)
    assert.ok(raw.rawPayload.equals(page))
    assert.equal(raw.headers['content-type'], 'text/plain; charset=utf-8')
    assert.match(String(raw.headers['content-security-policy']), /sandbox/)
    assert.equal(raw.headers['x-content-type-options'], 'nosniff')
    const bin = await get(`${jobUrl}/artifacts/raw/out/data.bin`)
    assert.ok(bin.rawPayload.equals(binary))
    assert.equal(bin.headers['content-type'], 'application/octet-stream')
    assert.match(String(bin.headers['content-disposition']), /^attachment/)
    assert.equal((await get(`${jobUrl}/artifacts/raw/out/nope.txt`)).statusCode, 404)
    assert.equal((await get(`${jobUrl}/artifacts/file/out`)).statusCode, 404, 'a directory is no file')
    assert.equal((await get(`${jobUrl}/artifacts/other/out/page.html`)).statusCode, 404)
  })

  it('is read as the API\'s artifact routes allow: public jobs, else Reporters; an expired archive is gone', async () => {
    await t.ctx.db.updateTable('projects').set({ public_jobs: 0 }).where('id', '=', project.id).execute()
    try {
      for (const path of ['download', 'browse', 'file/out/page.html', 'raw/out/page.html']) {
        assert.equal((await get(`${jobUrl}/artifacts/${path}`)).statusCode, 404, path)
        assert.equal((await (await signedInBrowser(t, guest.user.username)).get(`${jobUrl}/artifacts/${path}`)).status, 404, path)
      }
      assert.equal((await rawRequest(t, 'GET', `/projects/${project.id}/jobs/${jobId}/artifacts/out/page.html`, {})).status, 403, 'the API refuses it too')
      assert.equal((await (await signedInBrowser(t, reporter.user.username)).get(`${jobUrl}/artifacts/browse`)).status, 200)
    } finally {
      await t.ctx.db.updateTable('projects').set({ public_jobs: 1 }).where('id', '=', project.id).execute()
    }
    await t.ctx.db.updateTable('ci_job_artifacts').set({ expire_at: Date.now() - 1000 }).where('job_id', '=', jobId).execute()
    assert.equal((await get(`${jobUrl}/artifacts/browse`)).statusCode, 404)
    assert.equal((await get(`${jobUrl}/artifacts/download`)).statusCode, 404)
    assert.ok(!(await new Browser(t).get(jobUrl)).text.includes('/artifacts/browse'))
  })
})
