// Project import (spec: Project import and export; the original's lib/api/project_import.rb of
// release 11.5): POST /projects/import takes a multipart form whose `file` is streamed into blob
// storage as it arrives (413 past max_import_size), checks the archive (gzip, tar, a VERSION member;
// 400 "The file is invalid"), creates the project and schedules the import job; 201 with
// ProjectImportStatus. GET /projects/:id/import answers the same entity. The body is not the API's
// parameters: the route sits in a plugin of its own whose content-type parser hands the request
// stream to it, as the artifacts upload does.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ApiError, forbidden } from '../../common/errors.js'
import { ProjectImportStatus, presentProjectImportStatus } from '../../entities/project-import.js'
import { MERGE_METHODS, type MergeMethod, type ProjectSettingsInput } from '../../services/projects/create-project.js'
import { importArchiveKey, maxImportBytes, projectImportEnabled } from '../../services/import-export/import-project.js'
import { importUploadedArchive } from '../../services/import-export/import-upload.js'
import { VISIBILITIES, visibilityName, type Visibility } from '../../policies/access-levels.js'
import { abandonUpload, declaredTooLarge, multipartBodyOf, multipartBodyParsers, receiveUploadForm, tooLarge } from '../multipart-upload.js'
import { NestedParamsError, parseNestedParams } from '../nested-params.js'
import { loadProject, requireActor } from '../load.js'
import { IdParams } from '../params.js'

const grapeError = (message: string) => new ApiError(400, { error: message })

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

/** POST /projects/import, the multipart body passed on as a stream. */
const importUpload: FastifyPluginAsyncTypebox = async (app) => {
  multipartBodyParsers(app)

  app.post('/projects/import', {
    schema: { response: { 201: ProjectImportStatus } },
  }, async (req, reply) => {
    const ctx = req.ingot
    const actor = requireActor(req)
    const body = multipartBodyOf(req)
    const refuse = (err: unknown): unknown => {
      abandonUpload(reply, body)
      return err
    }
    if (!await projectImportEnabled(ctx)) throw refuse(forbidden())
    const max = await maxImportBytes(ctx)
    if (declaredTooLarge(req, max)) throw refuse(tooLarge())
    const form = body === undefined ? { fields: [], fileKey: null }
      : await receiveUploadForm(ctx, req, body, { fileField: 'file', max, key: importArchiveKey }).catch((err: unknown) => { throw refuse(err) })
    const archiveKey = form.fileKey
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

      const { project, namespace } = await importUploadedArchive(ctx, actor, {
        archiveKey, maxBytes: max, namespace: namespaceParam, path: params.path, name, overwrite,
        settings: () => creationSettings(overrides as Record<string, unknown>), overrideParams: overrides as Record<string, unknown>,
      })
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
