// A CI job that is running and holds a job token, made through Ingot's own services (a pipeline from
// the API, then transitions.startJob) without the runner protocol's jobs/request; and the runner's
// raw requests (trace PATCH, multipart uploads) that the JSON helper of app.ts does not send.
import assert from 'node:assert/strict'
import type { Readable } from 'node:stream'
import type { TestApp } from './app.js'
import { newJobToken } from '../../src/services/ci/job-token.js'
import { startJob } from '../../src/services/ci/transitions.js'

export interface RunningJob {
  id: number
  pipelineId: number
  token: string
}

/** Creates a pipeline on `ref` (as `userToken`) and returns its jobs' ids by name. */
export async function newPipeline(t: TestApp, projectId: number, userToken: string, ref = 'master'): Promise<{ id: number; jobs: Record<string, number> }> {
  const res = await t.api('POST', `/projects/${projectId}/pipeline`, { token: userToken, body: { ref } })
  assert.equal(res.status, 201, res.text)
  const rows = await t.ctx.db.selectFrom('ci_builds').select(['id', 'name']).where('pipeline_id', '=', res.body.id).execute()
  return { id: res.body.id, jobs: Object.fromEntries(rows.map((row) => [row.name, row.id])) }
}

/** Puts a pending job into running with a fresh job token, as jobs/request would. */
export async function runJob(t: TestApp, jobId: number): Promise<RunningJob> {
  const { token, digest } = newJobToken()
  await t.ctx.db.updateTable('ci_builds').set({ token_digest: digest }).where('id', '=', jobId).execute()
  const started = await startJob(t.ctx, jobId)
  assert.ok(started !== null, `job ${jobId} was not pending`)
  return { id: jobId, pipelineId: started.pipeline_id, token }
}

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  text: string
  body: any
  raw: Buffer
}

/** A request to /api/v4 with a raw body and headers of the caller's choosing. */
export async function rawRequest(t: TestApp, method: string, url: string, headers: Record<string, string>, payload?: Buffer | string | Readable): Promise<RawResponse> {
  const response = await t.app.inject({ method: method as 'PATCH', url: `/api/v4${url}`, headers, ...(payload === undefined ? {} : { payload }) })
  let body: unknown
  try {
    body = response.body === '' ? undefined : JSON.parse(response.body)
  } catch {
    body = undefined
  }
  return { status: response.statusCode, headers: response.headers, text: response.body, body, raw: response.rawPayload }
}

/** Appends to a running job's trace as a runner does. */
export function patchTrace(t: TestApp, job: RunningJob, start: number, data: string | Buffer): Promise<RawResponse> {
  const length = Buffer.byteLength(data)
  return rawRequest(t, 'PATCH', `/jobs/${job.id}/trace`, {
    'job-token': job.token, 'content-type': 'text/plain', 'content-range': `${start}-${start + length - 1}`,
  }, data)
}

export const BOUNDARY = 'ingot-test-boundary'

/** A multipart/form-data body: fields first, then the file part named `file` (as runners send it). */
export function multipartBody(file: { name: string; data: Buffer } | null, fields: Record<string, string> = {}): Buffer {
  const parts: Buffer[] = []
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  }
  if (file !== null) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="${file.name}"\r\ncontent-type: application/octet-stream\r\n\r\n`))
    parts.push(file.data, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`))
  return Buffer.concat(parts)
}

export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`
