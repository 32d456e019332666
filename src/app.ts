// buildApp(ctx): the HTTP face of Ingot. Parsing (bracketed query and form parameters as the
// original's Rack reads them, api/nested-params.ts), authentication, the error handler that keeps
// every failure in the original's shapes, request ids, health checks and metrics, /api/v4, git
// over HTTP, the web pages and the OAuth provider.
import { STATUS_CODES } from 'node:http'
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifySchema } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { contextFor, type AppContext } from './context.js'
import { ApiError, invalidParam } from './common/errors.js'
import { addParamKeywords, wrapSingleValues } from './api/params.js'
import { NestedParamsError, parseNestedParams } from './api/nested-params.js'
import { isUploadedFile, type UploadedFile } from './common/uploaded-file.js'
import { lazySerializerFactory, lazyValidatorFactory } from './api/lazy-compilers.js'
import { registerAuthentication } from './auth/authenticate.js'
import { registerThrottles } from './api/throttles.js'
import { databaseAnswers } from './db/index.js'
import { GitTooLargeError } from './git/command.js'
import { RequestLog } from './request-log.js'
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js'
import { Metrics } from './metrics/metrics.js'
import metricsRoute from './api/metrics.js'
import apiV4 from './api/v4/index.js'
import uploads, { routeProjectUploadUrl } from './api/uploads.js'
import gitHttp, { routeGitUrl } from './api/git-http.js'
import gitLfs, { routeLfsUrl } from './api/git-lfs.js'
import { routeIntegrationsUrl } from './api/v4/integrations.js'
import { sendExactJsonType } from './api/json-type.js'
import web from './web/index.js'
import webAssets from './web/assets.js'
import adminPages from './web/admin/index.js'
import namespacePages from './web/namespaces.js'
import dashboardPages from './web/dashboard.js'
import newProjectPages from './web/new-project.js'
import projectRouter, { routeProjectWebUrl } from './web/projects/router.js'
import badgeImages, { routeBadgeUrl } from './web/badges.js'
import applicationPages from './web/applications.js'
import profilePages from './web/profile.js'
import oauthAuthorize from './web/oauth-authorize.js'
import oauth from './api/oauth.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The process's context; handlers use their request's (req.ingot). */
    ingot: AppContext
    /** Every route declared, in declaration order (the fuzz test walks them all). */
    routeTable: DeclaredRoute[]
  }
  interface FastifyRequest {
    /** The context this request acts in: the process's, with its log and its id on the jobs it enqueues. */
    readonly ingot: AppContext
  }
}

const requestContext = Symbol('requestContext')

/**
 * Query strings the parser refused, by the empty parameters given in their place: the router parses
 * the query string, where an error cannot be thrown, so it is answered in preValidation.
 */
const refusedQueries = new WeakMap<object, string>()

function parseQuery(text: string): Record<string, unknown> {
  try {
    return parseNestedParams(text)
  } catch (err) {
    if (!(err instanceof NestedParamsError)) throw err
    const none = {}
    refusedQueries.set(none, err.param)
    return none
  }
}

/** A form body's parameters, or the 400 naming the parameter of a shape that cannot be. */
function parseForm(text: string): Record<string, unknown> {
  try {
    return parseNestedParams(text)
  } catch (err) {
    throw err instanceof NestedParamsError ? invalidParam(err.param) : err
  }
}

export interface DeclaredRoute {
  method: string
  /** The pattern with its prefix: `/api/v4/projects/:id`. */
  url: string
  schema: FastifySchema | undefined
}

export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const metrics = new Metrics(ctx)
  const requestLog = new RequestLog(metrics)
  const app = Fastify({
    loggerInstance: ctx.log,
    logController: requestLog,
    genReqId: requestIdOf,
    routerOptions: {
      ignoreTrailingSlash: true,
      maxParamLength: 4096,
      querystringParser: parseQuery,
    },
    bodyLimit: 10 * 1024 * 1024,
    // Behind the configured proxies, req.ip is the client X-Forwarded-For names (bans, throttles,
    // the metrics allow list and the logs see it); nobody else's X-Forwarded-For is believed.
    ...(ctx.config.trustedProxies.length === 0 ? {} : { trustProxy: [...ctx.config.trustedProxies] }),
    // No request or connection holds the server forever: slow senders, silent sockets and idle
    // kept-alive connections are closed at the configured limits.
    requestTimeout: ctx.config.requestTimeoutMs,
    connectionTimeout: ctx.config.connectionTimeoutMs,
    keepAliveTimeout: ctx.config.keepAliveTimeoutMs,
    http: { headersTimeout: ctx.config.headersTimeoutMs },
    // The project pages come last: every URL the others moved is under /-/ and left alone.
    // The API's own URLs meet only the integrations alias (every other rewrite leaves /api/ alone).
    rewriteUrl: (req) => {
      const url = req.url ?? '/'
      if (url.startsWith('/api/')) return routeIntegrationsUrl(url)
      return routeProjectWebUrl(routeBadgeUrl(routeProjectUploadUrl(routeLfsUrl(routeGitUrl(url)))))
    },
    // A URL the router cannot read (bad percent-encoding, an overlong segment) is answered in the
    // API's shape, never with Fastify's, which echoes the URL and so a private_token in it.
    // (Such a request meets no hook and no route: it is given its id, logged and counted here.)
    frameworkErrors: (error, req, reply: FastifyReply) => {
      const status = error.statusCode ?? 400
      reply.raw.once('finish', () => requestLog.requestCompleted(null, req, reply))
      void reply.code(status).header(REQUEST_ID_HEADER, req.id).send({ message: `${status} ${STATUS_CODES[status] ?? 'Bad Request'}` })
    },
    schemaController: { compilersFactory: { buildValidator: lazyValidatorFactory(), buildSerializer: lazySerializerFactory() } },
    ajv: {
      // Scalar types only: a single value for an array parameter is made a list before (params.ts).
      customOptions: { coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false },
      plugins: [addParamKeywords],
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.decorate('ingot', ctx)
  const routeTable: DeclaredRoute[] = []
  app.decorate('routeTable', routeTable)
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routeTable.push({ method, url: route.url, schema: route.schema })
  })
  // Made on first use and kept on the request: routes that never reach a service pay nothing.
  app.decorateRequest(requestContext, null)
  app.decorateRequest('ingot', {
    getter() {
      const req = this as FastifyRequest & { [requestContext]: AppContext | null }
      return (req[requestContext] ??= contextFor(ctx, { requestId: req.id, log: req.log }))
    },
  })

  // JSON bodies may be empty (clients send a content type on body-less POSTs such as star).
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim()
    if (text === '') return done(null, {})
    try {
      done(null, JSON.parse(text))
    } catch {
      done(new ApiError(400, { message: 'The request body is not valid JSON' }), undefined)
    }
  })
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseForm(body as string))
    } catch (err) {
      done(err as Error, undefined)
    }
  })
  // Multipart forms (clients send some writes so, e.g. @gitbeaker/rest's user update) read like
  // URL-encoded ones; file parts become UploadedFile values of their field.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (req, body, done) => {
    parseMultipart(body as Buffer, req.headers['content-type'] ?? '').then(
      (params) => done(null, params),
      (err: unknown) => done(err instanceof ApiError ? err : new ApiError(400, { message: 'The request body is not valid multipart/form-data' }), undefined),
    )
  })

  // (Hooks on every request take a callback rather than returning a promise: it is cheaper.)
  // Every answer names its request, so a client's report can be matched with our log lines; and
  // none is sniffed by browsers, so user content (raw files and blobs, snippets, uploads) is only
  // ever what its content type says, as the original's default headers have it.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header(REQUEST_ID_HEADER, req.id).header('x-content-type-options', 'nosniff')
    done()
  })
  app.addHook('preValidation', (req, _reply, done) => {
    const refused = refusedQueries.get(req.query as object)
    if (refused !== undefined) return done(invalidParam(refused))
    mergeWriteParameters(req)
    wrapSingleValues(req.query, req.routeOptions.schema?.querystring)
    wrapSingleValues(req.body, req.routeOptions.schema?.body)
    // No text the API stores or looks up may hold a NUL: PostgreSQL refuses it (a 500) where SQLite
    // would keep it, so it is an invalid parameter on both.
    done(paramError(req, (value) => typeof value === 'string' && value.includes('\0')))
  })
  // Schema validation turns "1e309" (or JSON's 1e999) into Infinity and lets it through as an
  // integer within any bounds: no finite number came in, so the parameter is invalid.
  app.addHook('preHandler', (req, _reply, done) => {
    done(paramError(req, (value) => typeof value === 'number' && !Number.isFinite(value)))
  })
  sendExactJsonType(app)
  // Before authentication, as Rack::Attack runs before the application: refused credentials count too.
  await registerThrottles(app, ctx)
  registerAuthentication(app, ctx.db)
  app.setErrorHandler(handleError)
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: '404 Not Found' }))

  app.get('/-/liveness', { config: { auth: 'none' } }, async () => ({ status: 'ok' }))
  app.get('/-/readiness', { config: { auth: 'none' } }, async (_req, reply) => {
    const ok = await databaseAnswers(ctx.db)
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'failed', database: { status: ok ? 'ok' : 'failed' } })
  })
  app.addHook('onClose', async () => metrics.close())
  await app.register(metricsRoute, { metrics, allow: ctx.config.metricsAllow })
  await app.register(apiV4, { prefix: '/api/v4' })
  await app.register(uploads)
  await app.register(gitHttp)
  await app.register(gitLfs)
  await app.register(badgeImages)
  await app.register(oauth)
  await app.register(webAssets)
  await app.register(web)
  await app.register(dashboardPages)
  await app.register(newProjectPages)
  await app.register(adminPages)
  await app.register(namespacePages)
  await app.register(profilePages)
  await app.register(applicationPages)
  await app.register(oauthAuthorize)
  await app.register(projectRouter)
  return app
}

async function parseMultipart(body: Buffer, contentType: string): Promise<Record<string, unknown>> {
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData()
  const fields = new URLSearchParams()
  const files: [string, UploadedFile][] = []
  for (const [name, value] of form) {
    if (typeof value === 'string') fields.append(name, value)
    else files.push([name, { filename: value.name, mimetype: value.type, data: Buffer.from(await value.arrayBuffer()) }])
  }
  const params = parseForm(fields.toString())
  for (const [name, file] of files) params[name] = file
  return params
}

/**
 * Parameters of a write may come in the query string or the body, as the original reads them both
 * (clients do each: @gitbeaker/rest puts a DELETE's in the body and some POSTs' in the query):
 * writes see them merged in req.body, DELETEs in req.query; the body wins a clash. A write without
 * any body validates like an empty one, so each missing parameter is named.
 */
function mergeWriteParameters(req: FastifyRequest): void {
  if (req.method === 'GET' || req.method === 'HEAD') return
  if (req.body === undefined) req.body = {}
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) return
  const merged = { ...(req.query as Record<string, unknown>), ...req.body }
  if (req.method === 'DELETE') req.query = merged
  else req.body = merged
}

/** 400 "<param> is invalid" for the first parameter (path, query, then body) holding a bad value. */
function paramError(req: FastifyRequest, isBad: (value: unknown) => boolean): ApiError | undefined {
  // Asked on every request, which almost never has a bad value: a walk that builds no names first.
  if (!holdsBad(req.params, isBad) && !holdsBad(req.query, isBad) && !holdsBad(req.body, isBad)) return undefined
  const name = badParam(req.params, '', isBad) ?? badParam(req.query, '', isBad) ?? badParam(req.body, '', isBad)
  return name === null ? undefined : invalidParam(name || 'body')
}

/**
 * The name (`a[b][0]`) of a value, or hash key, within `value` that isBad finds; or null. Walked
 * with a stack of its own, as a JSON body may nest deeper than the call stack goes.
 */
function badParam(value: unknown, name: string, isBad: (value: unknown) => boolean): string | null {
  const pending: [unknown, string][] = [[value, name]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, itemName] = next
    if (isBad(item)) return itemName
    if (typeof item !== 'object' || item === null || isUploadedFile(item)) continue
    const entries = Object.entries(item)
    if (entries.some(([key]) => isBad(key))) return itemName
    // Reversed onto the stack, so that the first bad parameter is the one named.
    for (const [key, child] of entries.reverse()) pending.push([child, itemName === '' ? key : `${itemName}[${key}]`])
  }
  return null
}

/** Whether badParam() would find something, told without naming it. */
function holdsBad(value: unknown, isBad: (value: unknown) => boolean): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (isBad(item)) return true
    if (typeof item !== 'object' || item === null || isUploadedFile(item)) continue
    for (const key of Object.keys(item)) {
      if (isBad(key)) return true
      pending.push((item as Record<string, unknown>)[key])
    }
  }
  return false
}

interface ValidationIssue {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
}

/** `/actions/0/file_path` → `actions[0][file_path]`, the way the original names nested params. */
function paramName(path: string): string {
  const [first = '', ...rest] = path.split('/').filter((p) => p !== '')
  return first + rest.map((p) => `[${p}]`).join('')
}

function validationMessage(issues: readonly ValidationIssue[]): string {
  // A value none of a union's types takes is one invalid parameter, not one per type tried.
  const unions = issues.filter((issue) => issue.keyword === 'anyOf').map((issue) => issue.instancePath)
  const withinUnion = (issue: ValidationIssue) =>
    issue.keyword !== 'anyOf' && unions.some((path) => issue.instancePath === path || issue.instancePath.startsWith(`${path}/`))
  const messages = issues.filter((issue) => !withinUnion(issue)).map((issue) => {
    if (issue.keyword === 'required') {
      const missing = String(issue.params.missingProperty ?? '')
      return `${paramName(`${issue.instancePath}/${missing}`)} is missing`
    }
    return `${paramName(issue.instancePath) || 'body'} is invalid`
  })
  return [...new Set(messages)].join(', ')
}

function handleError(error: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    return reply.code(error.statusCode).headers(error.headers).send(error.statusCode === 304 ? undefined : error.body)
  }
  if (error.validation) {
    return reply.code(400).send({ error: validationMessage(error.validation as ValidationIssue[]) })
  }
  // What was asked is there but larger than Ingot reads whole (an object, a listing): the
  // caller's request, not a failure of the server.
  if (error instanceof GitTooLargeError) {
    req.log.warn({ err: error }, 'refused a read too large to answer')
    return reply.code(422).send({ message: '422 The repository data asked for is too large to answer' })
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    return reply.code(status).send({ message: `${status} ${error.message}` })
  }
  req.log.error({ err: error }, 'request failed')
  return reply.code(500).send({ message: '500 Internal Server Error' })
}
