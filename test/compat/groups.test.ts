// @gitbeaker/rest against a real Ingot socket: groups (list with filters and page following,
// subgroups, group projects, details by id and by path, create incl. nested, edit, remove, the
// admin's project transfer), group custom attributes, and namespaces.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { expectStatus, startCompatServer, untypedParams, type Client, type CompatServer } from './server.js'
import { makeGroup, makeMember, makeProject, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'
import type { NamespaceRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER, OWNER } from '../../src/policies/access-levels.js'

const idsOf = (list: readonly { id: number }[]) => list.map((item) => item.id)
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b)

describe('compat: groups and namespaces', () => {
  let server: CompatServer
  let root: Client
  let owner: TestUser
  let asOwner: Client
  let stranger: TestUser
  let asStranger: Client
  /** owner's public group, its internal subgroup and that one's private subgroup. */
  let top: NamespaceRow
  let middle: NamespaceRow
  let bottom: NamespaceRow
  /** owner's private top-level group. */
  let hidden: NamespaceRow

  before(async () => {
    server = await startCompatServer()
    root = server.client()
    owner = await makeUser(server.t)
    asOwner = server.client(owner.token)
    stranger = await makeUser(server.t)
    asStranger = server.client(stranger.token)
    top = await makeGroup(server.t, { path: uniqueName('top'), visibility: 'public' }, owner)
    middle = await makeGroup(server.t, { path: 'middle', visibility: 'internal', parent: top }, owner)
    bottom = await makeGroup(server.t, { path: 'bottom', visibility: 'private', parent: middle }, owner)
    hidden = await makeGroup(server.t, { path: uniqueName('hidden'), visibility: 'private' }, owner)
  })
  after(async () => { await server.close() })

  describe('Groups.create', () => {
    it('creates a top-level group with 201 and a nested one under parentId', async () => {
      const path = uniqueName('made')
      const response = await asOwner.Groups.create('Made Group', path, {
        description: 'from gitbeaker', visibility: 'internal', lfsEnabled: false, requestAccessEnabled: true, showExpanded: true,
      })
      assert.equal(response.status, 201)
      const group = response.data
      assert.equal(group.name, 'Made Group')
      assert.equal(group.path, path)
      assert.equal(group.full_path, path)
      assert.equal(group.description, 'from gitbeaker')
      assert.equal(group.visibility, 'internal')
      assert.equal(group.lfs_enabled, false)
      assert.equal(group.request_access_enabled, true)
      assert.equal(group.parent_id, null)
      assert.equal(group.web_url, `${server.url}/groups/${path}`)

      const child = await asOwner.Groups.create('Child', 'child', { parentId: group.id })
      assert.equal(child.parent_id, group.id)
      assert.equal(child.full_path, `${path}/child`)
      assert.equal(child.full_name, 'Made Group / Child')
      const [creator] = await asOwner.GroupMembers.all(child.id)
      assert.deepEqual([creator!.id, creator!.access_level], [owner.user.id, OWNER])
    })

    it('answers 400 for a bad or taken path and 403 without the right to create', async () => {
      await expectStatus(asOwner.Groups.create('Bad', 'bad path!'), 400)
      assert.equal(await expectStatus(asOwner.Groups.create('Taken', top.path), 400), '{"path":["has already been taken"]}')
      await expectStatus(asStranger.Groups.create('Sub', 'sub', { parentId: top.id }), 403)
      await expectStatus(asStranger.Groups.create('Sub', 'sub', { parentId: hidden.id }), 404)
      const limited = await makeUser(server.t, { can_create_group: false })
      await expectStatus(server.client(limited.token).Groups.create('No', uniqueName('no')), 403)
      await expectStatus(server.client(null).Groups.create('Anon', uniqueName('anon')), 401)
    })
  })

  describe('Groups.all', () => {
    it('lists what the caller may see', async () => {
      const mine = idsOf(await asOwner.Groups.all())
      for (const group of [top, middle, bottom, hidden]) assert.ok(mine.includes(group.id))
      const others = idsOf(await asStranger.Groups.all({ allAvailable: true }))
      assert.ok(others.includes(top.id) && others.includes(middle.id))
      assert.ok(!others.includes(bottom.id) && !others.includes(hidden.id))
      const anonymous = idsOf(await server.client(null).Groups.all())
      assert.ok(anonymous.includes(top.id) && !anonymous.includes(middle.id))
    })

    it('filters by search, owned, min access level and skipGroups, and orders', async () => {
      assert.deepEqual(idsOf(await asOwner.Groups.all({ search: hidden.path })), [hidden.id])
      const member = await makeUser(server.t)
      await makeMember(server.t, { type: 'group', id: hidden.id }, member, DEVELOPER)
      await makeMember(server.t, { type: 'group', id: top.id }, member, MAINTAINER)
      const asMember = server.client(member.token)
      assert.deepEqual(await asMember.Groups.all({ owned: true }), [])
      assert.ok(idsOf(await asMember.Groups.all({ minAccessLevel: MAINTAINER })).includes(top.id))
      assert.ok(!idsOf(await asMember.Groups.all({ minAccessLevel: MAINTAINER })).includes(hidden.id))
      assert.ok(idsOf(await asMember.Groups.all({ minAccessLevel: DEVELOPER })).includes(hidden.id))
      assert.ok(!idsOf(await asOwner.Groups.all({ skipGroups: [top.id, hidden.id] })).includes(top.id))

      const byIdDesc = idsOf(await asOwner.Groups.all({ orderBy: 'id', sort: 'desc' }))
      assert.deepEqual(byIdDesc, sorted(byIdDesc).reverse())
      const byPath = (await asOwner.Groups.all({ orderBy: 'path', sort: 'asc' })).map((g) => g.path)
      assert.deepEqual(byPath, [...byPath].sort())
    })

    it('shows statistics and custom attributes to administrators, and filters by custom attributes', async () => {
      const [withStatistics] = await root.Groups.all({ search: hidden.path, statistics: true })
      assert.deepEqual(Object.keys(withStatistics!.statistics as object).sort(),
        ['job_artifacts_size', 'lfs_objects_size', 'repository_size', 'storage_size'])
      await root.GroupCustomAttributes.set(hidden.id, 'tier', 'gold')
      const tagged = await root.Groups.all({ withCustomAttributes: true, ...untypedParams({ customAttributes: { tier: 'gold' } }) })
      assert.deepEqual(idsOf(tagged), [hidden.id])
      assert.deepEqual(tagged[0]!.custom_attributes, [{ key: 'tier', value: 'gold' }])
    })

    it('follows the pages of the group list', async () => {
      const every = idsOf(await root.Groups.all({ orderBy: 'id', sort: 'asc' }))
      assert.ok(every.length >= 4)
      assert.deepEqual(idsOf(await root.Groups.all({ orderBy: 'id', sort: 'asc', perPage: 1 })), every)
      const firstTwo = await root.Groups.all<true, 'offset'>({ orderBy: 'id', sort: 'asc', perPage: 1, maxPages: 2, showExpanded: true })
      assert.deepEqual(idsOf(firstTwo.data), every.slice(0, 2))
      assert.equal(firstTwo.paginationInfo.total, every.length)
    })
  })

  describe('Groups.allSubgroups', () => {
    it('lists the direct subgroups the caller may see', async () => {
      assert.deepEqual(idsOf(await asOwner.Groups.allSubgroups(top.id)), [middle.id])
      assert.deepEqual(idsOf(await asOwner.Groups.allSubgroups(`${top.path}/middle`)), [bottom.id])
      assert.deepEqual(await asStranger.Groups.allSubgroups(middle.id), [])
      await expectStatus(asStranger.Groups.allSubgroups(hidden.id), 404)
    })
  })

  describe('Groups.allProjects', () => {
    it('lists the group projects, unarchived ones unless asked, with filters and the simple form', async () => {
      const group = await makeGroup(server.t, { visibility: 'public' }, owner)
      const open = await makeProject(server.t, owner, { namespace: group, path: 'open-one', visibility: 'public' })
      const closed = await makeProject(server.t, owner, { namespace: group, path: 'closed-one', visibility: 'private' })
      await asOwner.Projects.archive(closed.id)

      const listed = await asOwner.Groups.allProjects(group.id)
      assert.deepEqual(idsOf(listed), [open.id])
      assert.equal(listed[0]!.path_with_namespace, `${group.full_path}/open-one`)
      assert.equal(listed[0]!.namespace.id, group.id)
      assert.deepEqual(idsOf(await asOwner.Groups.allProjects(group.id, { archived: true })), [closed.id])
      assert.deepEqual(idsOf(await asOwner.Groups.allProjects(group.full_path, { search: 'open' })), [open.id])
      assert.deepEqual(idsOf(await asStranger.Groups.allProjects(group.id, { archived: true })), [])
      const simple = await asOwner.Groups.allProjects(group.id, { simple: true })
      assert.equal('namespace' in simple[0]!, false)
      await expectStatus(asStranger.Groups.allProjects(hidden.id), 404)
    })
  })

  describe('Groups.show', () => {
    it('shows a group by id and by full path, with its projects unless withProjects is false', async () => {
      const project = await makeProject(server.t, owner, { namespace: bottom, path: 'deep' })
      const byPath = await asOwner.Groups.show(bottom.full_path)
      assert.equal(byPath.id, bottom.id)
      assert.equal(byPath.full_path, `${top.path}/middle/bottom`)
      assert.equal(byPath.parent_id, middle.id)
      assert.deepEqual(idsOf(byPath.projects as { id: number }[]), [project.id])
      assert.deepEqual(byPath.shared_projects, [])
      const byId = await asOwner.Groups.show(bottom.id, untypedParams({ withProjects: false }))
      assert.equal(byId.full_name, byPath.full_name)
      assert.equal('projects' in byId, false)

      assert.equal((await server.client(null).Groups.show(top.id)).visibility, 'public')
      await expectStatus(asStranger.Groups.show(bottom.full_path), 404)
      await expectStatus(server.client(null).Groups.show(middle.id), 404)
    })
  })

  describe('Groups.edit and remove', () => {
    it('edits a group for its owner and moves its path', async () => {
      const group = await makeGroup(server.t, { visibility: 'private' }, owner)
      const newPath = uniqueName('moved')
      const edited = await asOwner.Groups.edit(group.id, { name: 'Edited', path: newPath, description: 'new words', visibility: 'internal' })
      assert.deepEqual([edited.name, edited.path, edited.full_path, edited.description, edited.visibility],
        ['Edited', newPath, newPath, 'new words', 'internal'])
      assert.equal((await asOwner.Groups.show(newPath)).id, group.id)

      await expectStatus(asStranger.Groups.edit(group.id, { description: 'no' }), 403)
      await expectStatus(asStranger.Groups.edit(hidden.id, { description: 'no' }), 404)
    })

    it('removes a group with 202 for its owner', async () => {
      const group = await makeGroup(server.t, { visibility: 'public' }, owner)
      await expectStatus(asStranger.Groups.remove(group.id), 403)
      assert.deepEqual(await asOwner.Groups.remove(group.id), { message: '202 Accepted' })
      await expectStatus(asOwner.Groups.show(group.id), 404)
      await expectStatus(root.Groups.remove(999999), 404)
    })
  })

  describe('Groups.transferProject', () => {
    it('lets administrators move a project into a group', async () => {
      const project = await makeProject(server.t, owner, { path: uniqueName('moving') })
      const response = await root.Groups.transferProject(top.id, project.id, { showExpanded: true })
      assert.equal(response.status, 201)
      const moved = response.data as unknown as { id: number; path_with_namespace: string; namespace: { id: number } }
      assert.equal(moved.id, project.id)
      assert.equal(moved.path_with_namespace, `${top.path}/${project.path}`)
      assert.equal(moved.namespace.id, top.id)
      assert.equal((await asOwner.Projects.show(`${top.path}/${project.path}`)).id, project.id)

      await expectStatus(asOwner.Groups.transferProject(hidden.id, project.id), 403)
      await expectStatus(root.Groups.transferProject(top.id, 999999), 404)
    })
  })

  describe('GroupCustomAttributes', () => {
    it('sets, lists, shows and removes attributes by id or path, for administrators only', async () => {
      assert.deepEqual(await root.GroupCustomAttributes.set(top.full_path, 'region', 'eu'), { key: 'region', value: 'eu' })
      assert.deepEqual(await root.GroupCustomAttributes.all(top.id), [{ key: 'region', value: 'eu' }])
      assert.deepEqual(await root.GroupCustomAttributes.show(top.id, 'region'), { key: 'region', value: 'eu' })
      await expectStatus(asOwner.GroupCustomAttributes.all(top.id), 403)
      assert.equal(await root.GroupCustomAttributes.remove(top.id, 'region'), null)
      await expectStatus(root.GroupCustomAttributes.show(top.id, 'region'), 404)
    })
  })

  describe('Namespaces', () => {
    it('lists the caller\'s own namespace and groups, everything for administrators', async () => {
      const mine = await asOwner.Namespaces.all()
      const paths = mine.map((n) => n.full_path)
      assert.ok(paths.includes(owner.user.username) && paths.includes(top.full_path) && paths.includes(bottom.full_path))
      assert.ok(!paths.includes(stranger.user.username) && !paths.includes('root'))
      const own = mine.find((n) => n.full_path === owner.user.username)!
      assert.deepEqual([own.kind, own.parent_id], ['user', null])
      const group = mine.find((n) => n.id === middle.id)!
      assert.deepEqual([group.kind, group.path, group.parent_id], ['group', 'middle', top.id])

      assert.deepEqual((await asStranger.Namespaces.all()).map((n) => n.full_path), [stranger.user.username])
      assert.ok((await root.Namespaces.all({ perPage: 2 })).map((n) => n.full_path).includes(stranger.user.username))
      assert.deepEqual((await asOwner.Namespaces.all(untypedParams({ search: 'bottom' }))).map((n) => n.id), [bottom.id])
    })

    it('shows a namespace by id or path, 404 for others\'', async () => {
      assert.equal((await asOwner.Namespaces.show(top.id)).full_path, top.full_path)
      assert.equal((await asOwner.Namespaces.show(owner.user.username)).kind, 'user')
      await expectStatus(asStranger.Namespaces.show(hidden.id), 404)
      await expectStatus(asStranger.Namespaces.show(owner.user.username), 404)
      await expectStatus(server.client(null).Namespaces.show(top.id), 401)
    })
  })
})
