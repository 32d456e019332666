// A multipart form with one file in it, read as it streams: the route's plugin hands the request
// body over untouched (multipartBodyParsers), receiveUploadForm collects the form's fields and
// streams its file part into blob storage under a size limit (never held in memory). Used by the
// API's POST /projects/import and the web's project import form.
import type { IncomingMessage } from 'node:http'
import { Transform } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import Busboy from 'busboy'
import { ApiError, apiError } from '../common/errors.js'
import type { AppContext } from '../context.js'

/** What a multipart body may carry beyond its file: boundaries, part headers, the form's fields. */
export const MULTIPART_ALLOWANCE = 256 * 1024

export const tooLarge = () => apiError(413, '413 Request Entity Too Large')

const multipartBodies = new WeakMap<FastifyRequest, IncomingMessage>()

/**
 * In the plugin of the routes that take an upload: a multipart body is passed on as a stream
 * (multipartBodyOf), any other body holds no file and is answered as a missing one, its bytes not read.
 */
export function multipartBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    multipartBodies.set(req, payload)
    done(null, {})
  })
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, {}))
}

export function multipartBodyOf(req: FastifyRequest): IncomingMessage | undefined {
  return multipartBodies.get(req)
}

/** Whether the body's declared length alone is past the limit (a file of `max` bytes and the form around it). */
export function declaredTooLarge(req: FastifyRequest, max: number | null): boolean {
  const declared = Number(req.headers['content-length'])
  return max !== null && Number.isFinite(declared) && declared > max + MULTIPART_ALLOWANCE
}

export interface ReceivedForm {
  /** The form's fields in their order, names as sent (`override_params[visibility]`). */
  fields: Array<[string, string]>
  /** The blob the file part was stored as; null when the form had no such part. */
  fileKey: string | null
}

class UploadTooLargeError extends Error {}

/** Counts the bytes of the upload and fails past `max`; `exceeded()` says whether it did. */
function uploadLimit(max: number | null): { stream: Transform; exceeded: () => boolean } {
  let seen = 0
  let exceeded = false
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length
      if (max !== null && seen > max) {
        exceeded = true
        done(new UploadTooLargeError())
      } else {
        done(null, chunk)
      }
    },
  })
  // The storage hears the failure through its own reading of the stream, whenever it starts.
  stream.on('error', () => {})
  return { stream, exceeded: () => exceeded }
}

/**
 * Reads the whole multipart body: its fields, before or after the file, and its `fileField` part,
 * streamed into blob storage at `key()`. Past `max` bytes the upload fails with 413 at once; what
 * was stored is removed. A body that is no multipart form reads as one without fields or file.
 */
export function receiveUploadForm(
  ctx: AppContext, req: FastifyRequest, body: IncomingMessage, options: { fileField: string; max: number | null; key: () => string },
): Promise<ReceivedForm> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy
    try {
      busboy = Busboy({ headers: req.headers, limits: { fields: 200, fieldSize: 64 * 1024, parts: 300 } })
    } catch {
      resolve({ fields: [], fileKey: null })
      return
    }
    const fields: Array<[string, string]> = []
    let stored: Promise<string> | null = null
    let failed = false
    const fail = (err: unknown) => {
      if (failed) return
      failed = true
      reject(err)
    }
    busboy.on('field', (name, value) => { fields.push([name, value]) })
    busboy.on('file', (name, stream) => {
      if (name !== options.fileField || stored !== null) {
        stream.resume()
        return
      }
      const key = options.key()
      const limited = uploadLimit(options.max)
      stream.on('error', (err) => limited.stream.destroy(err))
      stream.pipe(limited.stream)
      stored = ctx.blobs.put(key, limited.stream).then(() => key, async () => {
        await ctx.blobs.delete(key).catch(() => {})
        throw limited.exceeded() ? tooLarge() : new ApiError(400, { error: `${options.fileField} is invalid` })
      })
      stored.catch(fail)
    })
    busboy.on('close', () => {
      if (stored === null) resolve({ fields, fileKey: null })
      else stored.then((key) => resolve({ fields, fileKey: key }), fail)
    })
    busboy.on('error', () => fail(apiError(400, 'The request body is not valid multipart/form-data')))
    body.on('error', (err) => busboy.destroy(err))
    body.pipe(busboy)
  })
}

/** Stops reading an upload that is refused: the connection closes after the answer. */
export function abandonUpload(reply: FastifyReply, body: IncomingMessage | undefined): void {
  body?.unpipe()
  void reply.header('connection', 'close')
}
