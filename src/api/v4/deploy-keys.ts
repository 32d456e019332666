// Deploy keys (the original's API::DeployKeys, release 11.5): every key of the instance for
// administrators; a project's keys for its Maintainers: list, show, add (or enable an existing
// key by its text), change the title and can_push, disable, and enable an existing key by id.
// The project's Maintainers are checked before the parameters, as the original's `before` does.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { DeployKey, DeployKeysProject, presentDeployKey, presentDeployKeysProject, type ProjectDeployKey } from '../../entities/deploy-key.js'
import { findProjectDeployKey, listDeployKeys, listProjectDeployKeys } from '../../finders/deploy-keys-finder.js'
import { canUpdateDeployKey } from '../../policies/deploy-key-policy.js'
import { addDeployKey } from '../../services/deploy-keys/add-deploy-key.js'
import { enableDeployKey } from '../../services/deploy-keys/enable-deploy-key.js'
import { removeDeployKey } from '../../services/deploy-keys/remove-deploy-key.js'
import { updateDeployKey } from '../../services/deploy-keys/update-deploy-key.js'
import { apiError, missingOneOf, notFound } from '../../common/errors.js'
import { authorize, loadProjectFor, requireActor, requireAdmin, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { BooleanParam, IdParams, Pagination } from '../params.js'

const KeyParams = Type.Composite([IdParams, Type.Object({ key_id: Type.Integer({ description: 'The ID of the deploy key' }) })])

const CanPush = Type.Optional(BooleanParam({ description: "Whether the key may push to the project's repository" }))
const AddKeyBody = Type.Object({
  key: Type.String({ description: 'The public key (OpenSSH format); an existing key the caller may enable is enabled instead' }),
  title: Type.String({ description: 'The name of the deploy key' }),
  can_push: CanPush,
})
const UpdateKeyBody = Type.Object({
  title: Type.Optional(Type.String({ description: 'The name of the deploy key, shown by every project holding it' })),
  can_push: CanPush,
})

/** The project each request was authorized on (before its parameters were validated). */
const authorized = new WeakMap<FastifyRequest, LoadedProject>()

async function authorizeMaintainer(req: FastifyRequest): Promise<void> {
  authorized.set(req, await loadProjectFor(req, (req.params as { id: string }).id, 'admin_project'))
}

function projectOf(req: FastifyRequest): LoadedProject {
  const loaded = authorized.get(req)
  if (loaded === undefined) throw new Error('deploy keys route without authorization')
  return loaded
}

/** A key the project holds; the original's bare 404 (its find_by!) for any other id. */
async function findHeldKey(req: FastifyRequest, keyId: number): Promise<ProjectDeployKey> {
  const held = await findProjectDeployKey(req.ingot.db, projectOf(req).project.id, keyId)
  if (held === null) throw apiError(404, '404 Not found')
  return held
}

const deployKeys: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/deploy_keys', {
    schema: { querystring: Pagination, response: { 200: Type.Array(DeployKey) } },
  }, async (req, reply) => {
    requireAdmin(req)
    const page = await listDeployKeys(req.ingot.db, req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentDeployKey)
  })

  const base = '/projects/:id/deploy_keys'

  app.get(base, {
    schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(DeployKeysProject) } },
    preValidation: authorizeMaintainer,
  }, async (req, reply) => {
    const page = await listProjectDeployKeys(req.ingot.db, projectOf(req).project.id, req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentDeployKeysProject)
  })

  app.get(`${base}/:key_id`, {
    schema: { params: KeyParams, response: { 200: DeployKeysProject } },
    preValidation: authorizeMaintainer,
  }, async (req) => presentDeployKeysProject(await findHeldKey(req, req.params.key_id)))

  app.post(base, {
    schema: { params: IdParams, body: AddKeyBody, response: { 201: DeployKeysProject } },
    preValidation: authorizeMaintainer,
  }, async (req, reply) => {
    const held = await addDeployKey(req.ingot.db, projectOf(req).project.id, requireActor(req).user.id, req.body)
    reply.code(201)
    return presentDeployKeysProject(held)
  })

  app.put(`${base}/:key_id`, {
    schema: { params: KeyParams, body: UpdateKeyBody, response: { 200: DeployKeysProject } },
    preValidation: authorizeMaintainer,
  }, async (req) => {
    if (req.body.title === undefined && req.body.can_push === undefined) throw missingOneOf('title', 'can_push')
    const held = await findHeldKey(req, req.params.key_id)
    authorize(canUpdateDeployKey(requireActor(req), held.key))
    return presentDeployKeysProject(await updateDeployKey(req.ingot.db, held, req.body))
  })

  app.post(`${base}/:key_id/enable`, {
    schema: { params: KeyParams, response: { 201: DeployKey } },
    preValidation: authorizeMaintainer,
  }, async (req, reply) => {
    const key = await enableDeployKey(req.ingot.db, projectOf(req).project.id, requireActor(req).user.id, req.params.key_id)
    if (key === null) throw notFound('Deploy Key')
    reply.code(201)
    return presentDeployKey(key)
  })

  app.delete(`${base}/:key_id`, {
    schema: { params: KeyParams },
    preValidation: authorizeMaintainer,
  }, async (req, reply) => {
    const held = await findProjectDeployKey(req.ingot.db, projectOf(req).project.id, req.params.key_id)
    if (held === null) throw notFound('Deploy Key')
    checkUnmodifiedSince(req, held.link.updated_at)
    await removeDeployKey(req.ingot.db, held)
    return reply.code(204).send()
  })
}

export default deployKeys
