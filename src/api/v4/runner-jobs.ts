// The job side of the runner protocol (the original 11.5's lib/api/runner.rb, `resource :jobs`):
// POST /jobs/request hands a runner a job (201 with the job, 204 with X-GitLab-Last-Update when none
// fits, held open a while first: services/ci/runner-protocol/request-job.ts), PUT /jobs/:id takes
// the runner's word on a job it runs. Runners authenticate with their token (`token`, or the
// RUNNER-TOKEN header newer runners add), jobs with the job token (job-token-auth.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { CiRunnerRow } from '../../db/schema.js'
import { JobRequestResponse, presentJobRequest } from '../../entities/job-request.js'
import { apiError, forbidden } from '../../common/errors.js'
import { findRunnerByToken } from '../../services/ci/runners/runner-token.js'
import { requestJob } from '../../services/ci/runner-protocol/request-job.js'
import { recordRunnerContact } from '../../services/ci/runners/runner-contact.js'
import { updateJobFromRunner } from '../../services/ci/runner-protocol/update-job.js'
import { requireRunningJob } from './job-token-auth.js'

const AnyHash = Type.Object({}, { additionalProperties: true })

const RequestBody = Type.Object({
  token: Type.Optional(Type.String({ description: "The runner's token (or the RUNNER-TOKEN header)" })),
  last_update: Type.Optional(Type.String({ description: 'The X-GitLab-Last-Update the runner was last given' })),
  info: Type.Optional(Type.Object({ features: Type.Optional(AnyHash) }, { additionalProperties: true })),
  session: Type.Optional(AnyHash),
})

const UpdateBody = Type.Object({
  token: Type.Optional(Type.String()),
  state: Type.Optional(Type.String({ description: 'running, success or failed' })),
  failure_reason: Type.Optional(Type.String()),
  trace: Type.Optional(Type.String({ description: 'The whole trace, replacing what was appended' })),
  // Newer runners' fields: accepted so that their requests validate, not kept (see docs/api.md).
  checksum: Type.Optional(Type.String()),
  output: Type.Optional(AnyHash),
  exit_code: Type.Optional(Type.Integer()),
})

/** The runner the request's token names: 400 without a token, 403 for an unknown one (the original's authenticate_runner!). */
async function requireRunner(req: FastifyRequest, bodyToken: string | undefined): Promise<CiRunnerRow> {
  const header = req.headers['runner-token']
  const token = typeof header === 'string' && header !== '' ? header : bodyToken ?? ''
  if (token === '') throw apiError(400, 'token is missing')
  const runner = await findRunnerByToken(req.ingot.db, token)
  if (runner === null) throw forbidden()
  return runner
}

const runnerJobs: FastifyPluginAsyncTypebox = async (app) => {
  // Held requests answer at once when the server closes, so that closing does not wait for them.
  app.addHook('preClose', async () => app.ingot.pendingJobs.close())

  app.post('/jobs/request', {
    config: { auth: 'none' },
    schema: { body: RequestBody, response: { 201: JobRequestResponse, 204: Type.Null() } },
  }, async (req, reply) => {
    const runner = await requireRunner(req, req.body.token)
    await recordRunnerContact(req.ingot.db, runner, { info: req.body.info, ipAddress: req.ip })
    const abort = new AbortController()
    reply.raw.once('close', () => { if (!reply.raw.writableFinished) abort.abort() })
    const outcome = await requestJob(req.ingot, runner, {
      lastUpdate: req.body.last_update, features: req.body.info?.features ?? {}, abort: abort.signal,
    })
    switch (outcome.kind) {
      case 'job': return reply.code(201).send(presentJobRequest(outcome.view))
      case 'none': return reply.code(204).header('X-GitLab-Last-Update', outcome.lastUpdate).send(null)
      case 'conflict': throw apiError(409, '409 Conflict')
    }
  })

  app.put('/jobs/:id', {
    config: { auth: 'none' },
    schema: { params: Type.Object({ id: Type.Integer() }), body: UpdateBody },
  }, async (req, reply) => {
    const job = await requireRunningJob(req, req.params.id)
    await updateJobFromRunner(req.ingot, job, { state: req.body.state, failureReason: req.body.failure_reason, trace: req.body.trace })
    return reply.code(200).send()
  })
}

export default runnerJobs
