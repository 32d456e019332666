// @gitbeaker/rest against a real Ingot socket: ProjectMembers and GroupMembers (direct and inherited
// lists with page following, show, add, edit, remove), the same checks for both kinds of source.
// Not covered: show with includeInherited (GET …/members/all/:user_id came after 11.5).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { expectStatus, startCompatServer, untypedParams, type Client, type CompatServer } from './server.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import type { NamespaceRow } from '../../src/db/schema.js'
import { DEVELOPER, GUEST, MAINTAINER, OWNER, REPORTER } from '../../src/policies/access-levels.js'

const MEMBER_FIELDS = ['access_level', 'avatar_url', 'expires_at', 'id', 'name', 'state', 'username', 'web_url']

const idsOf = (list: readonly { id: number }[]) => list.map((item) => item.id)

describe('compat: members', () => {
  let server: CompatServer
  let owner: TestUser
  let reporter: TestUser
  let stranger: TestUser
  /** owner's private group, where reporter is a Reporter; the sources below inherit from it. */
  let parent: NamespaceRow

  before(async () => {
    server = await startCompatServer()
    owner = await makeUser(server.t)
    reporter = await makeUser(server.t)
    stranger = await makeUser(server.t)
    parent = await makeGroup(server.t, { visibility: 'private' }, owner)
    await makeMember(server.t, { type: 'group', id: parent.id }, reporter, REPORTER)
  })
  after(async () => { await server.close() })

  const kinds = [
    {
      name: 'ProjectMembers',
      members: (client: Client) => client.ProjectMembers,
      /** A fresh source in the parent group, owned by owner through it; its id and path. */
      async makeSource() {
        const project = await makeProject(server.t, owner, { namespace: parent })
        return { id: project.id, path: `${parent.full_path}/${project.path}` }
      },
    },
    {
      name: 'GroupMembers',
      members: (client: Client) => client.GroupMembers,
      async makeSource() {
        const group = await makeGroup(server.t, { visibility: 'private', parent }, owner)
        return { id: group.id, path: group.full_path }
      },
    },
  ] as const

  for (const kind of kinds) {
    describe(kind.name, () => {
      it('adds with 201, shows, edits and removes with 204', async () => {
        const source = await kind.makeSource()
        const members = kind.members(server.client(owner.token))
        const developer = await makeUser(server.t)

        const response = await members.add(source.path, DEVELOPER, { userId: developer.user.id, expiresAt: '2099-03-01', showExpanded: true })
        assert.equal(response.status, 201)
        assert.deepEqual(Object.keys(response.data).sort(), MEMBER_FIELDS)
        assert.equal(response.data.id, developer.user.id)
        assert.equal(response.data.username, developer.user.username)
        assert.equal(response.data.access_level, DEVELOPER)
        assert.equal(response.data.expires_at, '2099-03-01')
        assert.equal(response.data.web_url, `${server.url}/${developer.user.username}`)

        assert.equal((await members.show(source.id, developer.user.id)).access_level, DEVELOPER)
        const edited = await members.edit(source.id, developer.user.id, MAINTAINER, { expiresAt: '2099-12-31' })
        assert.deepEqual([edited.access_level, edited.expires_at], [MAINTAINER, '2099-12-31'])
        const cleared = await members.edit(source.id, developer.user.id, MAINTAINER, untypedParams({ expiresAt: '' }))
        assert.equal(cleared.expires_at, null)

        const removed = await members.remove(source.id, developer.user.id, { showExpanded: true })
        assert.deepEqual([removed.status, removed.data], [204, null])
        await expectStatus(members.show(source.id, developer.user.id), 404)
        await expectStatus(members.remove(source.id, developer.user.id), 404)
      })

      it('lists direct members, and inherited ones with includeInherited', async () => {
        const source = await kind.makeSource()
        const members = kind.members(server.client(owner.token))
        const guest = await makeUser(server.t)
        await members.add(source.id, GUEST, { userId: guest.user.id })

        const direct = await members.all(source.id)
        assert.ok(idsOf(direct).includes(guest.user.id))
        assert.ok(!idsOf(direct).includes(reporter.user.id))
        const all = await members.all(source.id, { includeInherited: true })
        assert.equal(all.find((m) => m.id === reporter.user.id)?.access_level, REPORTER)
        assert.ok(all.some((m) => m.id === owner.user.id && m.access_level === OWNER))
        assert.equal(all.find((m) => m.id === guest.user.id)?.access_level, GUEST)
        assert.deepEqual(idsOf(await members.all(source.id, { query: guest.user.username })), [guest.user.id])
        // Read by a member who may not manage members.
        assert.ok(idsOf(await kind.members(server.client(reporter.token)).all(source.id, { includeInherited: true })).includes(guest.user.id))
      })

      it('follows the pages of the member list', async () => {
        const source = await kind.makeSource()
        const members = kind.members(server.client(owner.token))
        for (let i = 0; i < 3; i += 1) await members.add(source.id, REPORTER, { userId: (await makeUser(server.t)).user.id })
        const every = idsOf(await members.all(source.id))
        assert.ok(every.length >= 3)
        assert.deepEqual(idsOf(await members.all(source.id, { perPage: 1 })), every)
        const expanded = await members.all(source.id, { perPage: 2, maxPages: 1, showExpanded: true })
        assert.deepEqual(idsOf(expanded.data), every.slice(0, 2))
        assert.equal(expanded.paginationInfo.total, every.length)
        assert.equal(expanded.paginationInfo.next, 2)
      })

      it('answers 409, 400, 403 and 404 as the original', async () => {
        const source = await kind.makeSource()
        const members = kind.members(server.client(owner.token))
        const developer = await makeUser(server.t)
        await members.add(source.id, DEVELOPER, { userId: developer.user.id })

        assert.equal(await expectStatus(members.add(source.id, DEVELOPER, { userId: developer.user.id }), 409), 'Member already exists')
        const other = await makeUser(server.t)
        assert.equal(await expectStatus(members.add(source.id, 77 as never, { userId: other.user.id }), 400),
          '{"access_level":["is not included in the list"]}')
        await expectStatus(members.add(source.id, DEVELOPER, { userId: 999999 }), 404)
        await expectStatus(members.edit(source.id, other.user.id, DEVELOPER), 404)

        const asDeveloper = kind.members(server.client(developer.token))
        await expectStatus(asDeveloper.add(source.id, GUEST, { userId: other.user.id }), 403)
        await expectStatus(asDeveloper.edit(source.id, developer.user.id, OWNER), 403)
        const asStranger = kind.members(server.client(stranger.token))
        await expectStatus(asStranger.all(source.id), 404)
        await expectStatus(asStranger.add(source.id, GUEST, { userId: stranger.user.id }), 404)
        await expectStatus(kind.members(server.client(null)).all(source.id), 401)

        // Any member may leave.
        assert.equal(await asDeveloper.remove(source.id, developer.user.id), null)
        await expectStatus(members.show(source.id, developer.user.id), 404)
      })
    })
  }
})
