// How a runner acts for a job it took: the job token, as the `token` parameter or the JOB-TOKEN
// header (the original's authenticate_job!). An unknown job is 404; a token that is not this
// job's is 403; a job that is no longer running is 403 with `Job-Status: <status>`, which is how a
// cancel reaches the runner that runs the job.
import type { FastifyRequest } from 'fastify'
import type { CiBuildRow } from '../../db/schema.js'
import { ApiError, forbidden, notFound } from '../../common/errors.js'
import { tokenDigest } from '../../auth/secrets.js'
import { findCiJob } from '../../services/ci/job-token.js'

/** The job token the request carries: the JOB-TOKEN header, else `token` in the body or the query; '' for none. */
export function jobTokenOf(req: FastifyRequest): string {
  const header = req.headers['job-token']
  if (typeof header === 'string' && header !== '') return header
  for (const source of [req.body, req.query]) {
    const token = (source as { token?: unknown } | null | undefined)?.token
    if (typeof token === 'string' && token !== '') return token
  }
  return ''
}

/** The job `jobId` when the request carries its token; 404/403 otherwise (above). */
export async function requireJobToken(req: FastifyRequest, jobId: number): Promise<CiBuildRow> {
  const job = await findCiJob(req.ingot.db, jobId)
  if (job === null) throw notFound()
  const token = jobTokenOf(req)
  if (token === '' || job.token_digest === null || tokenDigest(token) !== job.token_digest) throw forbidden()
  return job
}

/** As requireJobToken, for a job that must still be running. */
export async function requireRunningJob(req: FastifyRequest, jobId: number): Promise<CiBuildRow> {
  const job = await requireJobToken(req, jobId)
  if (job.status !== 'running') {
    throw new ApiError(403, { message: '403 Forbidden - Job is not running' }, { 'Job-Status': job.status })
  }
  return job
}
