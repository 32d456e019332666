// Git smart HTTP (issue 3, "Git transport"): `git clone`, `fetch` and `push` against
// `<INGOT_EXTERNAL_URL>/<full_path>.git` — `GET …/info/refs?service=…`, `POST …/git-upload-pack`,
// `POST …/git-receive-pack` — answered as the original answers them: HTTP Basic credentials
// (auth/git-credentials.ts), 401 with a challenge so git asks for credentials, 404 for a private
// project the caller cannot see, 403 with the original's sentences (shown by git as `remote: …`),
// and pushes decided by the one push check (refusalOf) from receive-pack's pre-receive hook, then
// recorded by afterPush from its report before the answer ends. A pusher's advertisement, once
// answered, starts the receive-pack its POST takes (git/receive-pack-prestarts.ts), so that the
// fork happens while the client packs. Bodies stream both ways; a pack is
// never held. A clone's or fetch's first request in protocol v2 (`ls-refs`) is read whole and
// answered without git where git/ls-refs.ts can.
// A project's wiki is served the same way at `<full_path>.wiki.git`: readable with the wiki
// (read_wiki), pushed to by Developers (create_wiki), made on first use (a clone of a wiki nobody
// wrote yet is an empty clone, as in the original), and its pushes are no pushes of the project:
// no push rules, events or listeners, only the project's activity is marked.
import path from 'node:path'
import { PassThrough, Readable, pipeline } from 'node:stream'
import { createGunzip } from 'node:zlib'
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Actor } from '../auth/actor.js'
import { authenticateGitClient, type GitClient } from '../auth/git-credentials.js'
import { installHooks, serveHooks } from '../git/hooks.js'
import {
  NO_CACHE_HEADERS, ServiceFailedError, advertiseRefs, advertisementType, gitProtocolOf, hookPipesOf, isGitService,
  isProtocolV2, outputOf, requestType, resultType, startService, type GitService, type ServiceOptions, type ServiceProcess,
} from '../git/smart-http.js'
import type { ProjectSubject } from '../policies/project-policy.js'
import { afterPush } from '../services/push/after-push.js'
import { refusalOf } from '../services/push/check-push.js'
import { markWikiActivity } from '../services/wikis/wiki-commits.js'
import type { HookHandlers, PushWatch } from '../git/hooks.js'
import { answerLsRefs, isLsRefsRequest, parseLsRefs, type ObjectReader } from '../git/ls-refs.js'
import { ReceivePackPrestarts } from '../git/receive-pack-prestarts.js'
import type { GitRepository } from '../git/repository.js'
import { getApplicationSettings } from '../services/settings.js'
import { checkGitAccess, GitAccessDenied, type GitAccessor } from '../services/git-access/git-access.js'
import { gitServiceSlotsOf } from '../services/git-access/service-slots.js'
import { attachPackObjectsCache, closePackObjectsCache, packObjectsHookFor } from '../services/git-access/pack-objects-cache.js'

/** Ours: git shows them to its user as `remote: …`. */
const BUSY_MESSAGES = {
  client: 'Too many git operations from your address are running. Please retry later.',
  server: 'The server is running too many git operations. Please retry later.',
}

/** Seconds a client over the git service limits is told to wait. */
const BUSY_RETRY_AFTER_S = 10

const ACCESS_DENIED = 'HTTP Basic: Access denied'

const REALM = 'Basic realm="Ingot"'

/** A refusal answered as plain text, which git prints to its user as `remote: …` lines. */
class GitHttpError extends Error {
  constructor(readonly statusCode: number, message: string, readonly challenge = false, readonly retryAfterS: number | null = null) {
    super(message)
  }
}

const challenge = (message = ACCESS_DENIED) => new GitHttpError(401, message, true)

type GitAction = 'info/refs' | GitService

interface GitRoute {
  /** The project's full path as the URL spells it (any case). */
  fullPath: string
  action: GitAction
  /** Whether the URL named the repository with `.git`; only those are served, others redirected. */
  dotGit: boolean
}

const GIT_URL = /^(.+?)(\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/
const GIT_URL_ENDING = /\/(?:info\/refs|git-upload-pack|git-receive-pack)$/

/**
 * Where the router finds git's URLs: under a prefix of their own, so that the catch-all their
 * nesting needs overlaps no route of the API (and none of its answers to unreadable URLs).
 */
const GIT_ROUTE_PREFIX = '/-/git-http'

/** For Fastify's rewriteUrl: a git URL (never one of /api or /-/) moved under GIT_ROUTE_PREFIX. */
export function routeGitUrl(url: string): string {
  const queryAt = url.indexOf('?')
  const urlPath = queryAt === -1 ? url : url.slice(0, queryAt)
  if (!GIT_URL_ENDING.test(urlPath) || urlPath.startsWith('/api/') || urlPath.startsWith('/-/')) return url
  return `${GIT_ROUTE_PREFIX}${url}`
}

/** A namespace path and a project path: no empty, `.` or `..` segment, only path characters. */
const FULL_PATH = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[\w.-]+(?:\/[\w.-]+)+$/

function gitRouteOf(url: string): GitRoute | null {
  const match = GIT_URL.exec(url)
  if (match === null || !FULL_PATH.test(match[1]!)) return null
  return { fullPath: match[1]!, dotGit: match[2] !== undefined, action: match[3] as GitAction }
}

interface Authorized {
  subject: ProjectSubject
  actor: Actor | null
  /** Whether the URL named the project's wiki repository rather than its own. */
  wiki: boolean
}

/**
 * The project, if `client` may run `service` on it (services/git-access), with refused
 * credentials answered first (401); every refusal of an anonymous caller is a challenge, so that
 * git asks for credentials; a hidden project is a 404, anything else refused a 403.
 */
async function authorize(req: FastifyRequest, route: GitRoute, service: unknown, client: GitClient): Promise<Authorized> {
  if (client.kind === 'refused') throw new GitHttpError(401, client.message, client.challenge)
  const accessor: GitAccessor = client.kind === 'user'
    ? { kind: 'user', actor: client.actor, mayDownload: client.mayDownload, mayPush: client.mayPush }
    : client
  try {
    const granted = await checkGitAccess(req.ingot.db, { accessor, transport: 'http', command: service, fullPath: route.fullPath })
    return { subject: granted.subject, actor: client.kind === 'user' ? client.actor : null, wiki: granted.wiki }
  } catch (err) {
    if (!(err instanceof GitAccessDenied)) throw err
    if (accessor.kind === 'anonymous') throw challenge()
    throw new GitHttpError(err.reason === 'not_found' ? 404 : 403, err.message)
  }
}

/** Content encodings of request bodies git sends: gzip for large fetch negotiations. */
function bodyDecoderOf(encoding: string | string[] | undefined): 'gzip' | 'none' | null {
  if (encoding === undefined || encoding === '' || encoding === 'identity') return 'none'
  return encoding === 'gzip' || encoding === 'x-gzip' ? 'gzip' : null
}

/** The largest ls-refs request Ingot answers itself; a larger one (thousands of ref prefixes) goes to git. */
const MAX_LS_REFS_REQUEST_BYTES = 64 * 1024

/**
 * Reads the start of a request body and leaves the rest unread: until `enough` says so of the
 * bytes so far, more than `maxBytes` came, or the body ended.
 */
function readBodyStart(body: Readable, enough: (bytes: Buffer) => boolean, maxBytes: number): Promise<{ bytes: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let length = 0
    const settle = (outcome: { bytes: Buffer; ended: boolean } | Error) => {
      body.off('readable', onReadable).off('end', onEnd).off('error', onError).off('close', onClose)
      if (outcome instanceof Error) reject(outcome)
      else resolve(outcome)
    }
    const onReadable = () => {
      let chunk: Buffer | null
      while ((chunk = body.read() as Buffer | null) !== null) {
        chunks.push(chunk)
        length += chunk.length
        const bytes = chunks.length === 1 ? chunk : Buffer.concat(chunks)
        if (length > maxBytes || enough(bytes)) return settle({ bytes, ended: false })
      }
    }
    const onEnd = () => settle({ bytes: Buffer.concat(chunks), ended: true })
    const onError = (err: Error) => settle(err)
    const onClose = () => settle(new Error('the request body was cut short'))
    body.on('readable', onReadable).on('end', onEnd).on('error', onError).on('close', onClose)
  })
}

/**
 * Protocol v2's upload-pack request read as far as telling whether it is an `ls-refs` (the refs of
 * a clone or fetch) and, when it is, whole: Ingot's answer when it can give one (git/ls-refs.ts),
 * or the bytes read, which git gets first. A gzipped body, or another protocol, is git's at once.
 */
async function lsRefsAnswerOf(req: FastifyRequest, options: ServiceOptions, objects: ObjectReader): Promise<{ answer: Buffer | null; bodyStart: Buffer | null }> {
  if (!isProtocolV2(options.protocol) || bodyDecoderOf(req.headers['content-encoding']) !== 'none') return { answer: null, bodyStart: null }
  const start = await readBodyStart(req.raw, (bytes) => isLsRefsRequest(bytes) === false, MAX_LS_REFS_REQUEST_BYTES).catch(() => {
    throw new GitHttpError(400, 'The request body could not be read.')
  })
  const lsRefs = start.ended ? parseLsRefs(start.bytes) : null
  const answer = lsRefs === null ? null : await answerLsRefs(options.gitDir, lsRefs, objects)
  return { answer, bodyStart: start.bytes }
}

interface ServiceTarget {
  authorized: Authorized
  /** The repository `authorized` names (the project's or its wiki's). */
  repository: GitRepository
  /** The part of the request body already read, or null. */
  bodyStart: Buffer | null
  /** Starts git for the request (or hands over one started for it). */
  start: () => ServiceProcess
}

/**
 * Runs one stateless-rpc round of `service`: the request body (gunzipped) into git's stdin, git's
 * stdout out as the response, both with backpressure; `bodyStart`, the part of the body already
 * read, goes first. A client that goes away stops git.
 */
function runService(req: FastifyRequest, reply: FastifyReply, service: GitService, options: ServiceOptions, target: ServiceTarget, release: () => void) {
  const decoder = bodyDecoderOf(req.headers['content-encoding'])
  if (decoder === null) throw new GitHttpError(415, 'Unsupported Content-Encoding')
  const ctx = req.ingot
  const { authorized, repository, bodyStart } = target
  const { subject, actor: pusher } = authorized
  // (authorize() answered anonymous pushes with a challenge already.)
  if (service === 'git-receive-pack' && pusher === null) throw challenge()
  const proc = target.start()
  const { child } = proc
  child.once('close', release)
  child.once('error', release)
  if (options.packObjectsHook !== undefined) attachPackObjectsCache(ctx, options.gitDir, proc)
  // Request bytes moving toward git count as activity for its idle limit.
  req.raw.on('data', proc.touch)
  // The body goes through a stream of ours, so that a pipeline that ends early (git stopped
  // reading) destroys that one and not the request itself.
  const body = new PassThrough()
  if (bodyStart !== null) {
    body.write(bodyStart)
    proc.touch()
  }
  req.raw.pipe(body)
  const gunzip = decoder === 'gzip' ? createGunzip() : null
  // How much a push brought (its pack, mostly), for housekeeping's sake: counted as git is given
  // it, so the whole pack is counted by the time receive-pack reports.
  let receivedBytes = 0
  if (service === 'git-receive-pack') (gunzip ?? body).on('data', (chunk: Buffer) => { receivedBytes += chunk.length })
  const stop = () => { if (child.exitCode === null && child.signalCode === null) child.kill() }
  let push: PushWatch | null = null
  if (service === 'git-receive-pack' && pusher !== null) {
    const pipes = hookPipesOf(proc)
    const onError: HookHandlers['onError'] = (err) => req.log.error({ err, project: subject.project.id }, 'git push hook failed')
    const refTarget: HookHandlers['refTarget'] = async (ref) => (await repository.info(ref))?.oid ?? null
    push = serveHooks(pipes.fromHooks, pipes.toHooks, authorized.wiki
      ? {
        // Pushing to the wiki at all was the decision (create_wiki); its refs have no rules.
        preReceive: async () => ({ allow: true, messages: [] }),
        pushed: () => markWikiActivity(ctx.db, subject.project.id),
        refTarget,
        onError,
      }
      : {
        async preReceive({ updates, env }) {
          // Empty variables (a push that only deletes brings no objects) must not reach git.
          const gitEnv = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''))
          const refusal = await refusalOf({ ctx, subject, actor: pusher, updates, gitEnv })
          return refusal === null ? { allow: true, messages: [] } : { allow: false, messages: [refusal] }
        },
        pushed: (updates) => afterPush(ctx, subject.project, pusher, updates, { receivedBytes }),
        refTarget,
        onError,
      })
    child.once('exit', () => { pipes.fromHooks.destroy(); pipes.toHooks.destroy() })
  }
  let bodyError: Error | null = null
  const finished = (err: NodeJS.ErrnoException | null) => {
    // git going away before reading everything (EPIPE) is git's failure, told by its exit code.
    if (err && err.code !== 'EPIPE') {
      bodyError = err
      stop()
    }
    // git stopped reading early (it refused a pack over receive.maxInputSize, or failed): the rest
    // of the body is read and dropped, or the connection would wait for it and never notice the
    // client going away. The request time limit bounds how long that takes.
    if (!req.raw.complete) req.raw.resume()
  }
  if (gunzip !== null) pipeline(body, gunzip, child.stdin, finished)
  else pipeline(body, child.stdin, finished)
  reply.raw.once('close', () => { if (!reply.raw.writableFinished) stop() })
  return reply.headers(NO_CACHE_HEADERS).type(resultType(service)).send(Readable.from(answerOf(req, proc, () => bodyError, push)))
}

/**
 * git's answer. A git that fails before answering was given a request it could not take (an
 * unreadable gzip body, a broken protocol exchange): 400, with git's words in the log only (they
 * may name paths on the server). A push's answer ends once what it did is recorded.
 */
async function* answerOf(req: FastifyRequest, proc: ServiceProcess, bodyError: () => Error | null, push: PushWatch | null): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of outputOf(proc)) {
      push?.observe(chunk)
      yield chunk
    }
  } catch (err) {
    if (!(err instanceof ServiceFailedError)) throw err
    if (bodyError() !== null) throw new GitHttpError(400, 'The request body could not be read.')
    req.log.warn({ err }, 'git refused a request')
    throw new GitHttpError(400, 'The request could not be processed by git.')
  } finally {
    await push?.finish()
  }
}

const gitHttp: FastifyPluginAsync = async (app: FastifyInstance) => {
  const ctx = app.ingot
  const hooksDir = await installHooks(path.join(ctx.config.dataDir, 'git-hooks'))
  const slots = gitServiceSlotsOf(ctx)
  const receivePacks = new ReceivePackPrestarts()
  const routes = new WeakMap<FastifyRequest, GitRoute>()
  app.addHook('onClose', async () => {
    receivePacks.close()
    await closePackObjectsCache(ctx)
  })

  // Bodies are git's to read, unparsed and unbuffered: no parser of the API applies here.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_req, _payload, done) => done(null))

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof GitHttpError) {
      if (err.challenge) void reply.header('www-authenticate', REALM)
      if (err.retryAfterS !== null) void reply.header('retry-after', String(err.retryAfterS))
      return reply.code(err.statusCode).headers(NO_CACHE_HEADERS).type('text/plain; charset=utf-8').send(`${err.message}\n`)
    }
    // (ServiceFailedError too: git failed before answering.)
    req.log.error({ err }, 'git request failed')
    return reply.code(500).type('text/plain; charset=utf-8').send('Internal Server Error\n')
  })

  // Anything else under the prefix is no route of ours: the API's 404, before any body is read.
  app.addHook('onRequest', (req, reply, done) => {
    const route = gitRouteOf((req.params as { '*': string })['*'] ?? '')
    const method = req.method === 'HEAD' ? 'GET' : req.method
    if (route === null || method !== (route.action === 'info/refs' ? 'GET' : 'POST')) {
      reply.callNotFound()
      return
    }
    routes.set(req, route)
    done()
  })

  app.route({
    method: ['GET', 'POST'],
    url: `${GIT_ROUTE_PREFIX}/*`,
    config: { auth: 'none' },
    handler: async (req, reply) => {
      const route = routes.get(req)!
      const query = req.query as Record<string, unknown>
      if (!route.dotGit) {
        // As the original: `…/project/info/refs` moves to `…/project.git/info/refs`; git follows.
        if (route.action !== 'info/refs' || (query.service !== undefined && !isGitService(query.service))) return reply.callNotFound()
        const search = isGitService(query.service) ? `?service=${query.service}` : ''
        return reply.redirect(`/${route.fullPath}.git/info/refs${search}`, 301)
      }
      const service = route.action === 'info/refs' ? query.service : route.action
      const client = await authenticateGitClient(req.ingot, req.headers.authorization, req.ip)
      const authorized = await authorize(req, route, service, client)
      const projectId = authorized.subject.project.id
      if (authorized.wiki) await ctx.repositories.createWiki(projectId)
      const gitService = service as GitService
      if (route.action !== 'info/refs' && req.headers['content-type'] !== requestType(gitService)) throw new GitHttpError(415, 'Unsupported Media Type')
      const gitDir = authorized.wiki ? ctx.repositories.wikiPath(projectId) : ctx.repositories.repositoryPath(projectId)
      const packObjectsHook = route.action === 'git-upload-pack' ? await packObjectsHookFor(ctx, gitDir) : undefined
      const options: ServiceOptions = {
        gitDir,
        ...(packObjectsHook === undefined ? {} : { packObjectsHook }),
        protocol: gitProtocolOf(req.headers['git-protocol']),
        hooksDir,
        maxInputBytes: (await getApplicationSettings(ctx.db)).receive_max_input_size * 1024 * 1024,
        timeoutMs: ctx.config.gitServiceTimeoutMs,
        idleTimeoutMs: ctx.config.gitServiceIdleTimeoutMs,
      }
      const slot = slots.take(req.ip)
      if ('refused' in slot) {
        throw slot.refused === 'client'
          ? new GitHttpError(429, BUSY_MESSAGES.client, false, BUSY_RETRY_AFTER_S)
          : new GitHttpError(503, BUSY_MESSAGES.server, false, BUSY_RETRY_AFTER_S)
      }
      if (route.action === 'info/refs') {
        // An authorized push's POST comes next: its receive-pack starts once this is answered.
        if (gitService === 'git-receive-pack' && authorized.actor !== null) {
          reply.raw.once('finish', () => { if (reply.statusCode === 200) receivePacks.prestart(options) })
        }
        return reply.headers(NO_CACHE_HEADERS).type(advertisementType(gitService)).send(Readable.from(advertiseRefs(gitService, options, slot.release)))
      }
      try {
        const repository = authorized.wiki ? ctx.repositories.openWiki(projectId) : ctx.repositories.open(projectId)
        const { answer, bodyStart } = gitService === 'git-upload-pack' ? await lsRefsAnswerOf(req, options, repository) : { answer: null, bodyStart: null }
        if (answer !== null) {
          slot.release()
          return reply.headers(NO_CACHE_HEADERS).type(resultType(gitService)).send(answer)
        }
        const start = () => (gitService === 'git-receive-pack' ? receivePacks.take(options) : null) ?? startService(gitService, options)
        return runService(req, reply, gitService, options, { authorized, repository, bodyStart, start }, slot.release)
      } catch (err) {
        slot.release() // refused, or answered, before git started
        throw err
      }
    },
  })
}

export default gitHttp
