// Custom attributes (administrators only) of users, groups and projects: list, read, set and
// delete by key. One implementation for the three subjects; the subject is loaded first (404 when
// missing or invisible), then the caller must be an administrator (403).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { Scope } from '../../auth/actor.js'
import type { CustomAttributeSubject } from '../../db/schema.js'
import { CustomAttribute } from '../../entities/common.js'
import { customAttributesOf, findCustomAttribute } from '../../finders/custom-attributes.js'
import { deleteCustomAttribute } from '../../services/custom-attributes/delete-custom-attribute.js'
import { setCustomAttribute } from '../../services/custom-attributes/set-custom-attribute.js'
import { apiError } from '../../common/errors.js'
import { loadGroup, loadProject, loadUser, requireAdmin } from '../load.js'

interface SubjectRoutes {
  subject: CustomAttributeSubject
  /** The collection path the subject's `:id` follows. */
  collection: string
  /** The subject's id, 404 unless it exists and the caller can see it. */
  load(req: FastifyRequest, id: string): Promise<number>
  /** Token scopes of the GET routes. */
  readScopes: readonly Scope[]
}

const SUBJECTS: readonly SubjectRoutes[] = [
  { subject: 'user', collection: '/users', load: async (req, id) => (await loadUser(req, id)).id, readScopes: ['api', 'read_user'] },
  { subject: 'group', collection: '/groups', load: async (req, id) => (await loadGroup(req, id)).group.id, readScopes: ['api'] },
  { subject: 'project', collection: '/projects', load: async (req, id) => (await loadProject(req, id)).project.id, readScopes: ['api'] },
]

const SubjectParams = Type.Object({ id: Type.String() })
const KeyParams = Type.Object({ id: Type.String(), key: Type.String() })
const SetBody = Type.Object({ value: Type.String() })

/** A missing key answers like the original's missing record. */
const attributeNotFound = () => apiError(404, '404 Not found')

const customAttributes: FastifyPluginAsyncTypebox = async (app) => {
  for (const { subject, collection, load, readScopes } of SUBJECTS) {
    const target = async (req: FastifyRequest, id: string) => {
      const subjectId = await load(req, id)
      requireAdmin(req)
      return { subject, subjectId }
    }

    app.get(`${collection}/:id/custom_attributes`, {
      schema: { params: SubjectParams, response: { 200: Type.Array(CustomAttribute) } },
      config: { scopes: readScopes },
    }, async (req) => {
      const { subjectId } = await target(req, req.params.id)
      return (await customAttributesOf(req.ingot.db, subject, [subjectId])).get(subjectId) ?? []
    })

    app.get(`${collection}/:id/custom_attributes/:key`, {
      schema: { params: KeyParams, response: { 200: CustomAttribute } },
      config: { scopes: readScopes },
    }, async (req) => {
      const { subjectId } = await target(req, req.params.id)
      const attribute = await findCustomAttribute(req.ingot.db, subject, subjectId, req.params.key)
      if (attribute === undefined) throw attributeNotFound()
      return { key: attribute.key, value: attribute.value }
    })

    app.put(`${collection}/:id/custom_attributes/:key`, {
      schema: { params: KeyParams, body: SetBody, response: { 200: CustomAttribute } },
    }, async (req) => {
      const attribute = await setCustomAttribute(req.ingot.db, await target(req, req.params.id), req.params.key, req.body.value)
      return { key: attribute.key, value: attribute.value }
    })

    app.delete(`${collection}/:id/custom_attributes/:key`, {
      schema: { params: KeyParams },
    }, async (req, reply) => {
      const { db } = req.ingot
      const { subjectId } = await target(req, req.params.id)
      const attribute = await findCustomAttribute(db, subject, subjectId, req.params.key)
      if (attribute === undefined) throw attributeNotFound()
      await deleteCustomAttribute(db, attribute)
      return reply.code(204).send()
    })
  }
}

export default customAttributes
