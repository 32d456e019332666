// Reads for the Users resources: the user list with its filters (GET /users, like the original's
// UsersFinder), the account data the larger user forms show loaded for a page of users in a fixed
// number of queries, and a user's SSH keys and impersonation tokens.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import type { AccessTokenRow, IdentityRow, SshKeyRow, UserRow } from '../db/schema.js'
import type { Actor } from '../auth/actor.js'
import { isAdmin } from '../auth/actor.js'
import { fitsIntegerColumn } from '../db/values.js'
import type { UserAccountView } from '../entities/user.js'
import { counterValue } from './counters.js'
import { hasCustomAttributes } from './custom-attributes.js'
import { matchesSearch, textOrder } from './text-search.js'

export const USER_ORDER_FIELDS = ['id', 'name', 'username', 'created_at', 'updated_at'] as const
export type UserOrderField = typeof USER_ORDER_FIELDS[number]

export interface UserFilters {
  /** Words of the name or username (case-insensitive), or the exact email. */
  search?: string
  /** Exact username, case-insensitive. */
  username?: string
  active?: boolean
  blocked?: boolean
  external?: boolean
  /** With provider: the user holding that external identity (admins). */
  externUid?: string
  provider?: string
  createdBefore?: number
  createdAfter?: number
  /** Admins only; ignored for everyone else. */
  customAttributes?: Record<string, string>
  twoFactor?: string
  orderBy?: UserOrderField
  sort?: 'asc' | 'desc'
}

/**
 * The total of an unfiltered user list from the maintained count; undefined when a filter narrows
 * the list (its total is then counted from the list's own query).
 */
export function maintainedUserTotal(db: Db, actor: Actor | null, f: UserFilters): (() => Promise<number>) | undefined {
  const admin = isAdmin(actor)
  const narrowed = (f.search ?? '') !== '' || (f.username ?? '') !== '' || f.active === true || f.blocked === true ||
    f.external === true || (admin && f.externUid !== undefined && f.provider !== undefined) ||
    f.createdBefore !== undefined || f.createdAfter !== undefined ||
    (admin && Object.keys(f.customAttributes ?? {}).length > 0) ||
    (admin && (f.twoFactor === 'enabled' || f.twoFactor === 'disabled'))
  return narrowed ? undefined : () => counterValue(db, 'users')
}

/** Users matching the filters, the ghost never among them; admins may order, everyone else gets newest first. */
export function findUsers(db: Db, actor: Actor | null, f: UserFilters) {
  const admin = isAdmin(actor)
  const orderBy = admin ? f.orderBy ?? 'id' : 'id'
  const sort = admin ? f.sort ?? 'desc' : 'desc'
  const customAttributes = admin ? hasCustomAttributes('user', 'users.id', f.customAttributes) : null
  const search = f.search === undefined ? null : searchCondition(f.search)
  let query = db.selectFrom('users').selectAll('users').where('users.ghost', '=', 0)
    .$if(f.username !== undefined && f.username !== '', (q) => q.where('users.username_lower', '=', f.username!.toLowerCase()))
    .$if(search !== null, (q) => q.where(search!))
    .$if(f.blocked === true, (q) => q.where('users.state', '=', 'blocked'))
    .$if(f.active === true, (q) => q.where('users.state', '=', 'active'))
    .$if(f.external === true, (q) => q.where('users.external', '=', 1))
    .$if(admin && f.externUid !== undefined && f.provider !== undefined, (q) => q.where(({ exists, selectFrom }) => exists(
      selectFrom('identities').select('identities.id')
        .whereRef('identities.user_id', '=', 'users.id')
        .where('identities.provider', '=', f.provider!).where('identities.extern_uid', '=', f.externUid!),
    )))
    .$if(admin && f.twoFactor === 'enabled', (q) => q.where('users.two_factor_enabled', '=', 1))
    .$if(admin && f.twoFactor === 'disabled', (q) => q.where('users.two_factor_enabled', '=', 0))
    .$if(f.createdAfter !== undefined, (q) => q.where('users.created_at', '>=', f.createdAfter!))
    .$if(f.createdBefore !== undefined, (q) => q.where('users.created_at', '<=', f.createdBefore!))
    .$if(customAttributes !== null, (q) => q.where(customAttributes!))
    .orderBy(orderBy === 'name' || orderBy === 'username' ? textOrder(db, `users.${orderBy}`) : `users.${orderBy}`, sort)
  if (orderBy !== 'id') query = query.orderBy('users.id', sort)
  return query
}

/**
 * The original's user search: the fuzzy search (text-search.ts) in the name or in the username,
 * or the query equal to the email.
 */
function searchCondition(search: string): Expression<SqlBool> | null {
  const byName = matchesSearch('users.name', search)
  const byUsername = matchesSearch('users.username', search)
  if (byName === null || byUsername === null) return null
  return sql<SqlBool>`(${byName} or ${byUsername} or users.email_lower = ${search.trim().toLowerCase()})`
}

/** Identities and personal project counts of each user, in two queries whatever the number of users. */
export async function loadUserAccountViews(db: Db, users: readonly UserRow[]): Promise<UserAccountView[]> {
  if (users.length === 0) return []
  const ids = users.map((u) => u.id)
  const [identities, counts] = await Promise.all([
    db.selectFrom('identities').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    db.selectFrom('namespaces').innerJoin('projects', 'projects.namespace_id', 'namespaces.id')
      .select(['namespaces.owner_id', (eb) => eb.fn.countAll<number>().as('count')])
      .where('namespaces.kind', '=', 'user').where('namespaces.owner_id', 'in', ids)
      .groupBy('namespaces.owner_id').execute(),
  ])
  const countByUser = new Map(counts.map((c) => [c.owner_id, Number(c.count)]))
  const identitiesByUser = new Map<number, IdentityRow[]>()
  for (const identity of identities) identitiesByUser.set(identity.user_id, [...identitiesByUser.get(identity.user_id) ?? [], identity])
  return users.map((user) => ({
    user,
    identities: identitiesByUser.get(user.id) ?? [],
    personalProjectCount: countByUser.get(user.id) ?? 0,
  }))
}

export async function loadUserAccountView(db: Db, user: UserRow): Promise<UserAccountView> {
  const [view] = await loadUserAccountViews(db, [user])
  if (view === undefined) throw new Error('unreachable: one user in, one view out')
  return view
}

/** A user by id; null when there is none (the ghost is never found). */
export async function findUserById(db: Db, id: number): Promise<UserRow | null> {
  if (!fitsIntegerColumn(id)) return null
  const user = await db.selectFrom('users').selectAll().where('ghost', '=', 0).where('id', '=', id).executeTakeFirst()
  return user ?? null
}

/** A user by username in any case; null when there is none (the ghost is never found). */
export async function findUserByUsername(db: Db, username: string): Promise<UserRow | null> {
  // No username holds a NUL, which PostgreSQL refuses in a query.
  if (username.includes('\0')) return null
  const user = await db.selectFrom('users').selectAll().where('ghost', '=', 0)
    .where('username_lower', '=', username.toLowerCase()).executeTakeFirst()
  return user ?? null
}

/** The path of the user's current avatar under the uploads directory; null without one or without the user. */
export async function userAvatarPath(db: Db, userId: number): Promise<string | null> {
  if (!fitsIntegerColumn(userId)) return null
  const user = await db.selectFrom('users').select('avatar_path').where('id', '=', userId).executeTakeFirst()
  return user?.avatar_path ?? null
}

/** A user's SSH keys, oldest first. */
export function findSshKeys(db: Db, userId: number) {
  return db.selectFrom('ssh_keys').selectAll().where('user_id', '=', userId).orderBy('id')
}

export async function findSshKey(db: Db, userId: number, keyId: number): Promise<SshKeyRow | undefined> {
  if (!fitsIntegerColumn(keyId)) return undefined
  return findSshKeys(db, userId).where('id', '=', keyId).executeTakeFirst()
}

export type TokenState = 'all' | 'active' | 'inactive'

/** A user's tokens of one kind, oldest first: active ones are neither revoked nor expired. */
export function findAccessTokens(db: Db, userId: number, kind: 'personal' | 'impersonation', state: TokenState = 'all', now: number = Date.now()) {
  return db.selectFrom('access_tokens').selectAll()
    .where('user_id', '=', userId).where('kind', '=', kind)
    .$if(state === 'active', (q) => q.where('revoked', '=', 0)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])))
    .$if(state === 'inactive', (q) => q.where((eb) => eb.or([eb('revoked', '=', 1), eb('expires_at', '<=', now)])))
    .orderBy('id')
}

export function findImpersonationTokens(db: Db, userId: number, state: TokenState = 'all', now: number = Date.now()) {
  return findAccessTokens(db, userId, 'impersonation', state, now)
}

export async function findImpersonationToken(db: Db, userId: number, tokenId: number): Promise<AccessTokenRow | undefined> {
  if (!fitsIntegerColumn(tokenId)) return undefined
  return findImpersonationTokens(db, userId).where('id', '=', tokenId).executeTakeFirst()
}

/** One of the user's personal access tokens that still works (revoking one twice finds none). */
export async function findActivePersonalAccessToken(db: Db, userId: number, tokenId: number): Promise<AccessTokenRow | undefined> {
  return findAccessTokens(db, userId, 'personal', 'active').where('id', '=', tokenId).executeTakeFirst()
}
