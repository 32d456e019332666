// Test data made through the real services, so every row is what the API itself would write.
import { randomBytes } from 'node:crypto'
import type { TestApp } from './app.js'
import type { MemberSource, NamespaceRow, ProjectRow, UserRow } from '../../src/db/schema.js'
import type { Actor, Scope } from '../../src/auth/actor.js'
import { createUser, type CreateUserInput } from '../../src/services/users/create-user.js'
import { createAccessToken } from '../../src/services/access-tokens/create-access-token.js'
import { createGroup, type CreateGroupInput } from '../../src/services/groups/create-group.js'
import { createProject, type CreateProjectInput } from '../../src/services/projects/create-project.js'
import { addMember } from '../../src/services/members/add-member.js'

export interface TestUser {
  user: UserRow
  /** A personal access token with the api and read_user scopes. */
  token: string
  /** The user as the caller of a service. */
  actor: Actor
}

let sequence = 0

/** A short name unique within the test process. */
export function uniqueName(prefix: string): string {
  sequence += 1
  return `${prefix}${sequence}${randomBytes(2).toString('hex')}`
}

export async function makeUser(t: TestApp, overrides: Partial<CreateUserInput> = {}): Promise<TestUser> {
  const username = overrides.username ?? uniqueName('user')
  const user = await createUser(t.ctx, {
    username,
    name: overrides.name ?? `User ${username}`,
    email: overrides.email ?? `${username}@example.com`,
    password: 'password1234',
    skip_confirmation: true,
    ...overrides,
  })
  const { token, row } = await makeToken(t, user.id)
  return { user, token, actor: { user, token: row, sudoFrom: null } }
}

export async function makeToken(t: TestApp, userId: number, scopes: readonly Scope[] = ['api', 'read_user'], expiresAt: number | null = null) {
  return createAccessToken(t.ctx.db, { userId, kind: 'personal', name: 'test token', scopes, expiresAt })
}

export async function blockUser(t: TestApp, userId: number): Promise<void> {
  await t.ctx.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', userId).execute()
}

/** root as the caller of a service. */
export async function rootActor(t: TestApp): Promise<Actor> {
  const token = await t.ctx.db.selectFrom('access_tokens').selectAll().where('user_id', '=', t.root.user.id).executeTakeFirstOrThrow()
  return { user: t.root.user, token, sudoFrom: null }
}

/** A group created by `by` (root when omitted), who becomes its Owner. */
export async function makeGroup(t: TestApp, input: Partial<CreateGroupInput> = {}, by?: TestUser): Promise<NamespaceRow> {
  const path = input.path ?? uniqueName('group')
  return createGroup(t.ctx, by?.actor ?? await rootActor(t), { name: input.name ?? path, path, visibility: 'private', ...input })
}

/** A project in `namespace` (the creator's personal namespace when omitted). */
export async function makeProject(
  t: TestApp, by: TestUser | null, input: Partial<CreateProjectInput> = {},
): Promise<ProjectRow> {
  const actor = by?.actor ?? await rootActor(t)
  const namespace = input.namespace ?? await t.ctx.db.selectFrom('namespaces').selectAll()
    .where('owner_id', '=', actor.user.id).where('kind', '=', 'user').executeTakeFirstOrThrow()
  return createProject(t.ctx, actor, { path: uniqueName('project'), visibility: 'private', ...input, namespace })
}

export async function makeMember(
  t: TestApp, source: { type: MemberSource; id: number }, user: TestUser, accessLevel: number, expiresAt: string | null = null,
) {
  return addMember(t.ctx.db, await rootActor(t), { sourceType: source.type, sourceId: source.id, userId: user.user.id, accessLevel, expiresAt })
}
