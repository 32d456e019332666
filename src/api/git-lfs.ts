// Git LFS over HTTP (issue 17), beside git smart HTTP (git-http.ts), at the original's URLs:
//   POST <full_path>.git/info/lfs/objects/batch            the batch API (basic transfer adapter)
//   POST <full_path>.git/info/lfs/objects/verify           the verify step of an upload (ours)
//   GET  <full_path>.git/gitlab-lfs/objects/:oid           an object's content
//   PUT  <full_path>.git/gitlab-lfs/objects/:oid/:size     an upload, checked against oid and size
//   GET/POST <full_path>.git/info/lfs/locks, POST …/locks/verify, POST …/locks/:id/unlock
//   POST <full_path>.git/info/lfs/objects, GET …/objects/:oid   the legacy API: 501, as the original
// Answers are application/vnd.git-lfs+json with the original's messages. Who may do what is
// services/lfs/lfs-access.ts; moving bytes is services/lfs/lfs-transfer.ts, streamed both ways.
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { mustAcceptTerms } from '../auth/sessions.js'
import { findProjectByIdOrPath } from '../finders/project-lookup.js'
import { canOnProject, type ProjectSubject } from '../policies/project-policy.js'
import { presentLfsFileLock } from '../entities/lfs-file-lock.js'
import { getApplicationSettings } from '../services/settings.js'
import {
  actorOf, authenticateLfsCaller, lfsAccess, lfsSubjectFor, type LfsCaller, type LfsOperation,
} from '../services/lfs/lfs-access.js'
import { LFS_LOCKS_PAGE, LfsLockError, createLfsLock, listLfsLocks, unlockLfsLock } from '../services/lfs/lfs-locks.js'
import {
  LFS_SIZE, LfsContentMismatchError, lfsObjectSpecOf, lfsObjectVerified, linkedLfsOids, openLfsDownload, storeLfsUpload,
  type LfsObjectSpec,
} from '../services/lfs/lfs-transfer.js'

const LFS_JSON = 'application/vnd.git-lfs+json'

/** The original's answers, word for word (LfsRequest, LfsApiController, Lfs::*FileService). */
const MESSAGES = {
  disabled: 'Git LFS is not enabled on this GitLab server, contact your admin.',
  forbidden: 'Access forbidden. Check your access level.',
  notFound: 'Not found.',
  objectMissing: "Object does not exist on the server or you don't have permissions to access it",
  legacy: 'Server supports batch API only, please update your Git LFS client to version 1.0.1 and up.',
  accessDenied: 'HTTP Basic: Access denied',
  blocked: 'Your account has been blocked.',
  // Ours
  invalidObject: 'The object needs an oid of 64 lower-case hex digits and a size from 0 to 2^53.',
  badJson: 'The request body is not valid JSON.',
  bodyTooLarge: 'The request body is too large.',
}

const REALM = 'Basic realm="Ingot"'

/** Largest JSON body of the batch and locks APIs: ample for thousands of objects. */
const JSON_BODY_LIMIT = 10 * 1024 * 1024

class LfsHttpError extends Error {
  constructor(readonly statusCode: number, message: string, readonly extra: Record<string, unknown> = {}, readonly challenge = false) {
    super(message)
  }
}

const challenge = (message = MESSAGES.accessDenied) => new LfsHttpError(401, message, {}, true)

type LfsAction =
  | { kind: 'batch' } | { kind: 'verify' } | { kind: 'legacy' }
  | { kind: 'download'; oid: string } | { kind: 'upload'; oid: string; size: number }
  | { kind: 'locks' } | { kind: 'create_lock' } | { kind: 'verify_locks' } | { kind: 'unlock'; lockId: number }

interface LfsRoute {
  fullPath: string
  action: LfsAction
}

/** Where the router finds LFS URLs: under a prefix of their own, as git-http.ts's. */
const LFS_ROUTE_PREFIX = '/-/git-lfs'

const LFS_URL = /^\/(.+)\.git\/(info\/lfs\/.*|gitlab-lfs\/objects\/.*)$/

/** For Fastify's rewriteUrl: an LFS URL (never one of /api or /-/) moved under LFS_ROUTE_PREFIX. */
export function routeLfsUrl(url: string): string {
  const queryAt = url.indexOf('?')
  const urlPath = queryAt === -1 ? url : url.slice(0, queryAt)
  if (!LFS_URL.test(urlPath) || urlPath.startsWith('/api/') || urlPath.startsWith('/-/')) return url
  return `${LFS_ROUTE_PREFIX}${url}`
}

/** A namespace path and a project path: no empty, `.` or `..` segment, only path characters (as git-http.ts's). */
const FULL_PATH = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[\w.-]+(?:\/[\w.-]+)+$/

function actionOf(method: string, rest: string): LfsAction | null {
  const post = method === 'POST'
  const get = method === 'GET'
  if (rest === 'info/lfs/objects/batch') return post ? { kind: 'batch' } : null
  if (rest === 'info/lfs/objects/verify') return post ? { kind: 'verify' } : null
  if (rest === 'info/lfs/objects') return post ? { kind: 'legacy' } : null
  if (rest.startsWith('info/lfs/objects/')) return get ? { kind: 'legacy' } : null
  if (rest === 'info/lfs/locks') return get ? { kind: 'locks' } : post ? { kind: 'create_lock' } : null
  if (rest === 'info/lfs/locks/verify') return post ? { kind: 'verify_locks' } : null
  const unlock = /^info\/lfs\/locks\/(\d{1,15})\/unlock$/.exec(rest)
  if (unlock !== null) return post ? { kind: 'unlock', lockId: Number(unlock[1]) } : null
  const object = /^gitlab-lfs\/objects\/([0-9a-f]{64})(?:\/(\d+))?$/.exec(rest)
  if (object === null) return null
  if (object[2] === undefined) return get ? { kind: 'download', oid: object[1]! } : null
  return method === 'PUT' && LFS_SIZE.test(object[2]) ? { kind: 'upload', oid: object[1]!, size: Number(object[2]) } : null
}

function lfsRouteOf(method: string, url: string): LfsRoute | null {
  const queryAt = url.indexOf('?')
  const match = LFS_URL.exec(queryAt === -1 ? url : url.slice(0, queryAt))
  if (match === null || !FULL_PATH.test(match[1]!)) return null
  const action = actionOf(method, match[2]!)
  return action === null ? null : { fullPath: match[1]!, action }
}

/** What an action needs: reading the project's LFS objects, or writing them. */
function operationOf(action: LfsAction, body: unknown): LfsOperation | null {
  switch (action.kind) {
    case 'download':
    case 'locks': return 'download'
    case 'batch': {
      const operation = (body as { operation?: unknown } | null)?.operation
      return operation === 'download' || operation === 'upload' ? operation : null
    }
    default: return 'upload'
  }
}

interface Authorized {
  subject: ProjectSubject
  caller: LfsCaller
}

/**
 * The project, if the caller may do `operation` with its LFS objects; otherwise the refusal, in the
 * original's order: credentials (401), LFS off on the instance (501), the project (404, or 401 for
 * anonymous callers so that git-lfs asks for credentials), then access (403 or 404, LfsRequest's
 * lfs_check_access!).
 */
async function authorize(req: FastifyRequest, route: LfsRoute, operation: LfsOperation | null): Promise<Authorized> {
  const ctx = req.ingot
  const authentication = await authenticateLfsCaller(ctx, req.headers.authorization, req.ip)
  if (authentication.kind === 'refused') throw new LfsHttpError(401, authentication.message, {}, authentication.challenge)
  if (authentication.kind === 'blocked') throw new LfsHttpError(403, MESSAGES.blocked)
  const caller: LfsCaller = authentication
  if (!ctx.config.lfsEnabled) throw new LfsHttpError(501, MESSAGES.disabled)
  const actor = actorOf(caller)
  if (actor !== null && mustAcceptTerms(actor.user, await getApplicationSettings(ctx.db))) {
    throw new LfsHttpError(403, `You (@${actor.user.username}) must accept the Terms of Service in order to perform this action. Please access Ingot from a web browser to accept these terms.`)
  }
  const found = await findProjectByIdOrPath(ctx.db, route.fullPath)
  if (found === null) throw caller.kind === 'anonymous' ? challenge() : new LfsHttpError(404, MESSAGES.notFound)
  const subject = await lfsSubjectFor(ctx, caller, found)
  // An operation the batch API does not know is refused as the original refuses it: as no access.
  const access = await lfsAccess(ctx, caller, subject, operation ?? 'download')
  if (access === 'allowed' && operation !== null) return { subject, caller }
  // Anonymous callers get the challenge, unless they may download the project anyway (the
  // original lets them through to its access check there).
  if (caller.kind === 'anonymous' && !(operation === 'download' && canOnProject(null, subject, 'download_code'))) throw challenge()
  throw access === 'not_found' ? new LfsHttpError(404, MESSAGES.notFound) : new LfsHttpError(403, MESSAGES.forbidden)
}

/** `<external URL>/<full_path>.git`: where git-lfs is sent for an action. */
function repositoryUrl(req: FastifyRequest, subject: ProjectSubject): string {
  return `${req.ingot.config.externalUrl}/${subject.namespace.full_path}/${subject.project.path}.git`
}

/** The batch API's answer: per object, its actions, or why there are none. */
async function batchAnswer(req: FastifyRequest, { subject, caller }: Authorized, operation: LfsOperation, objects: unknown[]) {
  const specs = objects.map(lfsObjectSpecOf)
  const valid = specs.filter((spec): spec is LfsObjectSpec => spec !== null)
  const linked = await linkedLfsOids(req.ingot.db, subject.project.id, [...new Set(valid.map((spec) => spec.oid))])
  const authorization = req.headers.authorization
  // The caller's own credentials go with every action (the original's request.headers['Authorization']).
  const header = authorization === undefined ? {} : { Authorization: authorization }
  const authenticated = authorization !== undefined || caller.kind === 'anonymous'
  const base = repositoryUrl(req, subject)
  return specs.map((spec, index) => {
    if (spec === null) {
      const { oid, size } = (objects[index] ?? {}) as { oid?: unknown; size?: unknown }
      return { oid, size, error: { code: 422, message: MESSAGES.invalidObject } }
    }
    const object = { oid: spec.oid, size: spec.size }
    if (operation === 'download') {
      if (!linked.has(spec.oid)) return { ...object, error: { code: 404, message: MESSAGES.objectMissing } }
      return { ...object, authenticated, actions: { download: { href: `${base}/gitlab-lfs/objects/${spec.oid}`, header } } }
    }
    // An object the project has already is not sent again; one only another project has is (its
    // upload proves the caller has the content before it is linked here).
    if (linked.has(spec.oid)) return object
    return {
      ...object,
      authenticated,
      actions: {
        upload: { href: `${base}/gitlab-lfs/objects/${spec.oid}/${spec.size}`, header: { ...header, 'Content-Type': 'application/octet-stream' } },
        verify: { href: `${base}/info/lfs/objects/verify`, header },
      },
    }
  })
}

function sendLfs(reply: FastifyReply, status: number, body: unknown) {
  return reply.code(status).type(LFS_JSON).send(JSON.stringify(body))
}

/** A non-negative integer query or body value, or undefined; anything else is refused. */
function optionalInteger(value: unknown, name: string): number | undefined {
  if (value === undefined || value === '' || value === null) return undefined
  const text = String(value)
  if (!/^\d{1,15}$/.test(text)) throw new LfsHttpError(422, `${name} must be a non-negative integer.`)
  return Number(text)
}

function pageLimit(value: unknown): number {
  const limit = optionalInteger(value, 'limit') ?? LFS_LOCKS_PAGE.default
  return Math.min(Math.max(limit, 1), LFS_LOCKS_PAGE.max)
}

function lockError(err: unknown): never {
  if (!(err instanceof LfsLockError)) throw err
  throw new LfsHttpError(err.status, err.message, err.lock === null ? {} : { lock: presentLfsFileLock(err.lock) })
}

/** Reads a JSON body of at most JSON_BODY_LIMIT bytes; an empty body is `{}`. */
async function readJsonBody(req: FastifyRequest): Promise<unknown> {
  const chunks: Buffer[] = []
  let length = 0
  for await (const chunk of req.raw as AsyncIterable<Buffer>) {
    length += chunk.length
    if (length > JSON_BODY_LIMIT) throw new LfsHttpError(413, MESSAGES.bodyTooLarge)
    chunks.push(chunk)
  }
  if (length === 0) return {}
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new LfsHttpError(400, MESSAGES.badJson)
  }
}

const gitLfs: FastifyPluginAsync = async (app: FastifyInstance) => {
  const routes = new WeakMap<FastifyRequest, LfsRoute>()
  const documentationUrl = `${app.ingot.config.externalUrl}/help`

  // Bodies are read by the handlers: JSON ones bounded, uploads streamed into storage.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_req, _payload, done) => done(null))

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof LfsHttpError) {
      if (err.challenge) void reply.header('www-authenticate', REALM).header('lfs-authenticate', REALM)
      // An upload refused before its end is not read on: the connection goes with the answer.
      if (!req.raw.complete) void reply.header('connection', 'close')
      return sendLfs(reply, err.statusCode, { ...err.extra, message: err.message, documentation_url: documentationUrl })
    }
    req.log.error({ err }, 'LFS request failed')
    return sendLfs(reply.header('connection', 'close'), 500, { message: '500 Internal Server Error' })
  })

  // Anything else under the prefix is no route of ours: the API's 404, before any body is read.
  app.addHook('onRequest', (req, reply, done) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method
    const route = lfsRouteOf(method, `/${(req.params as { '*': string })['*'] ?? ''}`)
    if (route === null) {
      reply.callNotFound()
      return
    }
    routes.set(req, route)
    done()
  })

  app.route({
    method: ['GET', 'POST', 'PUT'],
    url: `${LFS_ROUTE_PREFIX}/*`,
    config: { auth: 'none' },
    handler: async (req, reply) => {
      const ctx = req.ingot
      const route = routes.get(req)!
      const { action } = route
      if (action.kind === 'legacy') {
        // (The legacy API is refused whoever asks: there is nothing to find out from it.)
        if (!ctx.config.lfsEnabled) throw new LfsHttpError(501, MESSAGES.disabled)
        throw new LfsHttpError(501, MESSAGES.legacy)
      }
      const body = req.method === 'POST' ? await readJsonBody(req) : null
      const operation = operationOf(action, body)
      const authorized = await authorize(req, route, operation)
      const { subject, caller } = authorized
      const projectId = subject.project.id
      const actor = actorOf(caller)
      const fields = (body ?? {}) as Record<string, unknown>
      const query = req.query as Record<string, unknown>
      switch (action.kind) {
        case 'batch': {
          const objects = fields.objects
          if (!Array.isArray(objects) || objects.length === 0) throw new LfsHttpError(404, MESSAGES.notFound)
          return sendLfs(reply, 200, { objects: await batchAnswer(req, authorized, operation!, objects) })
        }
        case 'verify': {
          const spec = lfsObjectSpecOf(fields)
          if (spec === null) throw new LfsHttpError(422, MESSAGES.invalidObject)
          if (!await lfsObjectVerified(ctx.db, projectId, spec)) throw new LfsHttpError(404, MESSAGES.objectMissing)
          return sendLfs(reply, 200, { message: 'Verified.' })
        }
        case 'download': {
          const download = await openLfsDownload(ctx, projectId, action.oid)
          if (download === null) throw new LfsHttpError(404, MESSAGES.notFound)
          void reply.type('application/octet-stream').header('content-length', String(download.size))
          if (req.method !== 'HEAD') return reply.send(download.body)
          // A HEAD reads nothing of the object: Fastify drains a stream it is given for a HEAD,
          // keeping the Content-Length set, so it is given an empty one.
          download.body.destroy()
          return reply.send(Readable.from([]))
        }
        case 'upload': {
          const declared = req.headers['content-length']
          if (declared !== undefined && declared !== String(action.size)) {
            throw new LfsHttpError(400, new LfsContentMismatchError('size').message)
          }
          try {
            await storeLfsUpload(ctx, projectId, { oid: action.oid, size: action.size }, req.raw)
          } catch (err) {
            if (!(err instanceof LfsContentMismatchError)) throw err
            // The original: 400 when the object cannot be made, 422 when what came is not it.
            throw new LfsHttpError(err.mismatch === 'size' ? 400 : 422, err.message)
          }
          return sendLfs(reply, 200, {})
        }
        case 'locks': {
          const page = await listLfsLocks(ctx.db, projectId, {
            path: typeof query.path === 'string' && query.path !== '' ? query.path : undefined,
            id: optionalInteger(query.id, 'id'),
            cursor: optionalInteger(query.cursor, 'cursor'),
            limit: pageLimit(query.limit),
          })
          return sendLfs(reply, 200, { locks: page.locks.map(presentLfsFileLock), ...nextCursor(page.nextCursor) })
        }
        case 'create_lock': {
          const lock = await createLfsLock(ctx, subject, actor, fields.path).catch(lockError)
          return sendLfs(reply, 201, { lock: presentLfsFileLock(lock) })
        }
        case 'verify_locks': {
          const page = await listLfsLocks(ctx.db, projectId, {
            path: undefined, id: undefined, cursor: optionalInteger(fields.cursor, 'cursor'), limit: pageLimit(fields.limit),
          })
          const ours = page.locks.filter((view) => actor !== null && view.lock.user_id === actor.user.id)
          const theirs = page.locks.filter((view) => !ours.includes(view))
          return sendLfs(reply, 200, { ours: ours.map(presentLfsFileLock), theirs: theirs.map(presentLfsFileLock), ...nextCursor(page.nextCursor) })
        }
        case 'unlock': {
          const lock = await unlockLfsLock(ctx, subject, actor, action.lockId, fields.force === true).catch(lockError)
          return sendLfs(reply, 200, { lock: presentLfsFileLock(lock) })
        }
      }
    },
  })
}

function nextCursor(cursor: number | null): { next_cursor?: string } {
  return cursor === null ? {} : { next_cursor: String(cursor) }
}

export default gitLfs
