// A job's trace and artifacts through @gitbeaker/rest against a real Ingot socket, the runner's side
// spoken over HTTP as a runner speaks it: a runner registers with the project's token, takes the
// job (jobs/request), appends its trace (PATCH with Content-Range), uploads a zip (multipart
// `file`) and reports success (PUT); then gitbeaker shows the job, reads its log, downloads the
// archive by job and by ref and job name, one file of it, keeps it, and erases the job.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import yazl from 'yazl'
import { startCompatServer, type Client, type CompatServer } from './server.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { ProjectRow } from '../../src/db/schema.js'

function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name)
  zip.end()
  const parts: Buffer[] = []
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (part: Buffer) => parts.push(part))
    zip.outputStream.on('end', () => resolve(Buffer.concat(parts)))
    zip.outputStream.on('error', reject)
  })
}

describe('compat: job traces and artifacts', () => {
  let server: CompatServer
  let owner: TestUser
  let client: Client
  let project: ProjectRow

  before(async () => {
    server = await startCompatServer()
    owner = await makeUser(server.t)
    client = server.client(owner.token)
    project = await makeProject(server.t, owner)
    await commitFiles(server.t, project.id, { '.gitlab-ci.yml': 'build: { script: make, artifacts: { paths: [out/] } }\n' })
  })
  after(async () => { await server.close() })

  /** A call of the runner protocol, as a runner makes it. */
  async function runnerCall(method: string, path: string, init: { json?: unknown; body?: string | FormData; headers?: Record<string, string> } = {}) {
    const headers = { ...(init.json === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers }
    return fetch(`${server.url}/api/v4${path}`, { method, headers, body: init.json === undefined ? init.body : JSON.stringify(init.json) })
  }

  it('shows, logs, downloads, keeps and erases what a runner sent', async () => {
    const registered = await (await runnerCall('POST', '/runners', { json: { token: project.runners_token, description: 'compat' } })).json() as { token: string }
    const pipeline = await client.Pipelines.create(project.id, 'master')
    const taken = await runnerCall('POST', '/jobs/request', { json: { token: registered.token, info: { name: 'gitlab-runner', version: '17.0.0' } } })
    assert.equal(taken.status, 201)
    const job = await taken.json() as { id: number; token: string }

    const trace = 'Running make\nCoverage: 87.5%\nJob succeeded\n'
    const patched = await runnerCall('PATCH', `/jobs/${job.id}/trace`, {
      body: trace, headers: { 'job-token': job.token, 'content-type': 'text/plain', 'content-range': `0-${trace.length - 1}` },
    })
    assert.equal(patched.status, 202)
    assert.equal(patched.headers.get('range'), `0-${trace.length}`)

    const archive = await zipOf({ 'out/report.txt': 'all good\n', 'out/app.bin': 'binary' })
    const form = new FormData()
    form.append('file', new Blob([archive]), 'artifacts.zip')
    const uploaded = await runnerCall('POST', `/jobs/${job.id}/artifacts?artifact_format=zip&artifact_type=archive&expire_in=1%20day`,
      { body: form, headers: { 'job-token': job.token } })
    assert.equal(uploaded.status, 201)
    assert.equal((await runnerCall('PUT', `/jobs/${job.id}`, { json: { token: job.token, state: 'success' } })).status, 200)

    const shown = await client.Jobs.show(project.id, job.id)
    assert.equal(shown.status, 'success')
    assert.equal(shown.pipeline.id, pipeline.id)
    assert.deepEqual(shown.artifacts_file, { filename: 'artifacts.zip', size: archive.length })
    assert.equal((shown.runner as { description: string }).description, 'compat')
    assert.ok(shown.artifacts_expire_at !== null)
    assert.equal(await client.Jobs.showLog(project.id, job.id), trace)

    const byJob = await client.JobArtifacts.downloadArchive(project.id, { jobId: job.id })
    assert.deepEqual(Buffer.from(await byJob.arrayBuffer()), archive)
    const byRef = await client.JobArtifacts.downloadArchive(project.id, { ref: 'master', job: 'build' })
    assert.deepEqual(Buffer.from(await byRef.arrayBuffer()), archive)
    const oneFile = await client.JobArtifacts.downloadArchive(project.id, { jobId: job.id, artifactPath: 'out/report.txt' })
    assert.equal(await oneFile.text(), 'all good\n')

    const kept = await client.JobArtifacts.keep(project.id, job.id)
    assert.equal(kept.artifacts_expire_at, null)
    const erased = await client.Jobs.erase(project.id, job.id)
    assert.equal(erased.artifacts_file, undefined)
    assert.deepEqual(erased.artifacts, [])
    assert.equal(await client.Jobs.showLog(project.id, job.id), '')
  })
})
