// Protected branches (the API that replaced the deprecated protect/unprotect of Branches): list,
// get by name or wildcard, protect with `push_access_level` and `merge_access_level` (0, 30 or
// 40; default 40; 409 when the name is protected already) and unprotect. Maintainers only; like
// the original, anonymous callers get 404 for a private project and 403 for a public one.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { ProtectedBranchRow } from '../../db/schema.js'
import { ProtectedAccessLevelParam, ProtectedBranch, presentProtectedBranch } from '../../entities/protected-ref.js'
import { MAINTAINER } from '../../policies/access-levels.js'
import { createProtectedBranch, deleteProtectedBranch } from '../../services/protected-refs/protected-branches.js'
import { apiError } from '../../common/errors.js'
import { findProtectedBranch, listProtectedBranches } from '../../finders/protected-refs.js'
import { loadProjectFor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, Pagination } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'

const RuleParams = Type.Composite([IdParams, Type.Object({ name: Type.String({ description: 'A branch name or wildcard' }) })])
const CreateBody = Type.Object({
  name: Type.String({ description: 'A branch name or a wildcard such as release/*' }),
  push_access_level: ProtectedAccessLevelParam(),
  merge_access_level: ProtectedAccessLevelParam(),
})

/** The rule named exactly so (a wildcard by its pattern); the original's 404 for a missing record. */
async function findRule(req: FastifyRequest, projectId: number, name: string): Promise<ProtectedBranchRow> {
  const rule = await findProtectedBranch(req.ingot.db, projectId, name)
  if (rule === null) throw apiError(404, '404 Not found')
  return rule
}

const protectedBranches: FastifyPluginAsyncTypebox = async (app) => {
  const base = '/projects/:id/protected_branches'

  app.get(base, {
    schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(ProtectedBranch) } },
    config: { auth: 'optional' },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    const page = await listProtectedBranches(req.ingot.db, project.id, req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentProtectedBranch)
  })

  app.get(`${base}/:name`, {
    schema: { params: RuleParams, response: { 200: ProtectedBranch } },
    config: { auth: 'optional' },
  }, async (req) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    return presentProtectedBranch(await findRule(req, project.id, req.params.name))
  })

  app.post(base, {
    schema: { params: IdParams, body: CreateBody, response: { 201: ProtectedBranch } },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    const rule = await createProtectedBranch(req.ingot.db, project.id, {
      name: req.body.name,
      pushAccessLevel: req.body.push_access_level ?? MAINTAINER,
      mergeAccessLevel: req.body.merge_access_level ?? MAINTAINER,
    })
    reply.code(201)
    return presentProtectedBranch(rule)
  })

  app.delete(`${base}/:name`, {
    schema: { params: RuleParams },
  }, async (req, reply) => {
    const { project } = await loadProjectFor(req, req.params.id, 'admin_project')
    const rule = await findRule(req, project.id, req.params.name)
    checkUnmodifiedSince(req, rule.updated_at)
    await deleteProtectedBranch(req.ingot.db, rule)
    return reply.code(204).send()
  })
}

export default protectedBranches
