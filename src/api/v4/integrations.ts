// Project integrations (spec: Project integrations (services)): for every kind in the catalog, under
// its slug and under the original's slug for it, PUT /projects/:id/services/<slug> (its required
// parameters enforced, activates it; answers the integration), GET (settings without secrets; a
// kind never configured shows its defaults with a null id) and DELETE (deactivates and clears,
// 204). Maintainers and up; a private project is 404 to those who cannot see it. The deprecated
// container cluster kind answers 400 while inactive.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { ProjectIntegration, presentIntegration } from '../../entities/integration.js'
import {
  INTEGRATION_SLUGS, integrationSlug, type EventFlag, type IntegrationField, type IntegrationKind, type IntegrationSlug,
} from '../../services/integrations/catalog.js'
import {
  clearIntegration, findIntegration, initialSettings, integrationUnavailable, parseSettings, saveIntegration, type IntegrationSettings,
} from '../../services/integrations/integrations.js'
import { ApiError, badRequest } from '../../common/errors.js'
import { loadProjectFor, type LoadedProject } from '../load.js'
import { BooleanParam, IdParams } from '../params.js'

const INTEGRATIONS_ALIAS = /^(\/api\/v4\/projects\/[^/?]+)\/integrations(?=\/|\?|$)/

/**
 * Later releases of the original, and the clients written for them (python-gitlab's
 * `project.integrations`, gitbeaker's Integrations), call these resources `integrations`: the same
 * routes answer there, by rewriting the URL rather than registering every route twice.
 */
export function routeIntegrationsUrl(url: string): string {
  return url.includes('/integrations') ? url.replace(INTEGRATIONS_ALIAS, '$1/services') : url
}

const SlugParams = Type.Composite([IdParams, Type.Object({ service_slug: Type.String() })])

function fieldSchema(field: IntegrationField): TSchema {
  const schema = field.type === 'boolean' ? BooleanParam() : field.type === 'integer' ? Type.Integer() : Type.String()
  return field.required ? schema : Type.Optional(schema)
}

/** The PUT parameters of a kind under a slug: its settings and the event flags it takes. */
function putBody({ kind, paramName }: IntegrationSlug) {
  const properties: Record<string, TSchema> = {}
  for (const field of kind.fields) properties[paramName(field)] = fieldSchema(field)
  for (const event of kind.events) properties[event] = Type.Optional(BooleanParam())
  return Type.Object(properties)
}

async function loadIntegration(req: FastifyRequest, loaded: LoadedProject, kind: IntegrationKind) {
  const row = await findIntegration(req.ingot.db, loaded.project.id, kind)
  // The deprecated kind, while inactive, is the original's 400.
  if (integrationUnavailable(kind, row)) throw badRequest('400 Bad Request')
  return row
}

/** A slug of the catalog, or the original's 400 for a value outside it. */
function slugOf(slug: string): IntegrationSlug {
  const named = integrationSlug(slug)
  if (named === undefined) throw new ApiError(400, { error: 'service_slug does not have a valid value' })
  return named
}

const integrations: FastifyPluginAsyncTypebox = async (app) => {
  for (const named of INTEGRATION_SLUGS) {
    const { kind } = named
    app.put(`/projects/:id/services/${named.slug}`, {
      schema: { params: IdParams, body: putBody(named), response: { 200: ProjectIntegration } },
    }, async (req) => {
      const loaded = await loadProjectFor(req, req.params.id, 'admin_project')
      await loadIntegration(req, loaded, kind)
      const body = req.body as Record<string, unknown>
      const settings: IntegrationSettings = {}
      for (const field of kind.fields) {
        const value = body[named.paramName(field)]
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') settings[field.name] = value
      }
      const events: Partial<Record<EventFlag, boolean>> = {}
      for (const event of kind.events) if (typeof body[event] === 'boolean') events[event] = body[event] as boolean
      const row = await saveIntegration(req.ingot, loaded.project.id, kind, { settings, events })
      return presentIntegration(named, row, parseSettings(req.ingot.secrets, row))
    })
  }

  app.get('/projects/:id/services/:service_slug', {
    schema: { params: SlugParams, response: { 200: ProjectIntegration } },
  }, async (req) => {
    const loaded = await loadProjectFor(req, req.params.id, 'admin_project')
    const named = slugOf(req.params.service_slug)
    const row = await loadIntegration(req, loaded, named.kind)
    return presentIntegration(named, row, row === null ? initialSettings(named.kind) : parseSettings(req.ingot.secrets, row))
  })

  app.delete('/projects/:id/services/:service_slug', {
    schema: { params: SlugParams },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'admin_project')
    const { kind } = slugOf(req.params.service_slug)
    await loadIntegration(req, loaded, kind)
    await clearIntegration(req.ingot.db, loaded.project.id, kind)
    return reply.code(204).send()
  })
}

export default integrations
