// Users (spec: Users): the user list and single users, the current user, administration of users
// (create, update, delete, block, unblock), user status, and SSH keys of the current user and of
// any user.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { Scope } from '../../auth/actor.js'
import { isAdmin } from '../../auth/actor.js'
import type { SshKeyRow, UserRow } from '../../db/schema.js'
import { SshKey, presentSshKey } from '../../entities/ssh-key.js'
import {
  UserAnyForm, UserBasic, UserWithAdmin, presentUser, presentUserBasic, presentUserWithAdmin,
} from '../../entities/user.js'
import { UserStatus, presentUserStatus } from '../../entities/user-status.js'
import { customAttributesOf } from '../../finders/custom-attributes.js'
import { usersById, withRows } from '../../finders/rows.js'
import { jsonArrayOf, sendCachedList } from '../list-cache.js'
import {
  USER_ORDER_FIELDS, type UserFilters, type UserOrderField, findSshKey, findSshKeys, findUsers, loadUserAccountView, loadUserAccountViews,
  maintainedUserTotal,
} from '../../finders/users-finder.js'
import { addSshKey } from '../../services/ssh-keys/add-ssh-key.js'
import { removeSshKey } from '../../services/ssh-keys/remove-ssh-key.js'
import { blockUser, unblockUser } from '../../services/users/block-user.js'
import { createUser } from '../../services/users/create-user.js'
import { deleteUser } from '../../services/users/delete-user.js'
import { setUserStatus } from '../../services/users/set-status.js'
import { updateUser } from '../../services/users/update-user.js'
import { avatarErrors, setUserAvatar } from '../../services/uploads/user-avatar.js'
import { allOrNoneOf, forbidden, missingOneOf, notFound, unauthorized, validationFailed } from '../../common/errors.js'
import { loadUser, requireActor, requireAdmin } from '../load.js'
import { paginationHeaders, setPaginationHeaders } from '../pagination.js'
import { paginate } from '../../common/pages.js'
import { BooleanParam, CustomAttributesFilter, DateTimeParam, FileParam, OneOf, Pagination, SearchParam, SortParam } from '../params.js'
import { type UploadedFile } from '../../common/uploaded-file.js'
import { presentCtx } from '../present.js'

const READ_SCOPES: readonly Scope[] = ['api', 'read_user']

const UserIdParams = Type.Object({ id: Type.String() })
const UserKeyParams = Type.Object({ id: Type.String(), key_id: Type.Integer() })
const KeyParams = Type.Object({ key_id: Type.Integer() })

const ListUsersQuery = Type.Object({
  ...Pagination.properties,
  search: Type.Optional(SearchParam()),
  username: Type.Optional(Type.String()),
  active: Type.Optional(BooleanParam()),
  blocked: Type.Optional(BooleanParam()),
  external: Type.Optional(BooleanParam()),
  extern_uid: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String()),
  created_before: Type.Optional(DateTimeParam()),
  created_after: Type.Optional(DateTimeParam()),
  custom_attributes: CustomAttributesFilter,
  with_custom_attributes: Type.Optional(BooleanParam()),
  order_by: OneOf<UserOrderField>(USER_ORDER_FIELDS, { default: 'id' }),
  sort: SortParam('desc'),
  two_factor: Type.Optional(Type.String()),
})

const WithCustomAttributesQuery = Type.Object({ with_custom_attributes: Type.Optional(BooleanParam()) })

const userAttributeFields = {
  messenger: Type.Optional(Type.String()),
  professional_network: Type.Optional(Type.String()),
  microblog: Type.Optional(Type.String()),
  website_url: Type.Optional(Type.String()),
  organization: Type.Optional(Type.String()),
  bio: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  public_email: Type.Optional(Type.String()),
  projects_limit: Type.Optional(Type.Integer()),
  extern_uid: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String()),
  admin: Type.Optional(BooleanParam()),
  can_create_group: Type.Optional(BooleanParam()),
  external: Type.Optional(BooleanParam()),
  private_profile: Type.Optional(BooleanParam()),
  /** An image file, sent in a multipart/form-data body. */
  avatar: Type.Optional(FileParam()),
}

const CreateUserBody = Type.Object({
  email: Type.String(),
  username: Type.String(),
  name: Type.String(),
  password: Type.Optional(Type.String()),
  reset_password: Type.Optional(BooleanParam()),
  skip_confirmation: Type.Optional(BooleanParam()),
  ...userAttributeFields,
})

const UpdateUserBody = Type.Object({
  email: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  skip_reconfirmation: Type.Optional(BooleanParam()),
  ...userAttributeFields,
})

const DeleteUserQuery = Type.Object({ hard_delete: Type.Optional(BooleanParam({ default: false })) })

const SetStatusBody = Type.Object({ emoji: Type.Optional(Type.String()), message: Type.Optional(Type.String()) })

const AddKeyBody = Type.Object({ title: Type.String(), key: Type.String() })

/** 400 before anything is written when an avatar is not an acceptable image. */
function checkAvatar(avatar: UploadedFile | undefined): void {
  const errors = avatar === undefined ? [] : avatarErrors(avatar)
  if (errors.length > 0) throw validationFailed({ avatar: errors })
}

/** The user with the avatar sent with a create or update stored, when one was. */
function withAvatar(req: FastifyRequest, user: UserRow, avatar: UploadedFile | undefined): Promise<UserRow> | UserRow {
  const { db, config } = req.ingot
  return avatar === undefined ? user : setUserAvatar(db, config.dataDir, user, avatar)
}

/** extern_uid and provider are given together or not at all. */
function checkIdentityParams(params: { extern_uid?: string; provider?: string }): void {
  if ((params.extern_uid === undefined) !== (params.provider === undefined)) throw allOrNoneOf('extern_uid', 'provider')
}

async function presentAdminForm(req: FastifyRequest, user: UserRow, withCustomAttributes = false) {
  const { db } = req.ingot
  const view = await loadUserAccountView(db, user)
  const attributes = withCustomAttributes ? (await customAttributesOf(db, 'user', [user.id])).get(user.id) ?? [] : undefined
  return presentUserWithAdmin(view, presentCtx(req), attributes)
}

/** One of the user's SSH keys, 404 when they have none with that id. */
async function loadSshKey(req: FastifyRequest, userId: number, keyId: number): Promise<SshKeyRow> {
  const key = await findSshKey(req.ingot.db, userId, keyId)
  if (key === undefined) throw notFound('Key')
  return key
}

/** What a user's JSON is made of (the admin form counts personal projects). */
const USER_JSON = { name: 'users', tables: ['users', 'identities', 'namespaces', 'projects'] }
/** What the user list's answers are made of. */
const USER_LIST = { name: 'users', tables: [...USER_JSON.tables, 'custom_attributes'] }

const users: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/users', {
    schema: { querystring: ListUsersQuery, response: { 200: Type.Array(UserAnyForm) } },
    config: { auth: 'optional', scopes: READ_SCOPES },
  }, async (req, reply) => {
    const { db } = req.ingot
    const q = req.query
    checkIdentityParams(q)
    if (q.external === true || (q.extern_uid !== undefined && q.provider !== undefined)) {
      if (req.actor === null) throw unauthorized()
      requireAdmin(req)
    }
    // Anonymous callers may only look a user up by username, never list everyone.
    if (req.actor === null && (q.username ?? '') === '') throw forbidden('Not authorized to access /api/v4/users')
    const admin = isAdmin(req.actor)
    const filters: UserFilters = {
      search: q.search, username: q.username, active: q.active, blocked: q.blocked, external: q.external,
      externUid: q.extern_uid, provider: q.provider, createdBefore: q.created_before, createdAfter: q.created_after,
      customAttributes: q.custom_attributes, twoFactor: q.two_factor, orderBy: q.order_by, sort: q.sort,
    }
    const withAttributes = admin && q.with_custom_attributes === true
    return sendCachedList(req, reply, USER_LIST, async () => {
      const ids = findUsers(db, req.actor, filters).clearSelect().select('users.id')
      const page = await withRows(await paginate(db, ids, q, { total: maintainedUserTotal(db, req.actor, filters) }), (some) => usersById(db, some))
      const ctx = presentCtx(req)
      const attributes = withAttributes ? await customAttributesOf(db, 'user', page.items.map((u) => u.id)) : null
      const attributesOf = (id: number) => (attributes === null ? undefined : attributes.get(id) ?? [])
      const keyOf = (id: number) => (withAttributes ? null : `${admin ? 'admin' : 'basic'}:${id}`)
      const body = admin
        ? await jsonArrayOf(req, reply, UserWithAdmin, { ...USER_JSON, keyOf: (view) => keyOf(view.user.id) },
          () => loadUserAccountViews(db, page.items), (view) => presentUserWithAdmin(view, ctx, attributesOf(view.user.id)))
        : await jsonArrayOf(req, reply, UserBasic, { ...USER_JSON, keyOf: (user) => keyOf(user.id) },
          async () => page.items, (user) => presentUserBasic(user, ctx, attributesOf(user.id)))
      return { headers: paginationHeaders(req, page), body }
    })
  })

  app.get('/users/:id', {
    schema: { params: UserIdParams, querystring: WithCustomAttributesQuery, response: { 200: UserAnyForm } },
    config: { auth: 'optional', scopes: READ_SCOPES },
  }, async (req) => {
    const user = await loadUser(req, req.params.id)
    if (isAdmin(req.actor)) return presentAdminForm(req, user, req.query.with_custom_attributes === true)
    return presentUser(user, presentCtx(req))
  })

  app.get('/user', {
    schema: { response: { 200: UserWithAdmin } },
    config: { scopes: READ_SCOPES },
  }, async (req) => presentAdminForm(req, await loadUser(req, requireActor(req).user.id)))

  app.post('/users', {
    schema: { body: CreateUserBody, response: { 201: UserWithAdmin } },
  }, async (req, reply) => {
    const body = req.body
    if (body.password === undefined && body.reset_password === undefined) throw missingOneOf('password', 'reset_password')
    checkIdentityParams(body)
    requireAdmin(req)
    const { avatar, ...input } = body
    checkAvatar(avatar)
    const user = await withAvatar(req, await createUser(req.ingot, input), avatar)
    reply.code(201)
    return presentAdminForm(req, user)
  })

  app.put('/users/:id', {
    schema: { params: UserIdParams, body: UpdateUserBody, response: { 200: UserWithAdmin } },
  }, async (req) => {
    checkIdentityParams(req.body)
    requireAdmin(req)
    const user = await loadUser(req, req.params.id)
    const { avatar, ...input } = req.body
    checkAvatar(avatar)
    const updated = await withAvatar(req, await updateUser(req.ingot.db, user, input, { by: req.actor }), avatar)
    return presentAdminForm(req, updated)
  })

  app.delete('/users/:id', {
    schema: { params: UserIdParams, querystring: DeleteUserQuery },
  }, async (req, reply) => {
    requireAdmin(req)
    const user = await loadUser(req, req.params.id)
    await deleteUser(req.ingot, user, { hardDelete: req.query.hard_delete === true })
    return reply.code(204).send()
  })

  // 201 `true` when the state changed, `false` when the user was in it already.
  for (const [action, change] of [['block', blockUser], ['unblock', unblockUser]] as const) {
    app.post(`/users/:id/${action}`, {
      schema: { params: UserIdParams, response: { 201: Type.Boolean() } },
    }, async (req, reply) => {
      requireAdmin(req)
      const user = await loadUser(req, req.params.id)
      reply.code(201)
      return change(req.ingot.db, user)
    })
  }

  app.get('/user/status', {
    schema: { response: { 200: UserStatus } },
    config: { scopes: READ_SCOPES },
  }, async (req) => presentUserStatus(requireActor(req).user))

  app.get('/users/:id_or_username/status', {
    schema: { params: Type.Object({ id_or_username: Type.String() }), response: { 200: UserStatus } },
    config: { auth: 'optional', scopes: READ_SCOPES },
  }, async (req) => presentUserStatus(await loadUser(req, req.params.id_or_username, { byUsername: true })))

  app.put('/user/status', {
    schema: { body: SetStatusBody, response: { 200: UserStatus } },
  }, async (req) => presentUserStatus(await setUserStatus(req.ingot.db, requireActor(req).user, req.body)))

  app.get('/user/keys', {
    schema: { querystring: Pagination, response: { 200: Type.Array(SshKey) } },
    config: { scopes: READ_SCOPES },
  }, async (req, reply) => {
    const { db } = req.ingot
    const page = await paginate(db, findSshKeys(db, requireActor(req).user.id), req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentSshKey)
  })

  app.get('/user/keys/:key_id', {
    schema: { params: KeyParams, response: { 200: SshKey } },
    config: { scopes: READ_SCOPES },
  }, async (req) => presentSshKey(await loadSshKey(req, requireActor(req).user.id, req.params.key_id)))

  app.post('/user/keys', {
    schema: { body: AddKeyBody, response: { 201: SshKey } },
  }, async (req, reply) => {
    const key = await addSshKey(req.ingot.db, requireActor(req).user.id, req.body)
    reply.code(201)
    return presentSshKey(key)
  })

  app.delete('/user/keys/:key_id', {
    schema: { params: KeyParams },
  }, async (req, reply) => {
    const { db } = req.ingot
    await removeSshKey(db, await loadSshKey(req, requireActor(req).user.id, req.params.key_id))
    return reply.code(204).send()
  })

  app.get('/users/:id/keys', {
    schema: { params: UserIdParams, querystring: Pagination, response: { 200: Type.Array(SshKey) } },
    config: { auth: 'optional', scopes: READ_SCOPES },
  }, async (req, reply) => {
    const { db } = req.ingot
    const user = await loadUser(req, req.params.id)
    const page = await paginate(db, findSshKeys(db, user.id), req.query)
    setPaginationHeaders(req, reply, page)
    return page.items.map(presentSshKey)
  })

  app.post('/users/:id/keys', {
    schema: { params: UserIdParams, body: AddKeyBody, response: { 201: SshKey } },
  }, async (req, reply) => {
    requireAdmin(req)
    const user = await loadUser(req, req.params.id)
    const key = await addSshKey(req.ingot.db, user.id, req.body)
    reply.code(201)
    return presentSshKey(key)
  })

  app.delete('/users/:id/keys/:key_id', {
    schema: { params: UserKeyParams },
  }, async (req, reply) => {
    requireAdmin(req)
    const user = await loadUser(req, req.params.id)
    await removeSshKey(req.ingot.db, await loadSshKey(req, user.id, req.params.key_id))
    return reply.code(204).send()
  })
}

export default users
