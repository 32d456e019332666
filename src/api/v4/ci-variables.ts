// CI/CD variables (the original's /projects/:id/variables and /groups/:id/variables, release 11.5):
// list, get, create, update, delete. As the original's `before` blocks: the caller must be signed
// in (401), see the project or group (404), and hold admin_build on it (403: Maintainers and up,
// admins; for a project, while its jobs are enabled and it is not archived), before any parameter
// is looked at.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { CiVariableRow } from '../../db/schema.js'
import { CiVariable, presentCiVariable } from '../../entities/ci-variable.js'
import { findCiVariable, listCiVariables, type CiVariableOwner } from '../../finders/ci-variables-finder.js'
import { createCiVariable, deleteCiVariable, openCiVariable, updateCiVariable } from '../../services/ci/ci-variables.js'
import { MAINTAINER } from '../../policies/access-levels.js'
import { notFound } from '../../common/errors.js'
import { authorizeGroupLevel, loadGroup, loadProjectFor, requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { BooleanParam, IdParams, Pagination } from '../params.js'

const KeyParams = Type.Composite([IdParams, Type.Object({ key: Type.String() })])
const CreateBody = Type.Object({
  key: Type.String({ description: 'Letters, digits and _, at most 255 characters' }),
  value: Type.String(),
  protected: Type.Optional(BooleanParam({ description: 'Only for jobs of protected branches and tags; default false' })),
})
const UpdateBody = Type.Object({
  // The key names the variable in the path; a key in the body is taken and ignored, as the original does.
  key: Type.Optional(Type.String()),
  value: Type.Optional(Type.String()),
  protected: Type.Optional(BooleanParam()),
})

/** The owner each request was authorized on (before its parameters were validated). */
const authorized = new WeakMap<FastifyRequest, CiVariableOwner>()

async function authorizeProject(req: FastifyRequest): Promise<void> {
  requireActor(req)
  const loaded = await loadProjectFor(req, (req.params as { id: string }).id, 'admin_build')
  authorized.set(req, { type: 'project', id: loaded.project.id })
}

async function authorizeGroup(req: FastifyRequest): Promise<void> {
  requireActor(req)
  const loaded = await loadGroup(req, (req.params as { id: string }).id)
  authorizeGroupLevel(req, loaded, MAINTAINER)
  authorized.set(req, { type: 'group', id: loaded.group.id })
}

function ownerOf(req: FastifyRequest): CiVariableOwner {
  const owner = authorized.get(req)
  if (owner === undefined) throw new Error('variables route without authorization')
  return owner
}

async function findVariable(req: FastifyRequest, key: string): Promise<CiVariableRow> {
  const variable = await findCiVariable(req.ingot.db, ownerOf(req), key)
  if (variable === null) throw notFound('Variable')
  return variable
}

const present = (req: FastifyRequest, row: CiVariableRow) => presentCiVariable(row, openCiVariable(req.ingot.secrets, row))

const ciVariables: FastifyPluginAsyncTypebox = async (app) => {
  for (const [base, preValidation] of [['/projects/:id/variables', authorizeProject], ['/groups/:id/variables', authorizeGroup]] as const) {
    app.get(base, {
      schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(CiVariable) } },
      preValidation,
    }, async (req, reply) => {
      const page = await listCiVariables(req.ingot.db, ownerOf(req), req.query)
      setPaginationHeaders(req, reply, page)
      return page.items.map((row) => present(req, row))
    })

    app.get(`${base}/:key`, {
      schema: { params: KeyParams, response: { 200: CiVariable } },
      preValidation,
    }, async (req) => present(req, await findVariable(req, req.params.key)))

    app.post(base, {
      schema: { params: IdParams, body: CreateBody, response: { 201: CiVariable } },
      preValidation,
    }, async (req, reply) => {
      const { key, value } = req.body
      const row = await createCiVariable(req.ingot, ownerOf(req), { key, value, ...(req.body.protected === undefined ? {} : { protected: req.body.protected }) })
      reply.code(201)
      return present(req, row)
    })

    app.put(`${base}/:key`, {
      schema: { params: KeyParams, body: UpdateBody, response: { 200: CiVariable } },
      preValidation,
    }, async (req) => {
      const variable = await findVariable(req, req.params.key)
      const { value, protected: isProtected } = req.body
      return present(req, await updateCiVariable(req.ingot, variable, {
        ...(value === undefined ? {} : { value }),
        ...(isProtected === undefined ? {} : { protected: isProtected }),
      }))
    })

    app.delete(`${base}/:key`, {
      schema: { params: KeyParams },
      preValidation,
    }, async (req, reply) => {
      await deleteCiVariable(req.ingot.db, await findVariable(req, req.params.key))
      return reply.code(204).send()
    })
  }
}

export default ciVariables
