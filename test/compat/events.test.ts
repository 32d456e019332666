// @gitbeaker/rest against a real Ingot socket: contribution events of the caller (Events.all), of a
// user (Users.allEvents, Events.all with userId) and of a project (Events.all with projectId), with
// their filters, visibility and page following.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { expectStatus, startCompatServer, type Client, type CompatServer } from './server.js'
import { makeToken, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10)

describe('compat: events', () => {
  let server: CompatServer
  let owner: TestUser
  let asOwner: Client
  let developer: TestUser
  let asDeveloper: Client
  let asStranger: Client
  /** owner's private and public projects, created through gitbeaker; developer joined the private one. */
  let secret: { id: number; path_with_namespace: string }
  let open: { id: number; path_with_namespace: string }

  before(async () => {
    server = await startCompatServer()
    owner = await makeUser(server.t, { username: uniqueName('Owner') })
    asOwner = server.client(owner.token)
    developer = await makeUser(server.t)
    asDeveloper = server.client(developer.token)
    asStranger = server.client((await makeUser(server.t)).token)
    secret = await asOwner.Projects.create({ name: 'Secret Events', visibility: 'private' })
    open = await asOwner.Projects.create({ name: 'Open Events', visibility: 'public' })
    await asOwner.ProjectMembers.add(secret.id, DEVELOPER, { userId: developer.user.id })
  })
  after(async () => { await server.close() })

  describe('Events.all', () => {
    it("lists the caller's own events, newest first, in the original's shape", async () => {
      const events = await asOwner.Events.all()
      assert.deepEqual(events.map((e) => [e.action_name, e.project_id]), [['created', open.id], ['created', secret.id]])
      const [latest] = events
      assert.equal(latest!.author_id, owner.user.id)
      assert.equal(latest!.author_username, owner.user.username)
      assert.deepEqual(latest!.author, {
        id: owner.user.id, name: owner.user.name, username: owner.user.username, state: 'active', avatar_url: null,
        web_url: `${server.url}/${owner.user.username}`,
      })
      assert.equal(latest!.target_type, null)
      assert.match(latest!.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

      const joined = await asDeveloper.Events.all()
      assert.deepEqual(joined.map((e) => [e.action_name, e.project_id, e.author_id]), [['joined', secret.id, developer.user.id]])
    })

    it('filters by action, target type, dates and sort', async () => {
      assert.deepEqual((await asOwner.Events.all({ action: 'created', sort: 'asc' })).map((e) => e.project_id), [secret.id, open.id])
      assert.deepEqual(await asOwner.Events.all({ action: 'joined' }), [])
      assert.deepEqual(await asOwner.Events.all({ targetType: 'issue' }), [])
      assert.equal((await asOwner.Events.all({ after: day(-1), before: day(1) })).length, 2)
      assert.deepEqual(await asOwner.Events.all({ after: day(1) }), [])
      assert.deepEqual(await asOwner.Events.all({ before: day(-1) }), [])
      await expectStatus(asOwner.Events.all({ action: 'exploded' as never }), 400)
    })

    it('follows the pages of the event list', async () => {
      const every = (await asOwner.Events.all()).map((e) => e.project_id)
      assert.deepEqual((await asOwner.Events.all({ perPage: 1 })).map((e) => e.project_id), every)
      const expanded = await asOwner.Events.all({ perPage: 1, maxPages: 1, showExpanded: true })
      assert.deepEqual(expanded.data.map((e) => e.project_id), every.slice(0, 1))
      assert.deepEqual([expanded.paginationInfo.total, expanded.paginationInfo.totalPages], [2, 2])
    })

    it('takes a read_user token and needs a caller', async () => {
      const readUser = await makeToken(server.t, owner.user.id, ['read_user'])
      assert.equal((await server.client(readUser.token).Events.all()).length, 2)
      await expectStatus(server.client(null).Events.all(), 401)
    })
  })

  describe("a user's events", () => {
    it('lists them by id or username, only on projects the caller may see', async () => {
      const all = await asOwner.Users.allEvents(owner.user.id)
      assert.deepEqual(all.map((e) => e.project_id), [open.id, secret.id])
      assert.deepEqual((await asStranger.Users.allEvents(owner.user.id)).map((e) => e.project_id), [open.id])
      assert.deepEqual((await server.client(null).Events.all({ userId: owner.user.username })).map((e) => e.project_id), [open.id])
      assert.deepEqual((await asStranger.Users.allEvents(developer.user.id)), [])
      await expectStatus(asOwner.Users.allEvents(999999), 404)
    })
  })

  describe("a project's events", () => {
    it('lists them by id or path for those who may see the project', async () => {
      const events = await asOwner.Events.all({ projectId: secret.path_with_namespace })
      assert.deepEqual(events.map((e) => [e.action_name, e.author_id]), [['joined', developer.user.id], ['created', owner.user.id]])
      assert.deepEqual((await asDeveloper.Events.all({ projectId: secret.id, action: 'joined' })).map((e) => e.author_id), [developer.user.id])
      assert.deepEqual((await server.client(null).Events.all({ projectId: open.id })).map((e) => e.action_name), ['created'])
      await expectStatus(asStranger.Events.all({ projectId: secret.id }), 404)
    })
  })
})
