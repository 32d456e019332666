// OAuth applications (the original's /applications, release 11.5): administrators register, list
// and delete the instance's applications (those without an owner; users' own are managed on their
// profile). Others get 403. The secret is shown once, in the answer that made the application.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { Application, ApplicationWithSecret, presentApplication, presentApplicationWithSecret } from '../../entities/application.js'
import { createApplication, deleteApplication, findApplicationById, listApplications } from '../../services/oauth/applications.js'
import { notFound } from '../../common/errors.js'
import { requireAdmin } from '../load.js'

const ApplicationParams = Type.Object({ id: Type.Integer() })
const ApplicationBody = Type.Object({
  name: Type.String({ description: 'The name of the application' }),
  redirect_uri: Type.String({ description: 'The redirect URIs, one per line' }),
  scopes: Type.String({ description: 'Scope names separated by spaces; may be empty' }),
})

const applications: FastifyPluginAsyncTypebox = async (app) => {
  const adminOnly = async (req: FastifyRequest) => requireAdmin(req)

  app.post('/applications', {
    schema: { body: ApplicationBody, response: { 201: ApplicationWithSecret } },
    preValidation: adminOnly,
  }, async (req, reply) => {
    const { name, redirect_uri: redirectUri, scopes } = req.body
    const { application, secret } = await createApplication(req.ingot.db, { name, redirectUri, scopes, ownerId: null })
    reply.code(201)
    return presentApplicationWithSecret(application, secret)
  })

  app.get('/applications', {
    schema: { response: { 200: Type.Array(Application) } },
    preValidation: adminOnly,
  }, async (req) => (await listApplications(req.ingot.db, { ownerId: null })).map(presentApplication))

  app.delete('/applications/:id', {
    schema: { params: ApplicationParams },
    preValidation: adminOnly,
  }, async (req, reply) => {
    const application = await findApplicationById(req.ingot.db, req.params.id)
    if (application === null || application.owner_id !== null) throw notFound('Application')
    await deleteApplication(req.ingot.db, application)
    return reply.code(204).send()
  })
}

export default applications
