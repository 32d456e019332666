// Deployments (spec: Deployments), as the original 11.5 answers: the list (order_by id, iid,
// created_at or ref; sort asc by default) and one by its id, each with who deployed, where, and
// the job that deployed. Signed-in Reporters and up read them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { DeploymentRow } from '../../db/schema.js'
import { Deployment, presentDeployment } from '../../entities/deployment.js'
import { projectFullPath } from '../../entities/project.js'
import { DEPLOYMENT_ORDERS, findDeployment, findDeploymentPage, loadDeploymentViews } from '../../finders/deployments-finder.js'
import { apiError } from '../../common/errors.js'
import { loadProjectFor, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, OneOf, Pagination, SortParam } from '../params.js'
import { presentCtx } from '../present.js'

const DeploymentParams = Type.Composite([IdParams, Type.Object({ deployment_id: Type.Integer() })])

const ListQuery = Type.Object({
  ...Pagination.properties,
  order_by: OneOf<typeof DEPLOYMENT_ORDERS[number]>(DEPLOYMENT_ORDERS, { default: 'id' }),
  sort: SortParam('asc'),
})

async function presentDeployments(req: FastifyRequest, loaded: LoadedProject, deployments: readonly DeploymentRow[]) {
  const views = await loadDeploymentViews(req.ingot.db, req.ingot.repositories.open(loaded.project.id), deployments)
  const ctx = presentCtx(req)
  const now = Date.now()
  return views.map((view) => presentDeployment(view, projectFullPath(loaded), ctx, now))
}

const deployments: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/projects/:id/deployments', {
    schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(Deployment) } },
  }, async (req, reply) => {
    const loaded = await loadProjectFor(req, req.params.id, 'read_environment')
    const page = await findDeploymentPage(req.ingot.db, loaded.project.id, { orderBy: req.query.order_by, sort: req.query.sort }, req.query)
    setPaginationHeaders(req, reply, page)
    return presentDeployments(req, loaded, page.items)
  })

  app.get('/projects/:id/deployments/:deployment_id', {
    schema: { params: DeploymentParams, response: { 200: Deployment } },
  }, async (req) => {
    const loaded = await loadProjectFor(req, req.params.id, 'read_environment')
    const deployment = await findDeployment(req.ingot.db, loaded.project.id, req.params.deployment_id)
    if (deployment === null) throw apiError(404, '404 Not found')
    const [presented] = await presentDeployments(req, loaded, [deployment])
    return presented!
  })
}

export default deployments
