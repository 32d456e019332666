// The permission matrix, set up once and reused by every endpoint's tests: a project inside a
// group, and one caller of each kind — anonymous, a signed-in non-member, project members at each
// level, the group's owner, an admin, an external user and a blocked member.
import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.js'
import { blockUser, makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.js'
import type { Visibility } from '../../src/policies/access-levels.js'
import { DEVELOPER, GUEST, MAINTAINER, REPORTER } from '../../src/policies/access-levels.js'

export const PERSONAS = [
  'anonymous', 'nonMember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin', 'external', 'blocked',
] as const
export type Persona = typeof PERSONAS[number]

export interface Matrix {
  group: NamespaceRow
  project: ProjectRow
  /** Tokens by persona; null for anonymous. */
  tokens: Record<Persona, string | null>
  users: Record<Exclude<Persona, 'anonymous' | 'admin'>, TestUser>
}

/** A `visibility` project in a group of the same visibility, and a caller of every kind. */
export async function makeMatrix(t: TestApp, visibility: Visibility = 'private'): Promise<Matrix> {
  const owner = await makeUser(t)
  const group = await makeGroup(t, { visibility }, owner)
  const project = await makeProject(t, owner, { namespace: group, visibility })
  const users = {
    owner,
    nonMember: await makeUser(t),
    guest: await makeUser(t),
    reporter: await makeUser(t),
    developer: await makeUser(t),
    maintainer: await makeUser(t),
    external: await makeUser(t, { external: true }),
    blocked: await makeUser(t),
  }
  const levels = { guest: GUEST, reporter: REPORTER, developer: DEVELOPER, maintainer: MAINTAINER, blocked: DEVELOPER }
  for (const [persona, level] of Object.entries(levels)) {
    await makeMember(t, { type: 'project', id: project.id }, users[persona as keyof typeof levels], level)
  }
  await blockUser(t, users.blocked.user.id)
  const tokens = {
    anonymous: null,
    admin: t.root.token,
    ...Object.fromEntries(Object.entries(users).map(([persona, user]) => [persona, user.token])),
  } as Record<Persona, string | null>
  return { group, project, tokens, users }
}

/**
 * Sends the request as each persona named in `expected` and checks the status each gets,
 * reporting every mismatch at once.
 */
export async function expectStatuses(
  matrix: Matrix,
  send: (token: string | null, persona: Persona) => Promise<{ status: number }>,
  expected: Partial<Record<Persona, number>>,
): Promise<void> {
  const actual: Partial<Record<Persona, number>> = {}
  for (const persona of Object.keys(expected) as Persona[]) {
    actual[persona] = (await send(matrix.tokens[persona], persona)).status
  }
  assert.deepEqual(actual, expected)
}
