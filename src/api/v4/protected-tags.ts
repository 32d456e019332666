// Protected tags (spec: Protected tags): list, get by name or wildcard, protect with
// `create_access_level` (0, 30 or 40; default 40; 409 when the name is protected already) and
// unprotect. Maintainers only; like the original, anonymous callers get 404 for a private project
// and 403 for a public one.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { ProtectedTagRow } from '../../db/schema.js'
import { ProtectedAccessLevelParam, ProtectedTag, presentProtectedTag } from '../../entities/protected-ref.js'
import { MAINTAINER } from '../../policies/access-levels.js'
import { createProtectedTag, deleteProtectedTag } from '../../services/protected-refs/protected-tags.js'
import { apiError } from '../../common/errors.js'
import { findProtectedTag, listProtectedTags } from '../../finders/protected-refs.js'
import { loadProjectFor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, Pagination } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'

const RuleParams = Type.Composite([IdParams, Type.Object({ name: Type.String({ description: 'A tag name or wildcard' }) })])
const CreateBody = Type.Object({
  name: Type.String({ description: 'A tag name or a wildcard such as v*' }),
  create_access_level: ProtectedAccessLevelParam(),
})

/** The rule named exactly so (a wildcard by its pattern); the original's 404 for a missing record. */
async function findRule(req: FastifyRequest, projectId: number, name: string): Promise<ProtectedTagRow> {
  const rule = await findProtectedTag(req.ingot.db, projectId, name)
  if (rule === null) throw apiError(404, '404 Not found')
  return rule
}

const protectedTags: FastifyPluginAsyncTypebox = async (app) => {
  const base = '/projects/:id/protected_tags'

  app.get(base, {
    schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(ProtectedTag) } },
    config: { auth: 'optional' },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    const page = await listProtectedTags(req.ingot.db, project.id, req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentProtectedTag)
  })

  app.get(`${base}/:name`, {
    schema: { params: RuleParams, response: { 200: ProtectedTag } },
    config: { auth: 'optional' },
  }, async (req) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    return presentProtectedTag(await findRule(req, project.id, req.params.name))
  })

  app.post(base, {
    schema: { params: IdParams, body: CreateBody, response: { 201: ProtectedTag } },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    const rule = await createProtectedTag(req.ingot.db, project.id, {
      name: req.body.name,
      createAccessLevel: req.body.create_access_level ?? MAINTAINER,
    })
    reply.code(201)
    return presentProtectedTag(rule)
  })

  app.delete(`${base}/:name`, {
    schema: { params: RuleParams },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    const rule = await findRule(req, project.id, req.params.name)
    checkUnmodifiedSince(req, rule.updated_at)
    await deleteProtectedTag(req.ingot.db, rule)
    return reply.code(204).send()
  })
}

export default protectedTags
