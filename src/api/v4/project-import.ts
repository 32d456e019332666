// Project import (spec: Project import and export; the original's lib/api/project_import.rb of
// release 11.5): POST /projects/import takes a multipart form whose `file` is streamed into blob
// storage as it arrives (413 past max_import_size), checks the archive (gzip, tar, a VERSION member;
// 400 "The file is invalid"), creates the project and schedules the import job; 201 with
// ProjectImportStatus. GET /projects/:id/import answers the same entity. The body is not the API's
// parameters: the route sits in a plugin of its own whose content-type parser hands the request
// stream to it, as the artifacts upload does.
import type { IncomingMessage } from 'node:http'
import { Transform } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import Busboy from 'busboy'
import type { NamespaceRow } from '../../db/schema.js'
import { ApiError, apiError, forbidden, type FieldErrors } from '../../common/errors.js'
import { ProjectImportStatus, presentProjectImportStatus } from '../../entities/project-import.js'
import { findNamespace, mayCreateProjectsIn, personalNamespace, MERGE_METHODS, type MergeMethod, type ProjectSettingsInput } from '../../services/projects/create-project.js'
import {
  importArchiveKey, maxExtractedBytes, maxImportBytes, projectImportEnabled, scheduleProjectImport,
} from '../../services/import-export/import-project.js'
import { checkImportArchive } from '../../services/import-export/import-archive.js'
import { findVisibleGroup } from '../../finders/groups-finder.js'
import { VISIBILITIES, visibilityName, type Visibility } from '../../policies/access-levels.js'
import { NestedParamsError, parseNestedParams } from '../nested-params.js'
import { loadProject, requireActor } from '../load.js'
import { IdParams } from '../params.js'
import type { Actor } from '../../auth/actor.js'
import type { AppContext } from '../../context.js'

/** What a multipart body may carry beyond its file: boundaries, part headers, the form's fields. */
const MULTIPART_ALLOWANCE = 256 * 1024

const multipartBodies = new WeakMap<FastifyRequest, IncomingMessage>()

const tooLarge = () => apiError(413, '413 Request Entity Too Large')
const invalidFile = () => apiError(400, 'The file is invalid')
const grapeError = (message: string) => new ApiError(400, { error: message })

class UploadTooLargeError extends Error {}

interface ReceivedForm {
  /** The form's fields in their order, names as sent (`override_params[visibility]`). */
  fields: Array<[string, string]>
  /** The blob the file part was stored as; null when the form had no `file`. */
  archiveKey: string | null
}

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
 * Reads the whole multipart body: its fields, before or after the file, and its `file` part,
 * streamed into blob storage (never held in memory). Past `max` bytes the upload fails with 413
 * at once; what was stored is removed.
 */
function receiveForm(ctx: AppContext, req: FastifyRequest, body: IncomingMessage, max: number | null): Promise<ReceivedForm> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy
    try {
      busboy = Busboy({ headers: req.headers, limits: { fields: 200, fieldSize: 64 * 1024, parts: 300 } })
    } catch {
      resolve({ fields: [], archiveKey: null })
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
      if (name !== 'file' || stored !== null) {
        stream.resume()
        return
      }
      const key = importArchiveKey()
      const limited = uploadLimit(max)
      stream.on('error', (err) => limited.stream.destroy(err))
      stream.pipe(limited.stream)
      stored = ctx.blobs.put(key, limited.stream).then(() => key, async () => {
        await ctx.blobs.delete(key).catch(() => {})
        throw limited.exceeded() ? tooLarge() : grapeError('file is invalid')
      })
      stored.catch(fail)
    })
    busboy.on('close', () => {
      if (stored === null) resolve({ fields, archiveKey: null })
      else stored.then((key) => resolve({ fields, archiveKey: key }), fail)
    })
    busboy.on('error', () => fail(apiError(400, 'The request body is not valid multipart/form-data')))
    body.on('error', (err) => busboy.destroy(err))
    body.pipe(busboy)
  })
}

/** Stops reading an upload that is refused: the connection closes after the answer. */
function abandonUpload(reply: FastifyReply, body: IncomingMessage | undefined): void {
  body?.unpipe()
  void reply.header('connection', 'close')
}

const TRUE_WORDS = new Set(['true', 't', '1', 'yes', 'y', 'on'])
const FALSE_WORDS = new Set(['false', 'f', '0', 'no', 'n', 'off'])

function booleanOf(value: unknown, name: string): boolean {
  const word = typeof value === 'string' ? value.trim().toLowerCase() : typeof value === 'boolean' ? String(value) : null
  if (word !== null && TRUE_WORDS.has(word)) return true
  if (word !== null && FALSE_WORDS.has(word)) return false
  throw grapeError(`${name} is invalid`)
}

const BOOLEAN_SETTINGS = [
  'issues_enabled', 'merge_requests_enabled', 'jobs_enabled', 'wiki_enabled', 'snippets_enabled', 'container_registry_enabled',
  'shared_runners_enabled', 'lfs_enabled', 'request_access_enabled', 'public_jobs', 'resolve_outdated_diff_discussions',
  'only_allow_merge_if_pipeline_succeeds', 'only_allow_merge_if_all_discussions_are_resolved', 'printing_merge_request_link_enabled',
] as const

/** The part of override_params that project creation takes; the rest is the tree restorer's. */
function creationSettings(overrides: Record<string, unknown>): ProjectSettingsInput {
  const settings: ProjectSettingsInput = {}
  const param = (name: string) => `override_params[${name}]`
  if (typeof overrides.description === 'string') settings.description = overrides.description
  const visibility = overrides.visibility ?? (overrides.visibility_level === undefined ? undefined
    : ['0', '10', '20'].includes(String(overrides.visibility_level)) ? visibilityName(Number(overrides.visibility_level)) : null)
  if (visibility !== undefined) {
    if (typeof visibility !== 'string' || !VISIBILITIES.includes(visibility as Visibility)) {
      throw grapeError(`${param(overrides.visibility === undefined ? 'visibility_level' : 'visibility')} does not have a valid value`)
    }
    settings.visibility = visibility as Visibility
  }
  for (const name of BOOLEAN_SETTINGS) {
    if (overrides[name] !== undefined) settings[name] = booleanOf(overrides[name], param(name))
  }
  if (overrides.public_builds !== undefined && settings.public_jobs === undefined) settings.public_jobs = booleanOf(overrides.public_builds, param('public_builds'))
  if (overrides.merge_method !== undefined) {
    if (!MERGE_METHODS.includes(overrides.merge_method as MergeMethod)) throw grapeError(`${param('merge_method')} does not have a valid value`)
    settings.merge_method = overrides.merge_method as MergeMethod
  }
  if (typeof overrides.ci_config_path === 'string') settings.ci_config_path = overrides.ci_config_path
  return settings
}

/**
 * The namespace to import into, as the original's find_namespace!: 404 when it is missing or the
 * caller cannot see it; 400 "Namespace is not valid" (the creation's field error) when they may
 * not create projects there.
 */
async function importNamespace(ctx: AppContext, actor: Actor, idOrPath: string | undefined): Promise<NamespaceRow> {
  if (idOrPath === undefined || idOrPath === '') return personalNamespace(ctx.db, actor.user)
  const namespace = await findNamespace(ctx.db, idOrPath)
  const visible = namespace === undefined ? false
    : namespace.kind === 'user' ? namespace.owner_id === actor.user.id || actor.user.admin === 1
      : await findVisibleGroup(ctx.db, actor, String(namespace.id)) !== null
  if (namespace === undefined || !visible) throw apiError(404, '404 Namespace Not Found')
  if (!await mayCreateProjectsIn(ctx.db, actor, namespace)) throw apiError(400, 'Namespace is not valid')
  return namespace
}

/** The first of the creation's field errors as the original's full message ("Path has already been taken"). */
function firstFullMessage(err: unknown): never {
  if (err instanceof ApiError && err.statusCode === 400 && typeof err.body.message === 'object' && err.body.message !== null) {
    const [field, messages] = Object.entries(err.body.message as FieldErrors)[0] ?? []
    if (field !== undefined && messages !== undefined && messages.length > 0) {
      const message = field === 'limit_reached' ? messages[0]! : `${field.charAt(0).toUpperCase()}${field.slice(1).replaceAll('_', ' ')} ${messages[0]}`
      throw apiError(400, message)
    }
  }
  throw err
}

/** POST /projects/import, the multipart body passed on as a stream. */
const importUpload: FastifyPluginAsyncTypebox = async (app) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('multipart/form-data', (req, payload, done) => {
    multipartBodies.set(req, payload)
    done(null, {})
  })
  // Any other body holds no file: answered as a missing one, its bytes not read.
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, {}))

  app.post('/projects/import', {
    schema: { response: { 201: ProjectImportStatus } },
  }, async (req, reply) => {
    const ctx = req.ingot
    const actor = requireActor(req)
    const body = multipartBodies.get(req)
    const refuse = (err: unknown): unknown => {
      abandonUpload(reply, body)
      return err
    }
    if (!await projectImportEnabled(ctx)) throw refuse(forbidden())
    const max = await maxImportBytes(ctx)
    const declared = Number(req.headers['content-length'])
    if (max !== null && Number.isFinite(declared) && declared > max + MULTIPART_ALLOWANCE) throw refuse(tooLarge())
    const form = body === undefined ? { fields: [], archiveKey: null } : await receiveForm(ctx, req, body, max).catch((err: unknown) => { throw refuse(err) })
    const { archiveKey } = form
    try {
      let params: Record<string, unknown>
      try {
        params = parseNestedParams(form.fields.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&'))
      } catch (err) {
        if (err instanceof NestedParamsError) throw grapeError(err.message)
        throw err
      }
      if (typeof params.path !== 'string' || params.path === '') throw grapeError('path is missing')
      if (archiveKey === null) throw grapeError('file is missing')
      const overwrite = params.overwrite === undefined ? false : booleanOf(params.overwrite, 'overwrite')
      const overrides = params.override_params ?? {}
      if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) throw grapeError('override_params is invalid')
      const namespaceParam = params.namespace
      if (namespaceParam !== undefined && typeof namespaceParam !== 'string') throw grapeError('namespace is invalid')
      const name = typeof params.name === 'string' && params.name !== '' ? params.name : undefined

      const archive = await ctx.blobs.get(archiveKey)
      if (archive === null || !await checkImportArchive(archive, maxExtractedBytes(max))) throw invalidFile()
      const namespace = await importNamespace(ctx, actor, namespaceParam)
      const settings = creationSettings(overrides as Record<string, unknown>)
      const project = await scheduleProjectImport(ctx, actor, {
        namespace, path: params.path, name, overwrite, settings, overrideParams: overrides as Record<string, unknown>, archiveKey,
      }).catch(firstFullMessage)
      return reply.code(201).send(presentProjectImportStatus(project, namespace))
    } catch (err) {
      if (archiveKey !== null) await ctx.blobs.delete(archiveKey)
      throw err
    }
  })
}

const projectImport: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(importUpload)

  app.get('/projects/:id/import', {
    schema: { params: IdParams, response: { 200: ProjectImportStatus } },
  }, async (req) => {
    const { project, namespace } = await loadProject(req, req.params.id)
    return presentProjectImportStatus(project, namespace)
  })
}

export default projectImport
