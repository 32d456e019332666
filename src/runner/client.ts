// The runner's side of the runner protocol (the original 11.5's `lib/api/runner.rb`, with what
// newer runners send): registration, the job request (long polled by the server), job updates,
// trace appends, artifact uploads and downloads. Plain HTTP with fetch, so the protocol Ingot's
// server speaks is exercised by a client that knows nothing else of it.
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'

export interface RunnerInfo {
  name: string
  version: string
  revision: string
  platform: string
  architecture: string
  executor: string
  features: Record<string, boolean>
}

export interface JobVariable { key: string; value: string; public?: boolean; masked?: boolean; file?: boolean }

export interface JobStep { name: string; script: string[]; timeout?: number; when?: string; allow_failure?: boolean }

export interface JobArtifacts {
  name?: string | null
  untracked?: boolean
  paths?: string[] | null
  when?: 'on_success' | 'on_failure' | 'always' | null
  expire_in?: string | null
  artifact_type?: string
  artifact_format?: string
}

export interface JobCache { key?: string | null; untracked?: boolean; paths?: string[] | null; policy?: string | null }

export interface JobDependency { id: number; name: string; token: string; artifacts_file?: { filename: string; size: number } | null }

/** The job as `POST /jobs/request` hands it out (fields the runner does not use are left out). */
export interface JobPayload {
  id: number
  token: string
  job_info: { name: string; stage: string; project_id: number; project_name: string }
  git_info: { repo_url: string; ref: string; sha: string; before_sha?: string; ref_type?: string; refspecs?: string[]; depth?: number }
  runner_info: { timeout?: number | null }
  variables: JobVariable[]
  steps: JobStep[]
  image?: { name?: string } | null
  services?: { name?: string }[] | null
  artifacts?: JobArtifacts[] | null
  cache?: (JobCache | null)[] | null
  dependencies?: JobDependency[] | null
}

/** What the server said about a job after an update: whether it still wants it run. */
export interface JobAnswer {
  status: number
  /** The job's status (`Job-Status`), when the server sent it. */
  jobStatus: string | null
}

export interface TraceAnswer extends JobAnswer {
  /** The server's trace size (the end of `Range: 0-<size>`), when sent. */
  remoteSize: number | null
}

export class ProtocolError extends Error {}

/** How long one call may take; the job request is long polled by the server, so it gets longer. */
const CALL_TIMEOUT_MS = 30_000
const POLL_TIMEOUT_MS = 90_000
const TRANSFER_TIMEOUT_MS = 60 * 60_000

export class RunnerClient {
  readonly baseUrl: string
  readonly info: RunnerInfo

  constructor(baseUrl: string, info: RunnerInfo) {
    this.baseUrl = baseUrl
    this.info = info
  }

  /** `POST /runners`: a new runner's id and token; null when the registration token is refused (403). */
  async register(registrationToken: string, options: { description: string; tags: string[]; runUntagged: boolean }): Promise<{ id: number; token: string } | null> {
    const response = await this.call('POST', '/runners', {
      token: registrationToken, description: options.description, info: this.info,
      run_untagged: options.runUntagged, tag_list: options.tags.join(','), locked: false,
    })
    if (response.status === 403) return null
    if (response.status !== 201) throw await unexpected('registering', response)
    const body = await response.json() as { id?: unknown; token?: unknown }
    if (typeof body.id !== 'number' || typeof body.token !== 'string') throw new ProtocolError('the registration answer has no id and token')
    return { id: body.id, token: body.token }
  }

  /** `POST /runners/verify`: whether the server still knows this runner token. */
  async verify(token: string): Promise<boolean> {
    const response = await this.call('POST', '/runners/verify', { token })
    await response.arrayBuffer()
    if (response.status === 200) return true
    if (response.status === 403) return false
    throw await unexpected('verifying the runner token', response)
  }

  /**
   * `POST /jobs/request`: a job (201), or null (204) with the queue's `X-GitLab-Last-Update`, which the
   * next request sends back so that the server can answer at once when nothing changed.
   * `forbidden` when the runner token is no longer known.
   */
  async requestJob(token: string, lastUpdate: string | null, signal?: AbortSignal): Promise<{ job: JobPayload | null; lastUpdate: string | null } | 'forbidden'> {
    const response = await this.call('POST', '/jobs/request', { token, info: this.info, ...(lastUpdate === null ? {} : { last_update: lastUpdate }) }, POLL_TIMEOUT_MS, signal)
    const nextUpdate = response.headers.get('x-gitlab-last-update') ?? lastUpdate
    if (response.status === 201) return { job: await response.json() as JobPayload, lastUpdate: nextUpdate }
    await response.arrayBuffer()
    if (response.status === 204) return { job: null, lastUpdate: nextUpdate }
    if (response.status === 403) return 'forbidden'
    // 409: another request took the same job first (the original's answer to a conflict); ask again.
    if (response.status === 409) return { job: null, lastUpdate: null }
    throw await unexpected('requesting a job', response)
  }

  /** `PUT /jobs/:id`: the job's state (running to say it was taken, then success or failed). */
  async updateJob(job: Pick<JobPayload, 'id' | 'token'>, update: { state: 'running' | 'success' | 'failed'; failure_reason?: string; trace?: string }): Promise<JobAnswer> {
    const response = await this.call('PUT', `/jobs/${job.id}`, { token: job.token, ...update })
    await response.arrayBuffer()
    return { status: response.status, jobStatus: response.headers.get('job-status') }
  }

  /** `PATCH /jobs/:id/trace`: appends `bytes` at `start` of the job's trace. */
  async appendTrace(job: Pick<JobPayload, 'id' | 'token'>, start: number, bytes: Buffer): Promise<TraceAnswer> {
    const response = await fetch(this.url(`/jobs/${job.id}/trace`), {
      method: 'PATCH',
      headers: {
        'job-token': job.token, 'content-type': 'text/plain',
        // As newer runners: the inclusive end of the bytes sent (the server reads only the start).
        'content-range': `${start}-${start + Math.max(bytes.length, 1) - 1}`,
      },
      body: bytes,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    })
    await response.arrayBuffer()
    const range = /^0-(\d+)$/.exec(response.headers.get('range') ?? '')
    return { status: response.status, jobStatus: response.headers.get('job-status'), remoteSize: range === null ? null : Number(range[1]) }
  }

  /**
   * `POST /jobs/:id/artifacts`: streams `archive` (the zip of artifacts, or a report as `type` and
   * `format` say) as the multipart field `file`, never holding it whole. The answer's status (201,
   * or 413 when over the server's limit).
   */
  async uploadArtifacts(
    job: Pick<JobPayload, 'id' | 'token'>, archive: Readable,
    options: { filename: string; expireIn: string | null; type?: string; format?: string },
  ): Promise<JobAnswer> {
    const boundary = `----ingot-runner-${job.id}-${Date.now().toString(36)}`
    const fields: Record<string, string> = { artifact_type: options.type ?? 'archive', artifact_format: options.format ?? 'zip' }
    if (options.expireIn !== null) fields.expire_in = options.expireIn
    const head = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('')
      + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${options.filename.replace(/["\r\n\\]/g, '_')}"\r\nContent-Type: application/octet-stream\r\n\r\n`
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from(head)
      for await (const chunk of archive) yield chunk as Buffer
      yield Buffer.from(`\r\n--${boundary}--\r\n`)
    }
    const response = await fetch(this.url(`/jobs/${job.id}/artifacts`), {
      method: 'POST',
      headers: { 'job-token': job.token, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.toWeb(Readable.from(body())),
      duplex: 'half',
      signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS),
    } as RequestInit)
    await response.arrayBuffer()
    return { status: response.status, jobStatus: response.headers.get('job-status') }
  }

  /** `GET /jobs/:id/artifacts` of a dependency, with the token of the job that depends on it: the zip as a stream, or null (404); `signal` stops it (a canceled or timed out job). */
  async downloadArtifacts(dependencyId: number, jobToken: string, signal: AbortSignal): Promise<Readable | null> {
    const response = await fetch(this.url(`/jobs/${dependencyId}/artifacts`), {
      headers: { 'job-token': jobToken },
      signal: AbortSignal.any([AbortSignal.timeout(TRANSFER_TIMEOUT_MS), signal]),
    })
    if (response.status === 404) {
      await response.arrayBuffer()
      return null
    }
    if (response.status !== 200 || response.body === null) throw await unexpected(`downloading the artifacts of job ${dependencyId}`, response)
    return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)
  }

  private url(route: string): string {
    return `${this.baseUrl}/api/v4${route}`
  }

  private call(method: string, route: string, body: unknown, timeoutMs = CALL_TIMEOUT_MS, signal?: AbortSignal): Promise<Response> {
    const timeout = AbortSignal.timeout(timeoutMs)
    return fetch(this.url(route), {
      method,
      headers: { 'content-type': 'application/json', 'user-agent': `${this.info.name} ${this.info.version}` },
      body: JSON.stringify(body),
      signal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]),
    })
  }
}

async function unexpected(what: string, response: Response): Promise<ProtocolError> {
  const text = (await response.text().catch(() => '')).slice(0, 200)
  return new ProtocolError(`${what}: the server answered ${response.status}${text === '' ? '' : ` ${text}`}`)
}
