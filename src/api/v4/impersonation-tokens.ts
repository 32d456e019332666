// Impersonation tokens (administrators only): personal access tokens an administrator issues for a
// user. Listed, created (the only answer that shows the token), read and revoked.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Scope } from '../../auth/actor.js'
import {
  ImpersonationToken, ImpersonationTokenWithToken, presentImpersonationToken, presentImpersonationTokenWithToken,
} from '../../entities/impersonation-token.js'
import { findImpersonationToken, findImpersonationTokens, type TokenState } from '../../finders/users-finder.js'
import { createImpersonationToken } from '../../services/access-tokens/create-impersonation-token.js'
import { revokeAccessToken } from '../../services/access-tokens/revoke-access-token.js'
import { notFound } from '../../common/errors.js'
import { loadUser, requireAdmin } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { paginate } from '../../common/pages.js'
import { DateParam, OneOf, Pagination } from '../params.js'

const READ_SCOPES: readonly Scope[] = ['api', 'read_user']

const UserParams = Type.Object({ user_id: Type.String() })
const TokenParams = Type.Object({ user_id: Type.String(), impersonation_token_id: Type.Integer() })

const ListQuery = Type.Object({
  ...Pagination.properties,
  state: OneOf<TokenState>(['all', 'active', 'inactive'], { default: 'all' }),
})

const CreateBody = Type.Object({
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  expires_at: Type.Optional(DateParam()),
})

const impersonationTokens: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/users/:user_id/impersonation_tokens', {
    schema: { params: UserParams, querystring: ListQuery, response: { 200: Type.Array(ImpersonationToken) } },
    config: { scopes: READ_SCOPES },
  }, async (req, reply) => {
    requireAdmin(req)
    const { db } = req.ingot
    const user = await loadUser(req, req.params.user_id)
    const page = await paginate(db, findImpersonationTokens(db, user.id, req.query.state), req.query)
    setPaginationHeaders(req, reply, page)
    const now = Date.now()
    return page.items.map((row) => presentImpersonationToken(row, now))
  })

  app.post('/users/:user_id/impersonation_tokens', {
    schema: { params: UserParams, body: CreateBody, response: { 201: ImpersonationTokenWithToken } },
  }, async (req, reply) => {
    requireAdmin(req)
    const user = await loadUser(req, req.params.user_id)
    const { row, token } = await createImpersonationToken(req.ingot.db, user.id, req.body)
    reply.code(201)
    return presentImpersonationTokenWithToken(row, token)
  })

  app.get('/users/:user_id/impersonation_tokens/:impersonation_token_id', {
    schema: { params: TokenParams, response: { 200: ImpersonationToken } },
    config: { scopes: READ_SCOPES },
  }, async (req) => {
    requireAdmin(req)
    const user = await loadUser(req, req.params.user_id)
    const token = await findImpersonationToken(req.ingot.db, user.id, req.params.impersonation_token_id)
    if (token === undefined) throw notFound('Impersonation Token')
    return presentImpersonationToken(token)
  })

  app.delete('/users/:user_id/impersonation_tokens/:impersonation_token_id', {
    schema: { params: TokenParams },
  }, async (req, reply) => {
    requireAdmin(req)
    const { db } = req.ingot
    const user = await loadUser(req, req.params.user_id)
    const token = await findImpersonationToken(db, user.id, req.params.impersonation_token_id)
    if (token === undefined) throw notFound('Impersonation Token')
    await revokeAccessToken(db, token)
    return reply.code(204).send()
  })
}

export default impersonationTokens
