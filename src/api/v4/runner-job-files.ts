// The runner's side of a job's trace and artifacts (the original's lib/api/runner.rb), with the job
// token: PATCH /jobs/:id/trace appends to the trace at the offset Content-Range starts at (416 with
// the trace's Range when it is not the trace's end; 202 with Range and Job-Status);
// POST /jobs/:id/artifacts streams the multipart `file` into blob storage (413 past
// max_artifacts_size, counted as it arrives; never held whole); POST /jobs/:id/artifacts/authorize
// is Workhorse's pre-flight; GET /jobs/:id/artifacts gives the archive to a job of the same pipeline.
// Bodies here are not the API's parameters: each upload route sits in a plugin of its own whose
// content-type parser hands the raw body (PATCH) or the request stream (multipart) to the route.
import type { IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import Busboy from 'busboy'
import type { CiArtifactFileFormat, CiArtifactFileType, CiBuildRow } from '../../db/schema.js'
import { ApiError, apiError, badRequestNotGiven, forbidden, notFound } from '../../common/errors.js'
import { appendTrace } from '../../services/ci/trace.js'
import {
  ARTIFACT_FILE_FORMATS, ARTIFACT_FILE_TYPES, ArtifactTooLargeError, artifactsExpireAt, maxArtifactsBytes, storeArtifact,
} from '../../services/ci/artifacts.js'
import { findCiJob, findJobByToken } from '../../services/ci/job-token.js'
import { findJobArtifact } from '../../finders/job-artifacts-finder.js'
import { sanitizedUploadName } from '../../services/uploads/attachments.js'
import { jobTokenOf, requireRunningJob } from './job-token-auth.js'
import { attachmentDisposition } from '../attachment.js'
import { isoTime } from '../../db/values.js'

const JobIdParams = Type.Object({ id: Type.Integer() })

/** The most one PATCH may carry; runners send a few hundred kilobytes at a time. */
const TRACE_PATCH_LIMIT = 16 * 1024 * 1024
/** What a multipart body may carry beyond its file: boundaries, part headers, small fields. */
const MULTIPART_ALLOWANCE = 64 * 1024

const rawBodies = new WeakMap<FastifyRequest, Buffer>()
const multipartBodies = new WeakMap<FastifyRequest, IncomingMessage>()

const jobNotRunning = (job: Pick<CiBuildRow, 'status'>) =>
  new ApiError(403, { message: '403 Forbidden - Job is not running' }, { 'Job-Status': job.status })
const tooLarge = () => apiError(413, '413 Request Entity Too Large')
const invalidValue = (name: string) => new ApiError(400, { error: `${name} does not have a valid value` })

/** PATCH /jobs/:id/trace, its body raw whatever its type. */
const tracePatch: FastifyPluginAsyncTypebox = async (app) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: TRACE_PATCH_LIMIT }, (req, body, done) => {
    rawBodies.set(req, body as Buffer)
    done(null, {})
  })

  app.patch('/jobs/:id/trace', {
    config: { auth: 'none' },
    schema: { params: JobIdParams },
  }, async (req, reply) => {
    const job = await requireRunningJob(req, req.params.id)
    const range = req.headers['content-range']
    if (typeof range !== 'string') throw apiError(400, '400 Missing header Content-Range')
    // Only the start counts (runners have sent ends off by one); a start that does not read is 0, as Ruby's to_i.
    const start = Number(/^\s*(\d+)/.exec(range)?.[1] ?? 0)
    const outcome = await appendTrace(req.ingot, job.id, start, rawBodies.get(req) ?? Buffer.alloc(0))
    if ('notRunning' in outcome) throw jobNotRunning({ status: outcome.notRunning })
    if (!outcome.appended) throw new ApiError(416, { message: '416 Range Not Satisfiable' }, { Range: `0-${outcome.size}` })
    return reply.code(202).header('Job-Status', job.status).header('Range', `0-${outcome.size}`).send()
  })
}

interface ReceivedFile {
  stream: Readable
  filename: string
  /** The form's fields that came before the file. */
  fields: Record<string, string>
}

/**
 * Reads the multipart body up to its `file` part; null when it has none. Fields after the file are
 * not read (runners put their parameters in the query); other file parts are skipped.
 */
function receiveFile(req: FastifyRequest, body: IncomingMessage): Promise<ReceivedFile | null> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {}
    let busboy: Busboy.Busboy
    try {
      busboy = Busboy({ headers: req.headers, limits: { fields: 50, fieldSize: 64 * 1024, parts: 100 } })
    } catch {
      resolve(null)
      return
    }
    let received = false
    busboy.on('field', (name, value) => { fields[name] = value })
    busboy.on('file', (name, stream, info) => {
      if (name !== 'file' || received) {
        stream.resume()
        return
      }
      received = true
      resolve({ stream, filename: sanitizedUploadName(info.filename ?? 'artifacts'), fields })
    })
    busboy.on('close', () => resolve(null))
    busboy.on('error', () => (received ? undefined : reject(apiError(400, '400 Bad request - the multipart body does not read'))))
    body.on('error', (err) => busboy.destroy(err))
    body.pipe(busboy)
  })
}

function queryParams(req: FastifyRequest): Record<string, unknown> {
  return req.query as Record<string, unknown>
}

/** A parameter from the query or a form field before the file (the form wins, as the original merges them). */
function paramOf(req: FastifyRequest, fields: Record<string, string>, name: string): string | undefined {
  const value = fields[name] ?? queryParams(req)[name]
  return typeof value === 'string' ? value : undefined
}

/** Stops reading an upload that is refused: the connection closes after the answer. */
function abandonUpload(reply: FastifyReply, body: IncomingMessage | undefined): void {
  body?.unpipe()
  void reply.header('connection', 'close')
}

/** POST /jobs/:id/artifacts, the multipart body passed on as a stream. */
const artifactUpload: FastifyPluginAsyncTypebox = async (app) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    multipartBodies.set(req, payload)
    done(null, {})
  })
  // Any other body holds no file: answered as a missing one, its bytes not read.
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, {}))

  app.post('/jobs/:id/artifacts', {
    config: { auth: 'none' },
    schema: { params: JobIdParams },
  }, async (req, reply) => {
    const body = multipartBodies.get(req)
    /** The error to answer, once the rest of the body is given up. */
    const refuse = (err: unknown): unknown => {
      abandonUpload(reply, body)
      return err
    }
    const max = await maxArtifactsBytes(req.ingot.db)
    // A token in the header or the query is checked before a byte of the body is read.
    let job = jobTokenOf(req) === '' ? null : await requireRunningJob(req, req.params.id).catch((err: unknown) => { throw refuse(err) })
    const declared = Number(req.headers['content-length'])
    if (job !== null && Number.isFinite(declared) && declared >= max + MULTIPART_ALLOWANCE) throw refuse(tooLarge())
    const file = body === undefined ? null : await receiveFile(req, body)
    if (job === null) {
      if (file !== null && typeof file.fields.token === 'string') (req.query as Record<string, unknown>).token = file.fields.token
      job = await requireRunningJob(req, req.params.id).catch((err: unknown) => { throw refuse(err) })
    }
    if (file === null) throw badRequestNotGiven('Missing artifacts file!')
    const fileType = paramOf(req, file.fields, 'artifact_type') ?? 'archive'
    const fileFormat = paramOf(req, file.fields, 'artifact_format') ?? 'zip'
    if (!ARTIFACT_FILE_TYPES.includes(fileType as CiArtifactFileType)) throw refuse(invalidValue('artifact_type'))
    if (!ARTIFACT_FILE_FORMATS.includes(fileFormat as CiArtifactFileFormat)) throw refuse(invalidValue('artifact_format'))
    let outcome
    try {
      outcome = await storeArtifact(req.ingot, {
        jobId: job.id, projectId: job.project_id, fileType: fileType as CiArtifactFileType, fileFormat: fileFormat as CiArtifactFileFormat,
        filename: file.filename, expireAt: await artifactsExpireAt(req.ingot.db, paramOf(req, file.fields, 'expire_in') ?? null),
        data: file.stream,
        // The original refuses a file of max_artifacts_size bytes or more.
        maxBytes: max - 1,
      })
    } catch (err) {
      throw err instanceof ArtifactTooLargeError ? refuse(tooLarge()) : err
    }
    if ('notRunning' in outcome) throw jobNotRunning({ status: outcome.notRunning })
    return reply.code(201).send({ id: job.id, status: job.status, artifacts_expire_at: isoTime(outcome.stored.expire_at) })
  })
}

/** The job whose artifacts another job of its pipeline asks for with its own token, while that one runs. */
async function requirePipelineJob(req: FastifyRequest, jobId: number): Promise<CiBuildRow> {
  const job = await findCiJob(req.ingot.db, jobId)
  if (job === null) throw notFound()
  const asking = await findJobByToken(req.ingot.db, jobTokenOf(req))
  if (asking === null || asking.pipeline_id !== job.pipeline_id) throw forbidden()
  if (asking.status !== 'running') throw jobNotRunning(asking)
  return job
}

const runnerJobFiles: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(tracePatch)
  await app.register(artifactUpload)

  app.post('/jobs/:id/artifacts/authorize', {
    config: { auth: 'none' },
    schema: { params: JobIdParams, body: Type.Object({ filesize: Type.Optional(Type.Integer()) }) },
  }, async (req) => {
    await requireRunningJob(req, req.params.id)
    const max = await maxArtifactsBytes(req.ingot.db)
    if ((req.body.filesize ?? 0) > max) throw tooLarge()
    return { MaximumSize: max }
  })

  app.get('/jobs/:id/artifacts', {
    config: { auth: 'none' },
    schema: { params: JobIdParams, querystring: Type.Object({ token: Type.Optional(Type.String()), direct_download: Type.Optional(Type.Boolean()) }) },
  }, async (req, reply) => {
    const job = await requirePipelineJob(req, req.params.id)
    const archive = await findJobArtifact(req.ingot.db, job.id, 'archive')
    const stream = archive === null ? null : await req.ingot.blobs.get(archive.blob_key)
    if (archive === null || stream === null) throw notFound()
    return reply.type('application/octet-stream').header('content-disposition', attachmentDisposition(archive.filename))
      .header('content-length', String(archive.size)).send(stream)
  })
}

export default runnerJobFiles
