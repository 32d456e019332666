// Members of groups and projects: the same examples run for both source kinds (as the original's
// shared examples do), then the behaviour each kind has of its own — inherited members, the last
// Owner of a group, the owner of a personal project, and the events project memberships record.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, EXTERNAL_URL, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeMatrix, expectStatuses, type Matrix, type Persona } from '../shared/permission-matrix.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import type { MemberSource } from '../../src/db/schema.js'
import { today } from '../../src/db/values.js'
import { DEVELOPER, GUEST, MAINTAINER, OWNER, REPORTER } from '../../src/policies/access-levels.js'

const DAY_MS = 24 * 60 * 60 * 1000
const inDays = (days: number) => today(Date.now() + days * DAY_MS)

interface Source {
  type: MemberSource
  id: number
  /** `/groups/:id` or `/projects/:id`. */
  path: string
}

function sourceOf(kind: MemberSource, matrix: Matrix): Source {
  return kind === 'group'
    ? { type: 'group', id: matrix.group.id, path: `/groups/${matrix.group.id}` }
    : { type: 'project', id: matrix.project.id, path: `/projects/${matrix.project.id}` }
}

function memberBody(user: TestUser, accessLevel: number, expiresAt: string | null = null) {
  return {
    id: user.user.id,
    name: user.user.name,
    username: user.user.username,
    state: 'active',
    avatar_url: null,
    web_url: `${EXTERNAL_URL}/${user.user.username}`,
    access_level: accessLevel,
    expires_at: expiresAt,
  }
}

describe('members', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const membersOf = async (source: Source) =>
    t.ctx.db.selectFrom('members').selectAll().where('source_type', '=', source.type).where('source_id', '=', source.id).execute()
  const eventsOf = async (projectId: number) =>
    t.ctx.db.selectFrom('events').selectAll().where('project_id', '=', projectId).orderBy('id').execute()

  for (const kind of ['group', 'project'] as const) {
    describe(`${kind} members`, () => {
      let matrix: Matrix
      let source: Source
      /** The personas who may manage this source's members; the others who can see it get 403. */
      const managers: Persona[] = kind === 'group' ? ['owner', 'admin'] : ['maintainer', 'owner', 'admin']
      const writeStatuses = (success: number): Partial<Record<Persona, number>> => ({
        anonymous: 401, nonMember: 404, external: 404, blocked: 403, guest: 403, reporter: 403, developer: 403,
        maintainer: managers.includes('maintainer') ? success : 403, owner: success, admin: success,
      })
      /** The source's direct members with the levels the matrix gave them. */
      let directMembers: [TestUser, number][]

      before(async () => {
        matrix = await makeMatrix(t)
        source = sourceOf(kind, matrix)
        const { users } = matrix
        directMembers = kind === 'group'
          ? [[users.owner, OWNER]]
          : [[users.guest, GUEST], [users.reporter, REPORTER], [users.developer, DEVELOPER], [users.maintainer, MAINTAINER]]
        if (kind === 'group') {
          // Three more group members, so the group's list has several pages too.
          for (const level of [GUEST, REPORTER, DEVELOPER]) {
            const user = await makeUser(t)
            await makeMember(t, source, user, level)
            directMembers.push([user, level])
          }
        }
      })

      describe(`GET /${kind}s/:id/members`, () => {
        it('lists the direct members with every field, in a stable order', async () => {
          const res = await t.api('GET', `${source.path}/members`, { token: matrix.tokens.owner })
          assert.equal(res.status, 200, res.text)
          const expected = directMembers.map(([user, level]) => memberBody(user, level))
          if (kind === 'project') expected.push({ ...memberBody(matrix.users.blocked, DEVELOPER), state: 'blocked' })
          assert.deepEqual(res.body, expected)
        })

        it('paginates with every header', async () => {
          const total = directMembers.length + (kind === 'project' ? 1 : 0)
          await expectPaginates({ t, path: `${source.path}/members`, token: matrix.tokens.owner, total })
          await expectRejectsBadPagination(t, `${source.path}/members`, matrix.tokens.owner)
        })

        it('filters by name or username with `query`, ignoring case', async () => {
          const [user] = directMembers[1]!
          const byUsername = await t.api('GET', `${source.path}/members`, { token: matrix.tokens.owner, query: { query: user.user.username.toUpperCase() } })
          assert.deepEqual(byUsername.body.map((m: { id: number }) => m.id), [user.user.id])
          const byName = await t.api('GET', `${source.path}/members`, { token: matrix.tokens.owner, query: { query: `user ${user.user.username}` } })
          assert.deepEqual(byName.body.map((m: { id: number }) => m.id), [user.user.id])
          const none = await t.api('GET', `${source.path}/members`, { token: matrix.tokens.owner, query: { query: '%' } })
          assert.deepEqual(none.body, [])
        })

        it('leaves out expired memberships', async () => {
          const expired = await makeUser(t)
          await makeMember(t, source, expired, DEVELOPER, inDays(-1))
          const endsToday = await makeUser(t)
          await makeMember(t, source, endsToday, DEVELOPER, today())
          const res = await t.api('GET', `${source.path}/members`, { token: matrix.tokens.owner, query: { per_page: 100 } })
          const ids = res.body.map((m: { id: number }) => m.id)
          assert.ok(!ids.includes(expired.user.id) && !ids.includes(endsToday.user.id))
          assert.equal((await t.api('GET', `${source.path}/members/${expired.user.id}`, { token: matrix.tokens.owner })).status, 404)
        })

        it('answers 401 to anonymous callers and 404 to those who cannot see the source', async () => {
          await expectStatuses(matrix, (token) => t.api('GET', `${source.path}/members`, { token }), {
            anonymous: 401, nonMember: 404, external: 404, guest: 200, owner: 200, admin: 200,
          })
          const missing = await t.api('GET', `/${kind}s/999999/members`)
          assert.deepEqual(missing.body, { message: `404 ${kind === 'group' ? 'Group' : 'Project'} Not Found` })
        })

        it('finds the source by its URL-encoded path', async () => {
          const fullPath = kind === 'group' ? matrix.group.full_path : `${matrix.group.full_path}/${matrix.project.path}`
          const res = await t.api('GET', `/${kind}s/${encodeURIComponent(fullPath)}/members`, { token: matrix.tokens.owner })
          assert.equal(res.status, 200)
        })
      })

      describe(`GET /${kind}s/:id/members/:user_id`, () => {
        it('shows one direct member', async () => {
          const [user, level] = directMembers[0]!
          const res = await t.api('GET', `${source.path}/members/${user.user.id}`, { token: matrix.tokens.guest })
          assert.equal(res.status, 200)
          assert.deepEqual(res.body, memberBody(user, level))
        })

        it('is 404 Member Not Found for a user who is not a direct member', async () => {
          const res = await t.api('GET', `${source.path}/members/${matrix.users.nonMember.user.id}`)
          assert.equal(res.status, 404)
          assert.deepEqual(res.body, { message: '404 Member Not Found' })
        })

        it('answers 400 for a user_id that is not a number, 401 and 404 as the list does', async () => {
          const bad = await t.api('GET', `${source.path}/members/abc`)
          assert.equal(bad.status, 400)
          assert.deepEqual(bad.body, { error: 'user_id is invalid' })
          const [user] = directMembers[0]!
          await expectStatuses(matrix, (token) => t.api('GET', `${source.path}/members/${user.user.id}`, { token }), {
            anonymous: 401, nonMember: 404, reporter: 200,
          })
        })
      })

      describe(`POST /${kind}s/:id/members`, () => {
        it('adds a member (201) with an expiry date', async () => {
          const user = await makeUser(t)
          const expiresAt = inDays(30)
          const res = await t.api('POST', `${source.path}/members`, {
            token: matrix.tokens.owner, body: { user_id: user.user.id, access_level: DEVELOPER, expires_at: expiresAt },
          })
          assert.equal(res.status, 201, res.text)
          assert.deepEqual(res.body, memberBody(user, DEVELOPER, expiresAt))
          const row = (await membersOf(source)).find((m) => m.user_id === user.user.id)
          assert.equal(row?.access_level, DEVELOPER)
          assert.equal(row?.expires_at, expiresAt)
          assert.equal(row?.created_by_id, matrix.users.owner.user.id)
        })

        it('takes form-encoded parameters', async () => {
          const user = await makeUser(t)
          const res = await t.api('POST', `${source.path}/members`, {
            token: matrix.tokens.owner, form: `user_id=${user.user.id}&access_level=${REPORTER}`,
          })
          assert.equal(res.status, 201, res.text)
          assert.equal(res.body.access_level, REPORTER)
          assert.equal(res.body.expires_at, null)
        })

        it('lets only those who manage members add them', async () => {
          await expectStatuses(matrix, async (token) => {
            const user = await makeUser(t)
            return t.api('POST', `${source.path}/members`, { token, body: { user_id: user.user.id, access_level: GUEST } })
          }, writeStatuses(201))
        })

        it('is 409 for an existing member and 404 for an unknown user', async () => {
          const [member] = directMembers[0]!
          const existing = await t.api('POST', `${source.path}/members`, { body: { user_id: member.user.id, access_level: GUEST } })
          assert.equal(existing.status, 409)
          assert.deepEqual(existing.body, { message: 'Member already exists' })
          const unknown = await t.api('POST', `${source.path}/members`, { body: { user_id: 999999, access_level: GUEST } })
          assert.equal(unknown.status, 404)
          assert.deepEqual(unknown.body, { message: '404 User Not Found' })
        })

        it('replaces a membership that has expired but not yet been ended', async () => {
          const user = await makeUser(t)
          await makeMember(t, source, user, GUEST, inDays(-3))
          const res = await t.api('POST', `${source.path}/members`, { body: { user_id: user.user.id, access_level: REPORTER } })
          assert.equal(res.status, 201, res.text)
          const rows = (await membersOf(source)).filter((m) => m.user_id === user.user.id)
          assert.deepEqual(rows.map((m) => [m.access_level, m.expires_at]), [[REPORTER, null]])
        })

        it('validates access_level and expires_at', async () => {
          const user = await makeUser(t)
          const post = (body: Record<string, unknown>) => t.api('POST', `${source.path}/members`, { body: { user_id: user.user.id, ...body } })
          const invalidLevels = kind === 'group' ? [0, 5, 60] : [0, 5, OWNER, 60]
          for (const level of invalidLevels) {
            const res = await post({ access_level: level })
            assert.equal(res.status, 400, `access_level ${level}`)
            assert.deepEqual(res.body, { message: { access_level: ['is not included in the list'] } })
          }
          for (const expiresAt of [inDays(-1), today()]) {
            const res = await post({ access_level: GUEST, expires_at: expiresAt })
            assert.equal(res.status, 400)
            assert.deepEqual(res.body, { message: { expires_at: ['must be a date in the future'] } })
          }
          const both = await post({ access_level: 60, expires_at: inDays(-1) })
          assert.deepEqual(both.body, { message: { access_level: ['is not included in the list'], expires_at: ['must be a date in the future'] } })
          assert.deepEqual((await post({ access_level: GUEST, expires_at: '2030-13-01' })).body, { error: 'expires_at is invalid' })
          assert.deepEqual((await post({ access_level: 'high' })).body, { error: 'access_level is invalid' })
          assert.deepEqual((await post({})).body, { error: 'access_level is missing' })
          const noUser = await t.api('POST', `${source.path}/members`, { body: { access_level: GUEST } })
          assert.deepEqual(noUser.body, { error: 'user_id is missing' })
          assert.equal((await membersOf(source)).some((m) => m.user_id === user.user.id), false)
        })
      })

      describe(`PUT /${kind}s/:id/members/:user_id`, () => {
        let target: TestUser
        before(async () => {
          target = await makeUser(t)
          await makeMember(t, source, target, GUEST)
        })

        it('changes the access level and expiry date', async () => {
          const expiresAt = inDays(10)
          const res = await t.api('PUT', `${source.path}/members/${target.user.id}`, {
            token: matrix.tokens.owner, body: { access_level: REPORTER, expires_at: expiresAt },
          })
          assert.equal(res.status, 200, res.text)
          assert.deepEqual(res.body, memberBody(target, REPORTER, expiresAt))
          const keepsExpiry = await t.api('PUT', `${source.path}/members/${target.user.id}`, { body: { access_level: DEVELOPER } })
          assert.deepEqual([keepsExpiry.body.access_level, keepsExpiry.body.expires_at], [DEVELOPER, expiresAt])
          const cleared = await t.api('PUT', `${source.path}/members/${target.user.id}`, { body: { access_level: DEVELOPER, expires_at: null } })
          assert.equal(cleared.body.expires_at, null)
          const row = (await membersOf(source)).find((m) => m.user_id === target.user.id)
          assert.deepEqual([row?.access_level, row?.expires_at], [DEVELOPER, null])
        })

        it('lets only those who manage members change them', async () => {
          await expectStatuses(matrix, (token) =>
            t.api('PUT', `${source.path}/members/${target.user.id}`, { token, body: { access_level: GUEST } }), writeStatuses(200))
        })

        it('is 404 for a user who is not a member, 400 for bad input', async () => {
          const notMember = await t.api('PUT', `${source.path}/members/${matrix.users.nonMember.user.id}`, { body: { access_level: GUEST } })
          assert.equal(notMember.status, 404)
          assert.deepEqual(notMember.body, { message: '404 Member Not Found' })
          const badLevel = await t.api('PUT', `${source.path}/members/${target.user.id}`, { body: { access_level: 99 } })
          assert.deepEqual([badLevel.status, badLevel.body], [400, { message: { access_level: ['is not included in the list'] } }])
          const past = await t.api('PUT', `${source.path}/members/${target.user.id}`, { body: { access_level: GUEST, expires_at: '2001-01-01' } })
          assert.deepEqual([past.status, past.body], [400, { message: { expires_at: ['must be a date in the future'] } }])
          const missing = await t.api('PUT', `${source.path}/members/${target.user.id}`, { body: {} })
          assert.deepEqual([missing.status, missing.body], [400, { error: 'access_level is missing' }])
        })
      })

      describe(`DELETE /${kind}s/:id/members/:user_id`, () => {
        it('removes a member (204)', async () => {
          const user = await makeUser(t)
          await makeMember(t, source, user, DEVELOPER)
          const res = await t.api('DELETE', `${source.path}/members/${user.user.id}`, { token: matrix.tokens.owner })
          assert.equal(res.status, 204)
          assert.equal(res.text, '')
          assert.equal((await membersOf(source)).some((m) => m.user_id === user.user.id), false)
        })

        it('lets only those who manage members remove others', async () => {
          await expectStatuses(matrix, async (token) => {
            const user = await makeUser(t)
            await makeMember(t, source, user, GUEST)
            return t.api('DELETE', `${source.path}/members/${user.user.id}`, { token })
          }, writeStatuses(204))
        })

        it('lets any member leave', async () => {
          const user = await makeUser(t)
          await makeMember(t, source, user, GUEST)
          const res = await t.api('DELETE', `${source.path}/members/${user.user.id}`, { token: user.token })
          assert.equal(res.status, 204)
          assert.equal((await membersOf(source)).some((m) => m.user_id === user.user.id), false)
          const again = await t.api('DELETE', `${source.path}/members/${user.user.id}`, { token: user.token })
          assert.equal(again.status, 404)
        })

        it('is 412 when the membership changed after If-Unmodified-Since', async () => {
          const user = await makeUser(t)
          await makeMember(t, source, user, GUEST)
          const stale = await t.api('DELETE', `${source.path}/members/${user.user.id}`, {
            headers: { 'if-unmodified-since': new Date(Date.now() - 3600_000).toUTCString() },
          })
          assert.deepEqual([stale.status, stale.body], [412, { message: '412 Precondition Failed' }])
          assert.equal((await membersOf(source)).some((m) => m.user_id === user.user.id), true)
          const fresh = await t.api('DELETE', `${source.path}/members/${user.user.id}`, {
            headers: { 'if-unmodified-since': new Date(Date.now() + 1000).toUTCString() },
          })
          assert.equal(fresh.status, 204)
        })

        it('is 404 Member Not Found for a user who is not a member', async () => {
          const res = await t.api('DELETE', `${source.path}/members/${matrix.users.nonMember.user.id}`)
          assert.equal(res.status, 404)
          assert.deepEqual(res.body, { message: '404 Member Not Found' })
        })
      })
    })
  }

  describe('GET /groups/:id/members/all', () => {
    it('includes the members of every ancestor, a user once per group', async () => {
      const top = await makeGroup(t)
      const middle = await makeGroup(t, { parent: top })
      const leaf = await makeGroup(t, { parent: middle })
      const sibling = await makeGroup(t, { parent: top })
      const [a, b, c, d] = [await makeUser(t), await makeUser(t), await makeUser(t), await makeUser(t)]
      await makeMember(t, { type: 'group', id: top.id }, a, OWNER)
      await makeMember(t, { type: 'group', id: middle.id }, b, DEVELOPER)
      await makeMember(t, { type: 'group', id: leaf.id }, c, REPORTER)
      await makeMember(t, { type: 'group', id: leaf.id }, a, GUEST)
      await makeMember(t, { type: 'group', id: sibling.id }, d, MAINTAINER)
      await makeMember(t, { type: 'group', id: middle.id }, d, GUEST, inDays(-1))

      const res = await t.api('GET', `/groups/${leaf.id}/members/all`)
      assert.equal(res.status, 200, res.text)
      const rows = res.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level])
      const root = t.root.user.id // root created the groups, so it owns each of them
      assert.deepEqual(rows, [[root, OWNER], [root, OWNER], [root, OWNER], [a.user.id, OWNER], [b.user.id, DEVELOPER], [c.user.id, REPORTER], [a.user.id, GUEST]])
      assert.deepEqual(res.body[3], memberBody(a, OWNER))

      const filtered = await t.api('GET', `/groups/${leaf.id}/members/all`, { query: { query: a.user.username } })
      assert.deepEqual(filtered.body.map((m: { access_level: number }) => m.access_level), [OWNER, GUEST])
      await expectPaginates({ t, path: `/groups/${leaf.id}/members/all`, token: t.root.token, total: 7 })
      const direct = await t.api('GET', `/groups/${leaf.id}/members`)
      assert.equal(direct.body.length, 3)
    })

    it('answers 401 and 404 as the direct list does', async () => {
      const group = await makeGroup(t)
      const outsider = await makeUser(t)
      assert.equal((await t.api('GET', `/groups/${group.id}/members/all`, { token: null })).status, 401)
      assert.equal((await t.api('GET', `/groups/${group.id}/members/all`, { token: outsider.token })).status, 404)
      const publicGroup = await makeGroup(t, { visibility: 'public' })
      assert.equal((await t.api('GET', `/groups/${publicGroup.id}/members/all`, { token: outsider.token })).status, 200)
    })
  })

  describe('GET /projects/:id/members/all', () => {
    it('includes the group hierarchy and the shared-with groups, capped at the share', async () => {
      const owner = await makeUser(t)
      const parent = await makeGroup(t, {}, owner)
      const group = await makeGroup(t, { parent }, owner)
      const project = await makeProject(t, owner, { namespace: group })
      const sharedParent = await makeGroup(t)
      const shared = await makeGroup(t, { parent: sharedParent })
      const expiredShare = await makeGroup(t)
      const [direct, inGroup, inShared, inSharedParent, inExpired] =
        [await makeUser(t), await makeUser(t), await makeUser(t), await makeUser(t), await makeUser(t)]
      await makeMember(t, { type: 'project', id: project.id }, direct, DEVELOPER)
      await makeMember(t, { type: 'group', id: group.id }, inGroup, MAINTAINER)
      await makeMember(t, { type: 'group', id: group.id }, direct, MAINTAINER)
      await makeMember(t, { type: 'group', id: shared.id }, inShared, GUEST)
      await makeMember(t, { type: 'group', id: sharedParent.id }, inSharedParent, OWNER)
      await makeMember(t, { type: 'group', id: expiredShare.id }, inExpired, OWNER)
      const now = Date.now()
      await t.ctx.db.insertInto('project_group_links').values([
        { project_id: project.id, group_id: shared.id, group_access: REPORTER, expires_at: null, created_at: now },
        { project_id: project.id, group_id: expiredShare.id, group_access: REPORTER, expires_at: inDays(-1), created_at: now },
      ]).execute()

      const res = await t.api('GET', `/projects/${project.id}/members/all`, { token: inShared.token })
      assert.equal(res.status, 200, res.text)
      const rows = res.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level])
      const root = t.root.user.id
      assert.deepEqual(rows, [
        [owner.user.id, OWNER], // parent
        [owner.user.id, OWNER], // group
        [root, REPORTER], // sharedParent's creator, capped
        [root, REPORTER], // shared's creator, capped
        [direct.user.id, DEVELOPER],
        [inGroup.user.id, MAINTAINER],
        [direct.user.id, MAINTAINER],
        [inShared.user.id, GUEST],
        [inSharedParent.user.id, REPORTER],
      ])
      const direct1 = await t.api('GET', `/projects/${project.id}/members`, { token: inShared.token })
      assert.deepEqual(direct1.body.map((m: { id: number }) => m.id), [direct.user.id])
      const stranger = await makeUser(t)
      assert.equal((await t.api('GET', `/projects/${project.id}/members/all`, { token: stranger.token })).status, 404)
    })

    it('lists a personal project’s owner and members', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const res = await t.api('GET', `/projects/${project.id}/members/all`, { token: owner.token })
      assert.deepEqual(res.body, [memberBody(owner, MAINTAINER)])
    })
  })

  describe('memberships nobody may change', () => {
    it('keeps the last Owner of a group from being demoted or removed', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, {}, owner)
      await t.ctx.db.deleteFrom('members').where('source_type', '=', 'group').where('source_id', '=', group.id)
        .where('user_id', '!=', owner.user.id).execute()
      const demote = await t.api('PUT', `/groups/${group.id}/members/${owner.user.id}`, { token: owner.token, body: { access_level: MAINTAINER } })
      assert.equal(demote.status, 403)
      assert.deepEqual(demote.body, { message: '403 Forbidden - The last owner of the group cannot be demoted' })
      const leave = await t.api('DELETE', `/groups/${group.id}/members/${owner.user.id}`, { token: owner.token })
      assert.deepEqual([leave.status, leave.body], [403, { message: '403 Forbidden - The last owner cannot be removed from the group' }])
      const byAdmin = await t.api('DELETE', `/groups/${group.id}/members/${owner.user.id}`)
      assert.equal(byAdmin.status, 403)
      const ending = await t.api('PUT', `/groups/${group.id}/members/${owner.user.id}`, { token: owner.token, body: { access_level: OWNER, expires_at: inDays(5) } })
      assert.deepEqual([ending.status, ending.body], [403, { message: '403 Forbidden - The last owner of the group cannot be given an expiry date' }])
      const stillOwner = await t.api('PUT', `/groups/${group.id}/members/${owner.user.id}`, { token: owner.token, body: { access_level: OWNER } })
      assert.equal(stillOwner.status, 200)

      const second = await makeUser(t)
      await makeMember(t, { type: 'group', id: group.id }, second, OWNER)
      const nowAllowed = await t.api('PUT', `/groups/${group.id}/members/${owner.user.id}`, { token: owner.token, body: { access_level: DEVELOPER } })
      assert.equal(nowAllowed.status, 200)
      const secondLeaves = await t.api('DELETE', `/groups/${group.id}/members/${second.user.id}`, { token: second.token })
      assert.equal(secondLeaves.status, 403)
    })

    it('does not count an expired Owner', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, {}, owner)
      await t.ctx.db.deleteFrom('members').where('source_type', '=', 'group').where('source_id', '=', group.id)
        .where('user_id', '!=', owner.user.id).execute()
      await makeMember(t, { type: 'group', id: group.id }, await makeUser(t), OWNER, inDays(-1))
      const res = await t.api('DELETE', `/groups/${group.id}/members/${owner.user.id}`, { token: owner.token })
      assert.equal(res.status, 403)
    })

    it('keeps the owner of a personal project from being changed or removed', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const demote = await t.api('PUT', `/projects/${project.id}/members/${owner.user.id}`, { body: { access_level: GUEST } })
      assert.deepEqual([demote.status, demote.body], [403, { message: '403 Forbidden - The owner of a personal project cannot be changed or removed' }])
      const leave = await t.api('DELETE', `/projects/${project.id}/members/${owner.user.id}`, { token: owner.token })
      assert.equal(leave.status, 403)
    })
  })

  describe('contribution events of project memberships', () => {
    it('records joined when a member is added and left when one is removed or leaves', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const [removed, leaving] = [await makeUser(t), await makeUser(t)]
      for (const user of [removed, leaving]) {
        const res = await t.api('POST', `/projects/${project.id}/members`, { token: owner.token, body: { user_id: user.user.id, access_level: DEVELOPER } })
        assert.equal(res.status, 201)
      }
      assert.equal((await t.api('DELETE', `/projects/${project.id}/members/${removed.user.id}`, { token: owner.token })).status, 204)
      assert.equal((await t.api('DELETE', `/projects/${project.id}/members/${leaving.user.id}`, { token: leaving.token })).status, 204)
      const events = (await eventsOf(project.id)).map((e) => [e.action, e.author_id, e.target_type])
      assert.deepEqual(events, [
        ['created', owner.user.id, null],
        ['joined', removed.user.id, null],
        ['joined', leaving.user.id, null],
        ['left', removed.user.id, null],
        ['left', leaving.user.id, null],
      ])
    })

    it('records nothing for group memberships or refused changes', async () => {
      const group = await makeGroup(t)
      const user = await makeUser(t)
      const before = await t.ctx.db.selectFrom('events').select('id').execute()
      await t.api('POST', `/groups/${group.id}/members`, { body: { user_id: user.user.id, access_level: DEVELOPER } })
      await t.api('DELETE', `/groups/${group.id}/members/${user.user.id}`)
      const project = await makeProject(t, null)
      await t.api('POST', `/projects/${project.id}/members`, { body: { user_id: user.user.id, access_level: 99 } })
      const after = await t.ctx.db.selectFrom('events').select('id').execute()
      assert.equal(after.length, before.length + 1) // the project's own `created`
    })
  })
})
