// POST /projects/:id/uploads (the original's, release 11.5): a signed-in caller who can see the
// project attaches a file (multipart `file`) for use in Markdown; 201 with its `alt`, `url` and
// `markdown`. Files above the max_attachment_size setting are refused with the original's 413,
// before more than that is read. The files are served by api/uploads.ts.
import type { Readable } from 'node:stream'
import { Transform } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { ProjectUpload, presentProjectUpload } from '../../entities/project-upload.js'
import {
  MAX_UPLOAD_NAME_BYTES, maxAttachmentBytes, sanitizedUploadName, storeProjectUpload,
} from '../../services/uploads/attachments.js'
import { apiError, validationFailed } from '../../common/errors.js'
import { loadProject } from '../load.js'
import { FileParam, IdParams } from '../params.js'

const fileTooLarge = () => apiError(413, '413 Request Entity Too Large')

/** Room for the multipart boundaries and part headers around the file itself. */
const FORM_ALLOWANCE_BYTES = 64 * 1024

/** The body, failing with 413 as soon as more than `limit` bytes of it have arrived. */
function limitedTo(body: Readable, limit: number): Transform {
  let received = 0
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length
      callback(received > limit ? fileTooLarge() : null, chunk)
    },
  })
  body.on('error', (err) => limited.destroy(err))
  return body.pipe(limited)
}

const projectUploads: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/projects/:id/uploads', {
    // The limit is the max_attachment_size setting, which can change at any time: preParsing applies it.
    bodyLimit: Number.MAX_SAFE_INTEGER,
    // Who may upload, and how much, is decided before a byte of the body is read: a caller who
    // cannot see the project, or a file too large, costs no more than its headers.
    preParsing: async (req, _reply, body) => {
      await loadProject(req, (req.params as { id: string }).id)
      const limit = await maxAttachmentBytes(req.ingot.db) + FORM_ALLOWANCE_BYTES
      if (Number(req.headers['content-length']) > limit) throw fileTooLarge()
      return limitedTo(body, limit)
    },
    schema: { params: IdParams, body: Type.Object({ file: FileParam() }), response: { 201: ProjectUpload } },
  }, async (req, reply) => {
    const { db, config } = req.ingot
    const { project } = await loadProject(req, req.params.id)
    const { file } = req.body
    if (file.data.length > await maxAttachmentBytes(db)) throw fileTooLarge()
    if (Buffer.byteLength(sanitizedUploadName(file.filename)) > MAX_UPLOAD_NAME_BYTES) {
      throw validationFailed({ file: [`name is too long (maximum is ${MAX_UPLOAD_NAME_BYTES} bytes)`] })
    }
    const upload = await storeProjectUpload(config.dataDir, project.id, file.filename, file.data)
    return reply.code(201).send(presentProjectUpload(upload))
  })
}

export default projectUploads
