// Traces: the runner's PATCH /jobs/:id/trace (Content-Range, 416 with the trace's Range, 202 with
// Range and Job-Status, 403 with Job-Status once the job ended, concurrent appends), reads of a live
// trace and of an archived one, the archive after a job ends (chunks into blob storage, a `trace`
// artifact), coverage from the trace into the job and its pipeline, and replaceTrace.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { newPipeline, patchTrace, rawRequest, runJob } from '../helpers/running-jobs.js'
import { cancelJob, finishJob } from '../../src/services/ci/transitions.js'
import { TRACE_CHUNK_SIZE, replaceTrace, unarchivedTraceJobIds } from '../../src/services/ci/trace.js'

const CI_FILE = `
build: { stage: build, script: make, coverage: '/Coverage: (\\d+\\.\\d+)%/' }
lint: { stage: build, script: make lint }
`

describe('job traces', () => {
  let t: TestApp
  let m: Matrix
  let base: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t)
    base = `/projects/${m.project.id}`
    await commitFiles(t, m.project.id, { '.gitlab-ci.yml': CI_FILE })
  })
  after(async () => { await t.close() })

  const readTrace = (jobId: number) => t.api('GET', `${base}/jobs/${jobId}/trace`, { token: m.tokens.reporter })
  const runAllJobs = () => t.ctx.jobs.runDue(Date.now() + 5_000)

  it('appends at the trace\'s end: 202 with Range and Job-Status; 416 with the Range to resume from', async () => {
    const job = await runJob(t, (await newPipeline(t, m.project.id, m.users.developer.token)).jobs.build!)
    const first = await patchTrace(t, job, 0, 'hello')
    assert.equal(first.status, 202, first.text)
    assert.equal(first.headers.range, '0-5')
    assert.equal(first.headers['job-status'], 'running')
    const overlapping = await patchTrace(t, job, 3, 'lo world')
    assert.equal(overlapping.status, 416)
    assert.equal(overlapping.headers.range, '0-5')
    assert.deepEqual(overlapping.body, { message: '416 Range Not Satisfiable' })
    const ahead = await patchTrace(t, job, 9, 'x')
    assert.equal(ahead.status, 416)
    const second = await patchTrace(t, job, 5, ' world\n')
    assert.equal(second.status, 202)
    assert.equal(second.headers.range, '0-12')
    const live = await readTrace(job.id)
    assert.equal(live.status, 200)
    assert.match(String(live.headers['content-type']), /^text\/plain/)
    assert.equal(live.text, 'hello world\n')
    const touched = await t.ctx.db.selectFrom('ci_builds').select('updated_at').where('id', '=', job.id).executeTakeFirstOrThrow()
    assert.ok(Date.now() - touched.updated_at < 5_000)
  })

  it('refuses a PATCH without Content-Range, with a wrong token, for an unknown job', async () => {
    const job = await runJob(t, (await newPipeline(t, m.project.id, m.users.developer.token)).jobs.build!)
    const noRange = await rawRequest(t, 'PATCH', `/jobs/${job.id}/trace`, { 'job-token': job.token, 'content-type': 'text/plain' }, 'x')
    assert.equal(noRange.status, 400)
    assert.deepEqual(noRange.body, { message: '400 Missing header Content-Range' })
    const wrongToken = await patchTrace(t, { ...job, token: 'nope' }, 0, 'x')
    assert.equal(wrongToken.status, 403)
    const unknown = await patchTrace(t, { ...job, id: 99999999 }, 0, 'x')
    assert.equal(unknown.status, 404)
    // Any content type, or none, is the trace's bytes.
    const octets = await rawRequest(t, 'PATCH', `/jobs/${job.id}/trace?token=${job.token}`, { 'content-type': 'application/json', 'content-range': '0-1' }, '{"')
    assert.equal(octets.status, 202, octets.text)
    const untyped = await rawRequest(t, 'PATCH', `/jobs/${job.id}/trace`, { 'job-token': job.token, 'content-range': '2-2' }, Buffer.from('}'))
    assert.equal(untyped.status, 202, untyped.text)
    assert.equal((await readTrace(job.id)).text, '{"}')
  })

  it('answers 403 with Job-Status once the job is no longer running', async () => {
    const job = await runJob(t, (await newPipeline(t, m.project.id, m.users.developer.token)).jobs.build!)
    await cancelJob(t.ctx, job.id)
    const res = await patchTrace(t, job, 0, 'late')
    assert.equal(res.status, 403)
    assert.equal(res.headers['job-status'], 'canceled')
  })

  it('keeps a trace across chunks, byte for byte', async () => {
    const job = await runJob(t, (await newPipeline(t, m.project.id, m.users.developer.token)).jobs.build!)
    const data = Buffer.alloc(TRACE_CHUNK_SIZE * 2 + 1234)
    for (let i = 0; i < data.length; i++) data[i] = 32 + (i * 7) % 90
    let offset = 0
    for (const size of [1000, TRACE_CHUNK_SIZE - 1000 + 5, TRACE_CHUNK_SIZE + 10, data.length]) {
      const end = Math.min(size + offset, data.length)
      if (end <= offset) break
      const res = await patchTrace(t, job, offset, data.subarray(offset, end))
      assert.equal(res.status, 202, res.text)
      offset = end
    }
    assert.equal(offset, data.length)
    // Each append inserts its own chunks, none longer than TRACE_CHUNK_SIZE, one after the other.
    const chunks = await t.ctx.db.selectFrom('ci_build_trace_chunks').select(['start_offset', 'size']).where('build_id', '=', job.id).orderBy('start_offset').execute()
    assert.deepEqual(chunks.map((chunk) => [Number(chunk.start_offset), chunk.size]), [
      [0, 1000], [1000, TRACE_CHUNK_SIZE - 995], [TRACE_CHUNK_SIZE + 5, TRACE_CHUNK_SIZE], [2 * TRACE_CHUNK_SIZE + 5, 10],
      [2 * TRACE_CHUNK_SIZE + 15, data.length - 2 * TRACE_CHUNK_SIZE - 15],
    ])
    assert.ok((await readTrace(job.id)).text === data.toString('latin1'))
  })

  it('applies concurrent appends of one job one after the other: one wins each offset', async () => {
    const job = await runJob(t, (await newPipeline(t, m.project.id, m.users.developer.token)).jobs.build!)
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => patchTrace(t, job, 0, `writer ${i}\n`)))
    assert.equal(results.filter((res) => res.status === 202).length, 1)
    assert.equal(results.filter((res) => res.status === 416).length, 9)
    const winner = (await readTrace(job.id)).text
    assert.match(winner, /^writer \d\n$/)
    // Runners that resend from the Range they were given all get through, in some order.
    const resends = await Promise.all(Array.from({ length: 5 }, async (_, i) => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const size = Number(String((await patchTrace(t, job, 0, '')).headers.range).split('-')[1])
        const res = await patchTrace(t, job, size, `line ${i}\n`)
        if (res.status === 202) return true
      }
      return false
    }))
    assert.ok(resends.every(Boolean))
    assert.equal((await readTrace(job.id)).text.split('\n').length, 7)
  })

  it('archives the trace when the job ends: a trace artifact in blob storage, the chunks gone, reads the same', async () => {
    const pipeline = await newPipeline(t, m.project.id, m.users.developer.token)
    const job = await runJob(t, pipeline.jobs.lint!)
    await patchTrace(t, job, 0, 'line one\nline two\n')
    await finishJob(t.ctx, job.id, 'success')
    await runAllJobs()
    const chunks = await t.ctx.db.selectFrom('ci_build_trace_chunks').select('start_offset').where('build_id', '=', job.id).execute()
    assert.equal(chunks.length, 0)
    const artifact = await t.ctx.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', job.id).executeTakeFirstOrThrow()
    assert.equal(artifact.file_type, 'trace')
    assert.equal(artifact.size, 18)
    assert.deepEqual(await t.ctx.blobs.stat(artifact.blob_key), { key: artifact.blob_key, size: 18 })
    assert.equal((await readTrace(job.id)).text, 'line one\nline two\n')
    const shown = await t.api('GET', `${base}/jobs/${job.id}`, { token: m.tokens.reporter })
    assert.deepEqual(shown.body.artifacts, [{ file_type: 'trace', size: 18, filename: 'job.log', file_format: 'raw' }])
    assert.equal(shown.body.artifacts_file, undefined)
  })

  it('sets the coverage of the last line the job\'s pattern matches, and the pipeline\'s average', async () => {
    const pipeline = await newPipeline(t, m.project.id, m.users.developer.token)
    const build = await runJob(t, pipeline.jobs.build!)
    await patchTrace(t, build, 0, 'Coverage: 12.50%\nnoise\nCoverage: 80.25% of lines\nCoverage: none\n')
    await finishJob(t.ctx, build.id, 'success')
    await runAllJobs()
    const job = await t.api('GET', `${base}/jobs/${build.id}`, { token: m.tokens.reporter })
    assert.equal(job.body.coverage, 80.25)
    const shown = await t.api('GET', `${base}/pipelines/${pipeline.id}`, { token: m.tokens.reporter })
    assert.equal(shown.body.coverage, '80.25')
  })

  it('replaceTrace puts a whole trace in place of the chunks', async () => {
    const job = await runJob(t, (await newPipeline(t, m.project.id, m.users.developer.token)).jobs.lint!)
    await patchTrace(t, job, 0, 'partial')
    await replaceTrace(t.ctx, job.id, 'the whole trace, as the runner sent it at the end\n')
    assert.equal((await readTrace(job.id)).text, 'the whole trace, as the runner sent it at the end\n')
    const next = await patchTrace(t, job, 0, 'x')
    assert.equal(next.headers.range, '0-50')
  })

  it('the sweep finds ended jobs whose trace was not archived', async () => {
    const job = await runJob(t, (await newPipeline(t, m.project.id, m.users.developer.token)).jobs.lint!)
    await patchTrace(t, job, 0, 'left behind')
    await t.ctx.db.updateTable('ci_builds').set({ status: 'failed', finished_at: Date.now() - 60 * 60_000 }).where('id', '=', job.id).execute()
    assert.ok((await unarchivedTraceJobIds(t.ctx.db, Date.now() - 10 * 60_000, 100)).includes(job.id))
    await t.ctx.jobs.enqueue((await import('../../src/services/ci/jobs.js')).ARCHIVE_MISSED_TRACES, null)
    await runAllJobs()
    assert.ok(!(await unarchivedTraceJobIds(t.ctx.db, Date.now(), 100)).includes(job.id))
    assert.equal((await readTrace(job.id)).text, 'left behind')
  })

  it('reads are the jobs\' readers\'', async () => {
    const job = await runJob(t, (await newPipeline(t, m.project.id, m.users.developer.token)).jobs.lint!)
    await patchTrace(t, job, 0, 'secret-ish')
    assert.equal((await t.api('GET', `${base}/jobs/${job.id}/trace`, { token: m.tokens.nonMember })).status, 404)
  })
})
