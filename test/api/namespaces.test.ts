// Namespaces: who sees which namespaces, search, lookup by id or path, and the members count shown
// to the administrators of a group.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { DEVELOPER, GUEST, OWNER, REPORTER } from '../../src/policies/access-levels.js'
import type { NamespaceRow } from '../../src/db/schema.js'

const NAMESPACE_FIELDS = ['full_path', 'id', 'kind', 'name', 'parent_id', 'path']

describe('namespaces API', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const member = (group: NamespaceRow, user: TestUser, level: number, expiresAt: string | null = null) =>
    makeMember(t, { type: 'group', id: group.id }, user, level, expiresAt)
  const personalNamespace = (user: TestUser) => t.ctx.db.selectFrom('namespaces').selectAll()
    .where('kind', '=', 'user').where('owner_id', '=', user.user.id).executeTakeFirstOrThrow()

  describe('GET /namespaces', () => {
    it("lists the caller's own namespace and the groups they are a direct member of", async () => {
      const user = await makeUser(t)
      const own = await personalNamespace(user)
      const owned = await makeGroup(t, {}, user)
      const ownedChild = await makeGroup(t, { parent: owned }, user)
      const developerOf = await makeGroup(t)
      const inherited = await makeGroup(t, { parent: developerOf })
      await makeGroup(t)
      const expired = await makeGroup(t)
      await member(developerOf, user, DEVELOPER)
      await member(expired, user, DEVELOPER, '2000-01-01')
      const colleague = await makeUser(t)
      const another = await makeUser(t)
      await member(owned, colleague, REPORTER)
      await member(ownedChild, colleague, GUEST)
      await member(ownedChild, another, GUEST)

      const res = await t.api('GET', '/namespaces', { token: user.token })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, [
        { id: own.id, name: user.user.username, path: user.user.username, kind: 'user', full_path: user.user.username, parent_id: null },
        { id: owned.id, name: owned.name, path: owned.path, kind: 'group', full_path: owned.path, parent_id: null, members_count_with_descendants: 3 },
        { id: ownedChild.id, name: ownedChild.name, path: ownedChild.path, kind: 'group', full_path: ownedChild.full_path, parent_id: owned.id, members_count_with_descendants: 3 },
        { id: developerOf.id, name: developerOf.name, path: developerOf.path, kind: 'group', full_path: developerOf.path, parent_id: null },
      ])
      assert.ok(!res.body.some((n: { id: number }) => n.id === inherited.id))
    })

    it('lists every namespace for admins, with the members count of every group', async () => {
      const total = await t.ctx.db.selectFrom('namespaces').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()
      const res = await t.api('GET', '/namespaces', { query: { per_page: 100 } })
      assert.equal(res.status, 200)
      assert.equal(res.headers['x-total'], String(total.count))
      for (const namespace of res.body) {
        assert.equal('members_count_with_descendants' in namespace, namespace.kind === 'group', JSON.stringify(namespace))
      }
      assert.deepEqual(Object.keys(res.body[0]).sort(), NAMESPACE_FIELDS)
    })

    it('searches name or path, ignoring case', async () => {
      const marker = uniqueName('ns')
      const user = await makeUser(t, { username: `${marker}user` })
      const byPath = await makeGroup(t, { path: `${marker}-group`, name: 'Plain' }, user)
      const byName = await makeGroup(t, { path: uniqueName('other'), name: `Named ${marker.toUpperCase()}` }, user)
      await makeGroup(t, { path: uniqueName('unmatched') }, user)
      const res = await t.api('GET', '/namespaces', { token: user.token, query: { search: marker } })
      assert.deepEqual(res.body.map((n: { id: number }) => n.id), [(await personalNamespace(user)).id, byPath.id, byName.id])
      const adminRes = await t.api('GET', '/namespaces', { query: { search: `${marker}-GROUP` } })
      assert.deepEqual(adminRes.body.map((n: { id: number }) => n.id), [byPath.id])
    })

    it('needs a caller and paginates', async () => {
      const res = await t.api('GET', '/namespaces', { token: null })
      assert.deepEqual([res.status, res.body], [401, { message: '401 Unauthorized' }])
      const user = await makeUser(t)
      await makeGroup(t, {}, user)
      await makeGroup(t, {}, user)
      await expectPaginates({ t, path: '/namespaces', token: user.token, total: 3 })
      await expectRejectsBadPagination(t, '/namespaces', user.token)
    })
  })

  describe('GET /namespaces/:id', () => {
    it('finds a namespace of the caller by id or URL-encoded full path', async () => {
      const user = await makeUser(t)
      const own = await personalNamespace(user)
      const parent = await makeGroup(t)
      const child = await makeGroup(t, { parent, path: 'Child' })
      await member(child, user, OWNER)

      const byId = await t.api('GET', `/namespaces/${own.id}`, { token: user.token })
      assert.equal(byId.status, 200)
      assert.deepEqual(byId.body, { id: own.id, name: user.user.username, path: user.user.username, kind: 'user', full_path: user.user.username, parent_id: null })
      const byPath = await t.api('GET', `/namespaces/${encodeURIComponent(`${parent.path}/child`)}`, { token: user.token })
      assert.equal(byPath.status, 200)
      assert.deepEqual(byPath.body, {
        id: child.id, name: 'Child', path: 'Child', kind: 'group', full_path: `${parent.path}/Child`, parent_id: parent.id,
        members_count_with_descendants: 2,
      })
      const byUsername = await t.api('GET', `/namespaces/${user.user.username.toUpperCase()}`, { token: user.token })
      assert.equal(byUsername.body.id, own.id)
    })

    it('answers 404 for namespaces that are missing or not the caller’s, and 401 without a caller', async () => {
      const user = await makeUser(t)
      const other = await makeUser(t)
      const group = await makeGroup(t, { visibility: 'public' })
      for (const id of [String((await personalNamespace(other)).id), group.path, '999999', 'no-such-path']) {
        const res = await t.api('GET', `/namespaces/${id}`, { token: user.token })
        assert.deepEqual([res.status, res.body], [404, { message: '404 Namespace Not Found' }], id)
      }
      const admin = await t.api('GET', `/namespaces/${group.id}`)
      assert.deepEqual([admin.status, admin.body.members_count_with_descendants], [200, 1])
      const anonymous = await t.api('GET', `/namespaces/${group.id}`, { token: null })
      assert.equal(anonymous.status, 401)
    })
  })
})
