// A job's artifacts on the API side (the original's lib/api/job_artifacts.rb and erase in jobs.rb):
// the archive of a job, the archive of the newest successful job of a name on a ref, one file of an
// archive (served from its place in the zip, found in the index made at upload), keep (no expiry)
// and erase (trace and artifacts removed; Maintainers, or the Developer who started the job).
// Downloads are attachments, as the original sends them. A job's archive also downloads with the
// token of a running job of the same pipeline (JOB-TOKEN, `job_token`), as that job's user: a job
// token reads the artifacts of its pipeline and nothing else (11.5 let it read whatever its user
// could, by ref too; Ingot keeps it to its pipeline).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'
import type { Db } from '../../db/index.js'
import type { CiJobArtifactRow } from '../../db/schema.js'
import { Job } from '../../entities/job.js'
import { artifactsByJob, latestSuccessfulArchive, liveArchive } from '../../finders/job-artifacts-finder.js'
import { findJob } from '../../finders/jobs-finder.js'
import { eraseJob, keepArtifacts, openArtifactEntry } from '../../services/ci/artifacts.js'
import { uploadContentType } from '../../services/uploads/attachments.js'
import { canOnProject } from '../../policies/project-policy.js'
import { apiError, forbidden, notFound } from '../../common/errors.js'
import { authorize, loadProjectFor, requireActor } from '../load.js'
import { IdParams } from '../params.js'
import { sendAttachment } from '../attachment.js'
import { loadJob, presentOne } from './jobs.js'

const JobParams = Type.Composite([IdParams, Type.Object({ job_id: Type.Integer() })])
const JobPathParams = Type.Composite([JobParams, Type.Object({ '*': Type.String() })])
const RefPathParams = Type.Composite([IdParams, Type.Object({ '*': Type.String() })])

async function jobArchive(db: Db, jobId: number): Promise<CiJobArtifactRow | null> {
  return liveArchive((await artifactsByJob(db, [jobId])).get(jobId) ?? [])
}

async function sendArchive(reply: FastifyReply, archive: CiJobArtifactRow | null): Promise<FastifyReply> {
  const stream = archive === null ? null : await reply.request.ingot.blobs.get(archive.blob_key)
  if (archive === null || stream === null) throw notFound()
  return sendAttachment(reply, archive.filename, 'application/octet-stream', archive.size, stream)
}

const jobArtifacts: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects/:id/jobs/:job_id/artifacts', {
    config: { auth: 'optional', jobToken: true },
    schema: { params: JobParams },
  }, async (req, reply) => {
    const { job } = await loadJob(req, req.params.id, req.params.job_id, 'read_build')
    // A job's token reads the artifacts of its own pipeline and nothing else.
    if (req.actor?.job !== undefined && req.actor.job.pipelineId !== job.pipeline_id) throw notFound()
    return sendArchive(reply, await jobArchive(req.ingot.db, job.id))
  })

  // `:ref_name` may hold slashes (feature/x): the rest of the path, up to `/download`.
  app.get('/projects/:id/jobs/artifacts/*', {
    config: { auth: 'optional' },
    schema: { params: RefPathParams, querystring: Type.Object({ job: Type.String() }) },
  }, async (req, reply) => {
    const ref = /^(.+)\/download$/.exec(req.params['*'])?.[1]
    if (ref === undefined) throw notFound()
    const loaded = await loadProjectFor(req, req.params.id, 'read_build')
    return sendArchive(reply, await latestSuccessfulArchive(req.ingot.db, loaded.project.id, ref, req.query.job))
  })

  app.get('/projects/:id/jobs/:job_id/artifacts/*', {
    config: { auth: 'optional' },
    schema: { params: JobPathParams },
  }, async (req, reply) => {
    const { job } = await loadJob(req, req.params.id, req.params.job_id, 'read_build')
    const archive = await jobArchive(req.ingot.db, job.id)
    if (archive === null) throw notFound()
    const path = req.params['*']
    // The original's Artifacts::Path: a path with a NUL is no path (app.ts refuses NULs before this).
    if (path === '') throw apiError(400, '400 (Bad request)')
    const entry = await openArtifactEntry(req.ingot, archive, path)
    if (entry === null) throw notFound()
    const name = path.split('/').pop()!
    return sendAttachment(reply, name, uploadContentType(name).type, entry.size, entry.stream)
  })

  app.post('/projects/:id/jobs/:job_id/artifacts/keep', {
    schema: { params: JobParams, response: { 200: Job } },
  }, async (req) => {
    const { loaded, job } = await loadJob(req, req.params.id, req.params.job_id, 'update_build')
    if (await jobArchive(req.ingot.db, job.id) === null) throw notFound()
    await keepArtifacts(req.ingot.db, job.id)
    return presentOne(req, loaded, { ...job, artifacts_expire_at: null })
  })

  app.post('/projects/:id/jobs/:job_id/erase', {
    schema: { params: JobParams, response: { 201: Job } },
  }, async (req, reply) => {
    const actor = requireActor(req)
    const { loaded, job } = await loadJob(req, req.params.id, req.params.job_id, 'update_build')
    // The original's erase_build: Maintainers, or the Developer whose job it is.
    authorize(canOnProject(actor, loaded, 'admin_project') || job.user_id === actor.user.id)
    const outcome = await eraseJob(req.ingot, job.id, actor.user.id)
    if ('refused' in outcome) throw forbidden('Job is not erasable!')
    reply.code(201)
    return presentOne(req, loaded, await findJob(req.ingot.db, loaded.project.id, job.id) ?? job)
  })
}

export default jobArtifacts
