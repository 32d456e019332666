// Artifacts: the runner's multipart upload streamed to blob storage (201, 400 without a file, 413
// past max_artifacts_size whether Content-Length says so or the stream shows it, 403 with
// Job-Status for a job that ended), the runner's download by a job of the same pipeline, and the
// API's: the archive, one file of it, the newest successful job's by ref, keep, erase, expiry,
// the Job entity's artifact fields, statistics, and blobs removed with their pipeline or project.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import yazl from 'yazl'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeProject } from '../helpers/factories.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { MULTIPART_TYPE, multipartBody, newPipeline, patchTrace, rawRequest, runJob, type RunningJob } from '../helpers/running-jobs.js'
import { finishJob } from '../../src/services/ci/transitions.js'
import { expireArtifacts, jobArtifactsPrefix, projectArtifactsPrefix } from '../../src/services/ci/artifacts.js'

const CI_FILE = `
build: { stage: build, script: make }
lint: { stage: build, script: make lint }
`

function makeZip(files: Record<string, { data: Buffer; compress: boolean }>): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const [name, file] of Object.entries(files)) zip.addBuffer(file.data, name, { compress: file.compress, mode: 0o100644 })
  zip.end()
  const parts: Buffer[] = []
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (part: Buffer) => parts.push(part)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject)
  })
}

async function blobKeys(t: TestApp, prefix: string): Promise<string[]> {
  const keys: string[] = []
  for await (const blob of t.ctx.blobs.list(prefix)) keys.push(blob.key)
  return keys
}

describe('job artifacts', () => {
  let t: TestApp
  let m: Matrix
  let base: string
  let zip: Buffer
  const readme = Buffer.from('read me\n'.repeat(100))
  const binary = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31) % 256))

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t)
    base = `/projects/${m.project.id}`
    await commitFiles(t, m.project.id, { '.gitlab-ci.yml': CI_FILE })
    zip = await makeZip({ 'out/readme.txt': { data: readme, compress: true }, 'out/data.bin': { data: binary, compress: false } })
  })
  after(async () => { await t.close() })

  const upload = (job: RunningJob, body: Buffer | Readable, query = '', headers: Record<string, string> = {}) =>
    rawRequest(t, 'POST', `/jobs/${job.id}/artifacts${query}`, { 'job-token': job.token, 'content-type': MULTIPART_TYPE, ...headers }, body)

  async function jobWithArchive(name = 'build'): Promise<{ job: RunningJob; pipelineId: number }> {
    const pipeline = await newPipeline(t, m.project.id, m.users.developer.token)
    const job = await runJob(t, pipeline.jobs[name]!)
    const res = await upload(job, multipartBody({ name: 'artifacts.zip', data: zip }), '?artifact_type=archive&artifact_format=zip&expire_in=1%20week')
    assert.equal(res.status, 201, res.text)
    return { job, pipelineId: pipeline.id }
  }

  it('stores an uploaded archive: 201, the Job entity shows it, its files are indexed', async () => {
    const before = Date.now()
    const { job } = await jobWithArchive()
    const row = await t.ctx.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', job.id).executeTakeFirstOrThrow()
    assert.equal(row.size, zip.length)
    assert.equal(row.filename, 'artifacts.zip')
    assert.ok(row.expire_at! >= before + 7 * 86_400_000 && row.expire_at! <= Date.now() + 7 * 86_400_000)
    assert.deepEqual(await t.ctx.blobs.stat(row.blob_key), { key: row.blob_key, size: zip.length })
    const entries = await t.ctx.db.selectFrom('ci_job_artifact_entries').select(['path', 'size', 'mode']).where('artifact_id', '=', row.id).orderBy('path').execute()
    assert.deepEqual(entries, [{ path: 'out/data.bin', size: 5000, mode: 0o100644 }, { path: 'out/readme.txt', size: readme.length, mode: 0o100644 }])
    const shown = await t.api('GET', `${base}/jobs/${job.id}`, { token: m.tokens.reporter })
    assert.deepEqual(shown.body.artifacts_file, { filename: 'artifacts.zip', size: zip.length })
    assert.deepEqual(shown.body.artifacts, [{ file_type: 'archive', size: zip.length, filename: 'artifacts.zip', file_format: 'zip' }])
    assert.equal(shown.body.artifacts_expire_at, new Date(row.expire_at!).toISOString())
  })

  it('takes the instance\'s default expiry without expire_in, and other types of file', async () => {
    const pipeline = await newPipeline(t, m.project.id, m.users.developer.token)
    const job = await runJob(t, pipeline.jobs.lint!)
    const res = await upload(job, multipartBody({ name: 'junit.xml.gz', data: Buffer.from('gz') }), '?artifact_type=junit&artifact_format=gzip')
    assert.equal(res.status, 201, res.text)
    const row = await t.ctx.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', job.id).executeTakeFirstOrThrow()
    assert.equal(row.file_type, 'junit')
    // default_artifacts_expire_in: 30 days
    assert.ok(Math.abs(row.expire_at! - (Date.now() + 30 * 86_400_000)) < 60_000)
    const bad = await upload(job, multipartBody({ name: 'x', data: Buffer.from('x') }), '?artifact_type=nope')
    assert.equal(bad.status, 400)
    assert.deepEqual(bad.body, { error: 'artifact_type does not have a valid value' })
  })

  it('a second upload of a type replaces the first, its blob removed', async () => {
    const { job } = await jobWithArchive()
    const first = await t.ctx.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', job.id).executeTakeFirstOrThrow()
    const again = await upload(job, multipartBody({ name: 'again.zip', data: zip }))
    assert.equal(again.status, 201, again.text)
    const rows = await t.ctx.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', job.id).execute()
    assert.deepEqual(rows.map((row) => row.filename), ['again.zip'])
    assert.equal(await t.ctx.blobs.stat(first.blob_key), null)
    assert.deepEqual(await blobKeys(t, jobArtifactsPrefix(m.project.id, job.id)), [rows[0]!.blob_key])
  })

  it('400 without a file; 403 with Job-Status for a job that ended; 403 for a wrong token', async () => {
    const pipeline = await newPipeline(t, m.project.id, m.users.developer.token)
    const job = await runJob(t, pipeline.jobs.build!)
    const missing = await upload(job, multipartBody(null, { artifact_type: 'archive' }))
    assert.equal(missing.status, 400)
    assert.deepEqual(missing.body, { message: '400 (Bad request) "Missing artifacts file!" not given' })
    const wrong = await upload({ ...job, token: 'nope' }, multipartBody({ name: 'a.zip', data: zip }))
    assert.equal(wrong.status, 403)
    // The token may come as a form field before the file.
    const inForm = await rawRequest(t, 'POST', `/jobs/${job.id}/artifacts`, { 'content-type': MULTIPART_TYPE },
      multipartBody({ name: 'a.zip', data: zip }, { token: job.token }))
    assert.equal(inForm.status, 201, inForm.text)
    await finishJob(t.ctx, job.id, 'success')
    const ended = await upload(job, multipartBody({ name: 'a.zip', data: zip }))
    assert.equal(ended.status, 403)
    assert.equal(ended.headers['job-status'], 'success')
  })

  it('413 past max_artifacts_size, by Content-Length up front or counted as it streams; nothing kept', async () => {
    const settings = await t.api('PUT', '/application/settings', { body: { max_artifacts_size: 1 } })
    assert.equal(settings.status, 200, settings.text)
    try {
      const pipeline = await newPipeline(t, m.project.id, m.users.developer.token)
      const job = await runJob(t, pipeline.jobs.build!)
      const big = multipartBody({ name: 'big.zip', data: Buffer.alloc(1024 * 1024 + 10, 7) })
      const declared = await upload(job, big)
      assert.equal(declared.status, 413)
      assert.deepEqual(declared.body, { message: '413 Request Entity Too Large' })
      // A chunked body says nothing of its size: the bytes are counted as they arrive.
      const streamed = await upload(job, Readable.from((function* () {
        for (let i = 0; i < big.length; i += 64 * 1024) yield big.subarray(i, i + 64 * 1024)
      })()))
      assert.equal(streamed.status, 413)
      assert.equal(await t.ctx.db.selectFrom('ci_job_artifacts').select('id').where('job_id', '=', job.id).executeTakeFirst(), undefined)
      assert.deepEqual(await blobKeys(t, jobArtifactsPrefix(m.project.id, job.id)), [])
      const small = await upload(job, multipartBody({ name: 'small.zip', data: zip }))
      assert.equal(small.status, 201)
      const authorize = await t.api('POST', `/jobs/${job.id}/artifacts/authorize`, { token: null, headers: { 'job-token': job.token }, body: { filesize: 2 * 1024 * 1024 } })
      assert.equal(authorize.status, 413)
      const allowed = await t.api('POST', `/jobs/${job.id}/artifacts/authorize`, { token: null, headers: { 'job-token': job.token }, body: { filesize: 100 } })
      assert.equal(allowed.status, 200)
      assert.deepEqual(allowed.body, { MaximumSize: 1024 * 1024 })
    } finally {
      await t.api('PUT', '/application/settings', { body: { max_artifacts_size: 100 } })
    }
  })

  it('downloads: the archive (API and runner), one file of it, 404s', async () => {
    const { job, pipelineId } = await jobWithArchive()
    const archive = await rawRequest(t, 'GET', `${base}/jobs/${job.id}/artifacts`, { 'private-token': m.tokens.reporter! })
    assert.equal(archive.status, 200)
    assert.ok(archive.raw.equals(zip))
    assert.equal(archive.headers['content-disposition'], 'attachment; filename="artifacts.zip"')
    assert.equal(archive.headers['content-type'], 'application/octet-stream')
    const text = await rawRequest(t, 'GET', `${base}/jobs/${job.id}/artifacts/out/readme.txt`, { 'private-token': m.tokens.reporter! })
    assert.equal(text.status, 200)
    assert.ok(text.raw.equals(readme))
    assert.equal(text.headers['content-disposition'], 'attachment; filename="readme.txt"')
    const stored = await rawRequest(t, 'GET', `${base}/jobs/${job.id}/artifacts/out/data.bin`, { 'private-token': m.tokens.reporter! })
    assert.ok(stored.raw.equals(binary))
    assert.equal((await t.api('GET', `${base}/jobs/${job.id}/artifacts/out/none.txt`, { token: m.tokens.reporter })).status, 404)
    assert.equal((await t.api('GET', `${base}/jobs/${job.id}/artifacts/out`, { token: m.tokens.reporter })).status, 404)
    assert.equal((await t.api('GET', `${base}/jobs/${job.id}/artifacts`, { token: m.tokens.nonMember })).status, 404)

    const other = await newPipeline(t, m.project.id, m.users.developer.token)
    const noArchive = other.jobs.build!
    const none = await t.api('GET', `${base}/jobs/${noArchive}/artifacts`, { token: m.tokens.reporter })
    assert.equal(none.status, 404)
    assert.equal((await t.api('GET', `${base}/jobs/${noArchive}/artifacts/out/readme.txt`, { token: m.tokens.reporter })).status, 404)

    // The runner: a running job of the same pipeline, by its token; not one of another pipeline.
    const sibling = await runJob(t, (await t.ctx.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', pipelineId).where('name', '=', 'lint').executeTakeFirstOrThrow()).id)
    const byRunner = await rawRequest(t, 'GET', `/jobs/${job.id}/artifacts`, { 'job-token': sibling.token })
    assert.equal(byRunner.status, 200)
    assert.ok(byRunner.raw.equals(zip))
    const stranger = await runJob(t, noArchive)
    assert.equal((await rawRequest(t, 'GET', `/jobs/${job.id}/artifacts?token=${stranger.token}`, {})).status, 403)
    assert.equal((await rawRequest(t, 'GET', `/jobs/${noArchive}/artifacts?token=${stranger.token}`, {})).status, 404)
  })

  it('downloads the newest successful job\'s archive by ref and job name', async () => {
    const { job, pipelineId } = await jobWithArchive()
    const lint = await runJob(t, (await t.ctx.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', pipelineId).where('name', '=', 'lint').executeTakeFirstOrThrow()).id)
    await finishJob(t.ctx, job.id, 'success')
    await finishJob(t.ctx, lint.id, 'success')
    const res = await rawRequest(t, 'GET', `${base}/jobs/artifacts/master/download?job=build`, { 'private-token': m.tokens.reporter! })
    assert.equal(res.status, 200, res.text)
    assert.ok(res.raw.equals(zip))
    assert.equal((await t.api('GET', `${base}/jobs/artifacts/master/download?job=lint`, { token: m.tokens.reporter })).status, 404)
    assert.equal((await t.api('GET', `${base}/jobs/artifacts/feature/x/download?job=build`, { token: m.tokens.reporter })).status, 404)
    const noJob = await t.api('GET', `${base}/jobs/artifacts/master/download`, { token: m.tokens.reporter })
    assert.equal(noJob.status, 400)
  })

  it('keep clears the expiry; 404 without an archive', async () => {
    const { job } = await jobWithArchive()
    const path = `${base}/jobs/${job.id}/artifacts/keep`
    await expectStatuses(m, (token) => t.api('POST', path, { token }), { anonymous: 401, nonMember: 404, guest: 403, reporter: 403 })
    const res = await t.api('POST', path, { token: m.tokens.developer })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.artifacts_expire_at, null)
    const row = await t.ctx.db.selectFrom('ci_job_artifacts').select('expire_at').where('job_id', '=', job.id).executeTakeFirstOrThrow()
    assert.equal(row.expire_at, null)
    const other = await newPipeline(t, m.project.id, m.users.developer.token)
    assert.equal((await t.api('POST', `${base}/jobs/${other.jobs.build}/artifacts/keep`, { token: m.tokens.developer })).status, 404)
  })

  it('erase: 403 until the job is complete; then trace and artifacts go, 201 with the job', async () => {
    const { job } = await jobWithArchive()
    await patchTrace(t, job, 0, 'some output\n')
    const path = `${base}/jobs/${job.id}/erase`
    const running = await t.api('POST', path, { token: m.tokens.maintainer })
    assert.equal(running.status, 403)
    assert.deepEqual(running.body, { message: '403 Forbidden - Job is not erasable!' })
    await finishJob(t.ctx, job.id, 'failed', 'script_failure')
    await t.ctx.jobs.runDue(Date.now() + 5_000)
    await expectStatuses(m, (token) => t.api('POST', path, { token }), { anonymous: 401, nonMember: 404, reporter: 403 })
    // A Developer who did not start the job may not erase it.
    const res = await t.api('POST', path, { token: m.tokens.maintainer })
    assert.equal(res.status, 201, res.text)
    assert.deepEqual(res.body.artifacts, [])
    assert.equal(res.body.artifacts_file, undefined)
    const row = await t.ctx.db.selectFrom('ci_builds').select(['erased_at', 'erased_by_id']).where('id', '=', job.id).executeTakeFirstOrThrow()
    assert.equal(row.erased_by_id, m.users.maintainer.user.id)
    assert.ok(row.erased_at !== null)
    assert.equal((await t.api('GET', `${base}/jobs/${job.id}/trace`, { token: m.tokens.reporter })).text, '')
    assert.deepEqual(await blobKeys(t, jobArtifactsPrefix(m.project.id, job.id)), [])
    assert.equal((await t.api('POST', path, { token: m.tokens.maintainer })).status, 403)
  })

  it('expired artifacts are deleted with their blobs; traces stay', async () => {
    const { job } = await jobWithArchive()
    await t.ctx.db.updateTable('ci_job_artifacts').set({ expire_at: Date.now() - 1000 }).where('job_id', '=', job.id).execute()
    assert.ok(await expireArtifacts(t.ctx, 100) >= 1)
    assert.equal(await t.ctx.db.selectFrom('ci_job_artifacts').select('id').where('job_id', '=', job.id).executeTakeFirst(), undefined)
    assert.deepEqual(await blobKeys(t, jobArtifactsPrefix(m.project.id, job.id)), [])
    assert.equal(await t.ctx.db.selectFrom('ci_job_artifacts').select('id').where('file_type', '=', 'trace').where('expire_at', '<', Date.now()).executeTakeFirst(), undefined)
  })

  it('statistics count artifacts; deleting a pipeline or a project removes their blobs', async () => {
    const project = await makeProject(t, m.users.owner)
    await commitFiles(t, project.id, { '.gitlab-ci.yml': CI_FILE })
    const first = await newPipeline(t, project.id, m.users.owner.token)
    const job = await runJob(t, first.jobs.build!)
    assert.equal((await upload(job, multipartBody({ name: 'artifacts.zip', data: zip }))).status, 201)
    await t.ctx.jobs.runDue(Date.now() + 5_000)
    const shown = await t.api('GET', `/projects/${project.id}?statistics=true`, { token: m.users.owner.token })
    assert.equal(shown.body.statistics.job_artifacts_size, zip.length)
    assert.equal(shown.body.statistics.storage_size, shown.body.statistics.repository_size + zip.length)

    assert.equal((await t.api('DELETE', `/projects/${project.id}/pipelines/${first.id}`, { token: m.users.owner.token })).status, 204)
    assert.deepEqual(await blobKeys(t, jobArtifactsPrefix(project.id, job.id)), [])

    const second = await newPipeline(t, project.id, m.users.owner.token)
    const other = await runJob(t, second.jobs.build!)
    assert.equal((await upload(other, multipartBody({ name: 'artifacts.zip', data: zip }))).status, 201)
    assert.equal((await blobKeys(t, projectArtifactsPrefix(project.id))).length, 1)
    assert.equal((await t.api('DELETE', `/projects/${project.id}`, { token: m.users.owner.token })).status, 202)
    assert.deepEqual(await blobKeys(t, projectArtifactsPrefix(project.id)), [])
  })
})
