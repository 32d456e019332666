// Namespaces (personal namespaces and groups): GET /namespaces and GET /namespaces/:id, for
// signed-in callers; admins see every namespace, everyone else their own and their groups'.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { Namespace, presentNamespace } from '../../entities/namespace.js'
import { findNamespace, findNamespaces, loadNamespaceView, loadNamespaceViews } from '../../finders/namespaces-finder.js'
import { notFound } from '../../common/errors.js'
import { requireActor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { paginate } from '../../common/pages.js'
import { IdParams, Pagination, SearchParam } from '../params.js'

const NamespaceListQuery = Type.Object({
  ...Pagination.properties,
  search: Type.Optional(SearchParam()),
})

const namespaces: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/namespaces', {
    schema: { querystring: NamespaceListQuery, response: { 200: Type.Array(Namespace) } },
  }, async (req, reply) => {
    const { db } = req.ingot
    const actor = requireActor(req)
    const page = await paginate(db, findNamespaces(db, actor, { search: req.query.search }), req.query)
    setPaginationHeaders(req, reply, page)
    return (await loadNamespaceViews(db, actor, page.items)).map(presentNamespace)
  })

  app.get('/namespaces/:id', {
    schema: { params: IdParams, response: { 200: Namespace } },
  }, async (req) => {
    const { db } = req.ingot
    const actor = requireActor(req)
    const namespace = await findNamespace(db, actor, req.params.id)
    if (namespace === undefined) throw notFound('Namespace')
    return presentNamespace(await loadNamespaceView(db, actor, namespace))
  })
}

export default namespaces
