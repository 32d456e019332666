// Groups: the lists (GroupsFinder rules, filters, order, statistics, custom attributes), details
// with projects and shared projects, create, update (renames carried to descendants), delete,
// and the admin's project transfer.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { buildTestApp, EXTERNAL_URL, type ApiResponse, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix } from '../shared/permission-matrix.js'
import { DEVELOPER, GUEST, MAINTAINER, OWNER, REPORTER } from '../../src/policies/access-levels.js'
import type { NamespaceRow } from '../../src/db/schema.js'

const GROUP_FIELDS = [
  'avatar_url', 'description', 'file_template_project_id', 'full_name', 'full_path', 'id', 'lfs_enabled', 'name',
  'parent_id', 'path', 'request_access_enabled', 'visibility', 'web_url',
]

const idsOf = (res: ApiResponse): number[] => res.body.map((g: { id: number }) => g.id)

describe('groups API', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const member = (group: NamespaceRow, user: TestUser, level: number, expiresAt: string | null = null) =>
    makeMember(t, { type: 'group', id: group.id }, user, level, expiresAt)
  const share = (projectId: number, groupId: number, groupAccess = DEVELOPER) =>
    t.ctx.db.insertInto('project_group_links')
      .values({ project_id: projectId, group_id: groupId, group_access: groupAccess, expires_at: null, created_at: Date.now() }).execute()
  const setAttribute = (groupId: number, key: string, value: string) =>
    t.ctx.db.insertInto('custom_attributes')
      .values({ subject_type: 'group', subject_id: groupId, key, value, created_at: Date.now(), updated_at: Date.now() }).execute()

  describe('GET /groups', () => {
    it('presents the exact Group fields', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, { name: 'Presented Group', description: 'about it', visibility: 'internal' }, owner)
      const res = await t.api('GET', '/groups', { token: owner.token })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, [{
        id: group.id,
        name: 'Presented Group',
        path: group.path,
        description: 'about it',
        visibility: 'internal',
        lfs_enabled: true,
        avatar_url: null,
        web_url: `${EXTERNAL_URL}/groups/${group.path}`,
        request_access_enabled: false,
        full_name: 'Presented Group',
        full_path: group.path,
        file_template_project_id: null,
        parent_id: null,
      }])
    })

    it('shows anonymous callers public groups only, and ignores owned for them', async () => {
      const marker = uniqueName('anon')
      const open = await makeGroup(t, { path: `${marker}-public`, visibility: 'public' })
      await makeGroup(t, { path: `${marker}-internal`, visibility: 'internal' })
      await makeGroup(t, { path: `${marker}-private`, visibility: 'private' })
      const res = await t.api('GET', '/groups', { token: null, query: { search: marker } })
      assert.equal(res.status, 200)
      assert.deepEqual(idsOf(res), [open.id])
      assert.deepEqual(Object.keys(res.body[0]).sort(), GROUP_FIELDS)
      const owned = await t.api('GET', '/groups', { token: null, query: { search: marker, owned: true } })
      assert.deepEqual(owned.body, [])
    })

    it('lists the groups related by membership by default, and adds open groups with all_available', async () => {
      const marker = uniqueName('rel')
      const user = await makeUser(t)
      const external = await makeUser(t, { external: true })
      const top = await makeGroup(t, { path: `${marker}-a-top` })
      const child = await makeGroup(t, { path: `${marker}-b-child`, parent: top })
      const grandchild = await makeGroup(t, { path: `${marker}-c-grandchild`, parent: child })
      const projectParent = await makeGroup(t, { path: `${marker}-d-project-parent` })
      const projectHome = await makeGroup(t, { path: `${marker}-e-project-home`, parent: projectParent })
      const project = await makeProject(t, null, { namespace: projectHome })
      const openPublic = await makeGroup(t, { path: `${marker}-f-public`, visibility: 'public' })
      const openInternal = await makeGroup(t, { path: `${marker}-g-internal`, visibility: 'internal' })
      const unrelated = await makeGroup(t, { path: `${marker}-h-private` })
      const expired = await makeGroup(t, { path: `${marker}-i-expired` })
      for (const who of [user, external]) {
        await member(child, who, GUEST)
        await member(expired, who, DEVELOPER, '2000-01-01')
        await makeMember(t, { type: 'project', id: project.id }, who, REPORTER)
      }

      const related = [top.id, child.id, grandchild.id, projectParent.id, projectHome.id]
      const byDefault = await t.api('GET', '/groups', { token: user.token, query: { search: marker } })
      assert.deepEqual(idsOf(byDefault), related)
      const explicit = await t.api('GET', '/groups', { token: user.token, query: { search: marker, all_available: false } })
      assert.deepEqual(idsOf(explicit), related)
      const all = await t.api('GET', '/groups', { token: user.token, query: { search: marker, all_available: true } })
      assert.deepEqual(idsOf(all), [...related, openPublic.id, openInternal.id])
      const externalAll = await t.api('GET', '/groups', { token: external.token, query: { search: marker, all_available: true } })
      assert.deepEqual(idsOf(externalAll), [...related, openPublic.id])
      assert.ok(!idsOf(all).includes(unrelated.id) && !idsOf(all).includes(expired.id))
    })

    it('lists every group for admins unless all_available=false', async () => {
      const marker = uniqueName('adm')
      const other = await makeUser(t)
      const mine = await makeGroup(t, { path: `${marker}-a` })
      const theirs = await makeGroup(t, { path: `${marker}-b` }, other)
      const all = await t.api('GET', '/groups', { query: { search: marker } })
      assert.deepEqual(idsOf(all), [mine.id, theirs.id])
      const related = await t.api('GET', '/groups', { query: { search: marker, all_available: false } })
      assert.deepEqual(idsOf(related), [mine.id])
    })

    it('filters by owned and min_access_level before all_available', async () => {
      const marker = uniqueName('lvl')
      const user = await makeUser(t)
      const owned = await makeGroup(t, { path: `${marker}-a-owned` })
      const ownedChild = await makeGroup(t, { path: `${marker}-b-owned-child`, parent: owned })
      const maintained = await makeGroup(t, { path: `${marker}-c-maintained` })
      const maintainedChild = await makeGroup(t, { path: `${marker}-d-maintained-child`, parent: maintained })
      const reported = await makeGroup(t, { path: `${marker}-e-reported` })
      await makeGroup(t, { path: `${marker}-f-public`, visibility: 'public' })
      await member(owned, user, OWNER)
      await member(maintained, user, MAINTAINER)
      await member(reported, user, REPORTER)

      const ownedRes = await t.api('GET', '/groups', { token: user.token, query: { search: marker, owned: true, all_available: true } })
      assert.deepEqual(idsOf(ownedRes), [owned.id])
      const atLeastMaintainer = await t.api('GET', '/groups', {
        token: user.token, query: { search: marker, min_access_level: MAINTAINER, all_available: true },
      })
      assert.deepEqual(idsOf(atLeastMaintainer), [owned.id, ownedChild.id, maintained.id, maintainedChild.id])
      const adminOwned = await t.api('GET', '/groups', { query: { search: marker, owned: true } })
      assert.equal(adminOwned.body.length, 6, 'root created, and so directly owns, all six groups')
    })

    it('filters by skip_groups and search (name or path, any case, wildcards literal)', async () => {
      const marker = uniqueName('srch')
      const owner = await makeUser(t)
      const byName = await makeGroup(t, { path: `${marker}-one`, name: `Alpha ${marker.toUpperCase()}` }, owner)
      const byPath = await makeGroup(t, { path: `${marker}-two`, name: 'Beta' }, owner)
      const wild = await makeGroup(t, { path: `${marker}_x`, name: 'Gamma' }, owner)
      const list = (query: Record<string, string | number | readonly number[]>) => t.api('GET', '/groups', { token: owner.token, query })

      assert.deepEqual(idsOf(await list({ search: marker })), [byName.id, byPath.id, wild.id])
      assert.deepEqual(idsOf(await list({ search: marker.toUpperCase() })), [byName.id, byPath.id, wild.id])
      assert.deepEqual(idsOf(await list({ search: 'ALPHA' })), [byName.id])
      assert.deepEqual(idsOf(await list({ search: `${marker}_` })), [wild.id])
      assert.deepEqual(idsOf(await list({ search: `${marker}%` })), [])
      assert.deepEqual(idsOf(await list({ search: marker, skip_groups: [byName.id, wild.id] })), [byPath.id])
      const single = await t.api('GET', `/groups?search=${marker}&skip_groups=${byPath.id}`, { token: owner.token })
      assert.deepEqual(idsOf(single), [byName.id, wild.id])
    })

    it('searches word by word as the original: every word of three or more characters, or the whole query exactly', async () => {
      const marker = uniqueName('words')
      const owner = await makeUser(t)
      const spread = await makeGroup(t, { path: `${marker}-spread`, name: `Red ${marker} Blue` }, owner)
      const short = await makeGroup(t, { path: `${marker}-xy`, name: 'xy' }, owner)
      const list = (search: string) => t.api('GET', '/groups', { token: owner.token, query: { search } })
      assert.deepEqual(idsOf(await list(`blue ${marker}`)), [spread.id])
      assert.deepEqual(idsOf(await list(`blue ${marker} green`)), [])
      assert.deepEqual(idsOf(await list('XY')), [short.id])
      assert.ok(!idsOf(await list('x')).includes(short.id))
      const namespaces = await t.api('GET', '/namespaces', { token: owner.token, query: { search: `blue ${marker}` } })
      assert.deepEqual(idsOf(namespaces), [spread.id])
    })

    it('orders by name, path or id with sort, ties broken by ascending id', async () => {
      const owner = await makeUser(t)
      const c = await makeGroup(t, { path: uniqueName('p-a'), name: 'same' }, owner)
      const a = await makeGroup(t, { path: uniqueName('p-c'), name: 'first' }, owner)
      const b = await makeGroup(t, { path: uniqueName('p-b'), name: 'same' }, owner)
      const list = async (query: Record<string, string>) => idsOf(await t.api('GET', '/groups', { token: owner.token, query }))
      assert.deepEqual(await list({}), [a.id, c.id, b.id])
      assert.deepEqual(await list({ sort: 'desc' }), [c.id, b.id, a.id])
      assert.deepEqual(await list({ order_by: 'path' }), [c.id, b.id, a.id])
      assert.deepEqual(await list({ order_by: 'id', sort: 'desc' }), [b.id, a.id, c.id])
    })

    it('adds statistics for admins only: the sums of the group projects', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, { path: uniqueName('stats') }, owner)
      const empty = await makeGroup(t, { path: uniqueName('stats-empty') }, owner)
      for (const sizes of [[10, 4, 3, 2], [5, 1, 1, 1]] as const) {
        const project = await makeProject(t, owner, { namespace: group })
        await t.ctx.db.updateTable('project_statistics')
          .set({ storage_size: sizes[0], repository_size: sizes[1], lfs_objects_size: sizes[2], job_artifacts_size: sizes[3] })
          .where('project_id', '=', project.id).execute()
      }
      const admin = await t.api('GET', '/groups', { query: { search: group.path, statistics: true } })
      assert.deepEqual(admin.body[0].statistics, { storage_size: 15, repository_size: 5, lfs_objects_size: 4, job_artifacts_size: 3 })
      const none = await t.api('GET', '/groups', { query: { search: empty.path, statistics: true } })
      assert.deepEqual(none.body[0].statistics, { storage_size: 0, repository_size: 0, lfs_objects_size: 0, job_artifacts_size: 0 })
      const asOwner = await t.api('GET', '/groups', { token: owner.token, query: { search: group.path, statistics: true } })
      assert.equal(asOwner.body[0].statistics, undefined)
      const without = await t.api('GET', '/groups', { query: { search: group.path } })
      assert.equal(without.body[0].statistics, undefined)
    })

    it('shows and filters by custom attributes for admins only', async () => {
      const marker = uniqueName('attr')
      const owner = await makeUser(t)
      const tagged = await makeGroup(t, { path: `${marker}-a` }, owner)
      const plain = await makeGroup(t, { path: `${marker}-b` }, owner)
      await setAttribute(tagged.id, 'team', 'core')
      const filtered = await t.api('GET', `/groups?search=${marker}&custom_attributes[team]=core&with_custom_attributes=true`)
      assert.deepEqual(idsOf(filtered), [tagged.id])
      assert.deepEqual(filtered.body[0].custom_attributes, [{ key: 'team', value: 'core' }])
      const all = await t.api('GET', '/groups', { query: { search: marker, with_custom_attributes: true } })
      assert.deepEqual(all.body.map((g: { custom_attributes: unknown }) => g.custom_attributes), [[{ key: 'team', value: 'core' }], []])
      const asOwner = await t.api('GET', `/groups?search=${marker}&custom_attributes[team]=core&with_custom_attributes=true`, { token: owner.token })
      assert.deepEqual(idsOf(asOwner), [tagged.id, plain.id])
      assert.equal(asOwner.body[0].custom_attributes, undefined)
    })

    it('paginates', async () => {
      const owner = await makeUser(t)
      for (let i = 0; i < 3; i++) await makeGroup(t, {}, owner)
      await expectPaginates({ t, path: '/groups?order_by=id', token: owner.token, total: 3 })
      await expectRejectsBadPagination(t, '/groups', owner.token)
    })

    it('rejects unknown order_by, sort and access levels', async () => {
      const queries: Record<string, string | number | readonly string[]>[] = [
        { order_by: 'created_at' }, { sort: 'up' }, { min_access_level: 15 }, { skip_groups: ['x'] },
      ]
      for (const query of queries) {
        const res = await t.api('GET', '/groups', { query })
        assert.equal(res.status, 400, JSON.stringify(query))
        assert.match(res.body.error, /is invalid$/)
      }
    })
  })

  describe('GET /groups/:id/subgroups', () => {
    it('lists the direct children under the list rules', async () => {
      const owner = await makeUser(t)
      const outsider = await makeUser(t)
      const parent = await makeGroup(t, { visibility: 'public' }, owner)
      const publicChild = await makeGroup(t, { path: 'b-public', visibility: 'public', parent }, owner)
      const privateChild = await makeGroup(t, { path: 'a-private', parent }, owner)
      await makeGroup(t, { visibility: 'public', parent: publicChild }, owner)

      const asOwner = await t.api('GET', `/groups/${parent.id}/subgroups`, { token: owner.token })
      assert.equal(asOwner.status, 200)
      assert.deepEqual(idsOf(asOwner), [privateChild.id, publicChild.id])
      assert.equal(asOwner.body[0].parent_id, parent.id)
      assert.equal(asOwner.body[0].full_path, `${parent.path}/a-private`)
      assert.deepEqual(idsOf(await t.api('GET', `/groups/${parent.id}/subgroups`, { token: null })), [publicChild.id])
      assert.deepEqual(idsOf(await t.api('GET', `/groups/${parent.id}/subgroups`, { token: outsider.token })), [])
      const available = await t.api('GET', `/groups/${parent.id}/subgroups`, { token: outsider.token, query: { all_available: true } })
      assert.deepEqual(idsOf(available), [publicChild.id])
      const searched = await t.api('GET', `/groups/${encodeURIComponent(parent.path)}/subgroups`, { token: owner.token, query: { search: 'PUBLIC' } })
      assert.deepEqual(idsOf(searched), [publicChild.id])
    })

    it('answers 404 for a group the caller cannot see, and paginates', async () => {
      const owner = await makeUser(t)
      const outsider = await makeUser(t)
      const parent = await makeGroup(t, {}, owner)
      for (let i = 0; i < 3; i++) await makeGroup(t, { parent }, owner)
      for (const token of [null, outsider.token]) {
        const res = await t.api('GET', `/groups/${parent.id}/subgroups`, { token })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { message: '404 Group Not Found' })
      }
      await expectPaginates({ t, path: `/groups/${parent.id}/subgroups`, token: owner.token, total: 3 })
    })
  })

  describe('GET /groups/:id', () => {
    it('presents the group with its visible projects and shared projects', async () => {
      const owner = await makeUser(t)
      const outsider = await makeUser(t)
      const group = await makeGroup(t, { visibility: 'public' }, owner)
      const publicProject = await makeProject(t, owner, { namespace: group, visibility: 'public' })
      const privateProject = await makeProject(t, owner, { namespace: group, visibility: 'private' })
      const elsewhere = await makeGroup(t, { visibility: 'public' })
      const sharedPublic = await makeProject(t, null, { namespace: elsewhere, visibility: 'public' })
      const sharedPrivate = await makeProject(t, null, { namespace: elsewhere, visibility: 'private' })
      await share(sharedPublic.id, group.id, REPORTER)
      await share(sharedPrivate.id, group.id)

      const res = await t.api('GET', `/groups/${group.id}`, { token: owner.token })
      assert.equal(res.status, 200)
      assert.deepEqual(Object.keys(res.body).sort(), [...GROUP_FIELDS, 'projects', 'shared_projects'].sort())
      assert.deepEqual(res.body.projects.map((p: { id: number }) => p.id), [privateProject.id, publicProject.id])
      assert.deepEqual(res.body.shared_projects.map((p: { id: number }) => p.id), [sharedPrivate.id, sharedPublic.id])
      const presented = res.body.projects[1]
      assert.equal(presented.path_with_namespace, `${group.path}/${publicProject.path}`)
      assert.deepEqual(presented.namespace, { id: group.id, name: group.name, path: group.path, kind: 'group', full_path: group.path, parent_id: null })
      assert.equal(presented.permissions, undefined, 'the Project form, not ProjectWithAccess')
      assert.deepEqual(res.body.shared_projects[1].shared_with_groups,
        [{ group_id: group.id, group_name: group.name, group_access_level: REPORTER, expires_at: null }])

      const anonymous = await t.api('GET', `/groups/${encodeURIComponent(group.path)}`, { token: null })
      assert.equal(anonymous.status, 200)
      assert.deepEqual(anonymous.body.projects.map((p: { id: number }) => p.id), [publicProject.id])
      assert.deepEqual(anonymous.body.shared_projects.map((p: { id: number }) => p.id), [sharedPublic.id])
      const asOutsider = await t.api('GET', `/groups/${group.id}`, { token: outsider.token })
      assert.deepEqual(asOutsider.body.projects.map((p: { id: number }) => p.id), [publicProject.id])
    })

    it('omits projects with with_projects=false and adds custom attributes for admins', async () => {
      const group = await makeGroup(t)
      await makeProject(t, null, { namespace: group })
      await setAttribute(group.id, 'tier', 'gold')
      const res = await t.api('GET', `/groups/${group.id}`, { query: { with_projects: false, with_custom_attributes: true } })
      assert.equal(res.status, 200)
      assert.deepEqual(Object.keys(res.body).sort(), [...GROUP_FIELDS, 'custom_attributes'].sort())
      assert.deepEqual(res.body.custom_attributes, [{ key: 'tier', value: 'gold' }])
    })

    it('finds nested groups by URL-encoded full path, case-insensitively', async () => {
      const parent = await makeGroup(t)
      const child = await makeGroup(t, { parent, path: 'Nested' })
      const res = await t.api('GET', `/groups/${encodeURIComponent(`${parent.path}/nested`.toUpperCase())}`)
      assert.equal(res.status, 200)
      assert.equal(res.body.id, child.id)
      assert.equal(res.body.full_name, `${parent.name} / Nested`)
      assert.equal(res.body.web_url, `${EXTERNAL_URL}/groups/${parent.path}/Nested`)
    })

    it('hides private groups (404) and reads internal ones for signed-in users', async () => {
      const matrix = await makeMatrix(t, 'private')
      await expectStatuses(matrix, (token) => t.api('GET', `/groups/${matrix.group.id}`, { token }), {
        anonymous: 404, nonMember: 404, external: 404, guest: 200, owner: 200, admin: 200,
      })
      const internal = await makeGroup(t, { visibility: 'internal' })
      await expectStatuses(matrix, (token) => t.api('GET', `/groups/${internal.id}`, { token }), {
        anonymous: 404, nonMember: 200, external: 404, admin: 200,
      })
      const missing = await t.api('GET', '/groups/999999')
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Group Not Found' }])
    })
  })

  describe('POST /groups', () => {
    it('creates a top-level group with its creator as Owner', async () => {
      const user = await makeUser(t)
      const path = uniqueName('created')
      const res = await t.api('POST', '/groups', { token: user.token, body: { name: 'Created Group', path, description: 'new' } })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, {
        id: res.body.id,
        name: 'Created Group',
        path,
        description: 'new',
        visibility: 'private',
        lfs_enabled: true,
        avatar_url: null,
        web_url: `${EXTERNAL_URL}/groups/${path}`,
        request_access_enabled: false,
        full_name: 'Created Group',
        full_path: path,
        file_template_project_id: null,
        parent_id: null,
      })
      const membership = await t.ctx.db.selectFrom('members').selectAll()
        .where('source_type', '=', 'group').where('source_id', '=', res.body.id).execute()
      assert.deepEqual(membership.map((m) => [m.user_id, m.access_level]), [[user.user.id, OWNER]])
    })

    it('takes form parameters and settings', async () => {
      const user = await makeUser(t)
      const path = uniqueName('form')
      const res = await t.api('POST', '/groups', {
        token: user.token, form: `name=Form&path=${path}&visibility=public&lfs_enabled=false&request_access_enabled=true`,
      })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual([res.body.visibility, res.body.lfs_enabled, res.body.request_access_enabled], ['public', false, true])
    })

    it('creates subgroups for owners of the parent and admins', async () => {
      const owner = await makeUser(t)
      const developer = await makeUser(t)
      const outsider = await makeUser(t)
      const parent = await makeGroup(t, { visibility: 'internal' }, owner)
      const hidden = await makeGroup(t)
      await member(parent, developer, DEVELOPER)
      const create = (token: string, parentId: number, path = uniqueName('sub')) =>
        t.api('POST', '/groups', { token, body: { name: path, path, parent_id: parentId } })

      const res = await create(owner.token, parent.id, 'child')
      assert.equal(res.status, 201, res.text)
      assert.deepEqual([res.body.parent_id, res.body.full_path, res.body.full_name, res.body.visibility],
        [parent.id, `${parent.path}/child`, `${parent.name} / child`, 'private'])
      assert.equal((await create(t.root.token, parent.id)).status, 201)
      assert.deepEqual((await create(developer.token, parent.id)).body, { message: '403 Forbidden' })
      assert.equal((await create(outsider.token, parent.id)).status, 403)
      const missing = await create(outsider.token, hidden.id)
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Group Not Found' }])
    })

    it('needs can_create_group for top-level groups and a caller', async () => {
      const user = await makeUser(t, { can_create_group: false })
      const res = await t.api('POST', '/groups', { token: user.token, body: { name: 'x', path: uniqueName('nope') } })
      assert.deepEqual([res.status, res.body], [403, { message: '403 Forbidden' }])
      const anonymous = await t.api('POST', '/groups', { token: null, body: { name: 'x', path: uniqueName('nope') } })
      assert.deepEqual([anonymous.status, anonymous.body], [401, { message: '401 Unauthorized' }])
    })

    it('validates the name, path and visibility', async () => {
      const taken = await makeGroup(t)
      const parent = await makeGroup(t, { visibility: 'internal' })
      const project = await makeProject(t, null, { namespace: parent })
      await makeGroup(t, { parent, name: 'Sibling' })
      const post = (body: Record<string, unknown>) => t.api('POST', '/groups', { body })
      const cases: [Record<string, unknown>, unknown][] = [
        [{ name: 'x', path: taken.path.toUpperCase() }, { message: { path: ['has already been taken'] } }],
        [{ name: 'x', path: 'admin' }, { message: { path: ['admin is a reserved name'] } }],
        [{ name: 'x', path: 'bad.git' }, { message: { path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."] } }],
        [{ name: ' ', path: uniqueName('blank') }, { message: { name: ["can't be blank"] } }],
        [{ name: 'x', path: project.path, parent_id: parent.id }, { message: { path: ['has already been taken'] } }],
        [{ name: 'Sibling', path: uniqueName('sib'), parent_id: parent.id }, { message: { name: ['has already been taken'] } }],
        [{ name: 'x', path: uniqueName('vis'), parent_id: parent.id, visibility: 'public' }, { message: { visibility_level: ['public is not allowed in a internal group.'] } }],
        [{ path: uniqueName('noname') }, { error: 'name is missing' }],
        [{ name: 'x' }, { error: 'path is missing' }],
        [{ name: 'x', path: uniqueName('v'), visibility: 'secret' }, { error: 'visibility is invalid' }],
        [{ name: 'x', path: uniqueName('p'), parent_id: 'abc' }, { error: 'parent_id is invalid' }],
      ]
      for (const [body, expected] of cases) {
        const res = await post(body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(res.body, expected)
      }
    })
  })

  describe('PUT /groups/:id', () => {
    it('updates settings and answers the GroupDetail', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, {}, owner)
      const project = await makeProject(t, owner, { namespace: group })
      const res = await t.api('PUT', `/groups/${group.id}`, {
        token: owner.token,
        body: { description: 'changed', visibility: 'internal', lfs_enabled: false, request_access_enabled: true },
      })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(Object.keys(res.body).sort(), [...GROUP_FIELDS, 'projects', 'shared_projects'].sort())
      assert.deepEqual([res.body.description, res.body.visibility, res.body.lfs_enabled, res.body.request_access_enabled],
        ['changed', 'internal', false, true])
      assert.deepEqual(res.body.projects.map((p: { id: number }) => p.id), [project.id])
      const row = await t.ctx.db.selectFrom('namespaces').selectAll().where('id', '=', group.id).executeTakeFirstOrThrow()
      assert.deepEqual([row.description, row.visibility_level, row.lfs_enabled, row.request_access_enabled], ['changed', 10, 0, 1])
    })

    it('carries a new path and name to every descendant and their projects', async () => {
      const owner = await makeUser(t)
      const top = await makeGroup(t, { name: 'Top' }, owner)
      const child = await makeGroup(t, { name: 'Child', path: 'child', parent: top }, owner)
      const leaf = await makeGroup(t, { name: 'Leaf ✨', path: 'leaf', parent: child }, owner)
      const unrelated = await makeGroup(t, { path: `${top.path}x` }, owner)
      const project = await makeProject(t, owner, { namespace: leaf })
      const newPath = uniqueName('renamed')

      const res = await t.api('PUT', `/groups/${top.id}`, { token: owner.token, body: { path: newPath, name: 'Renamed 🚀' } })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual([res.body.path, res.body.full_path, res.body.name, res.body.full_name], [newPath, newPath, 'Renamed 🚀', 'Renamed 🚀'])
      const rows = await t.ctx.db.selectFrom('namespaces').select(['id', 'full_path', 'full_path_lower', 'full_name'])
        .where('id', 'in', [child.id, leaf.id, unrelated.id]).orderBy('id').execute()
      assert.deepEqual(rows, [
        { id: child.id, full_path: `${newPath}/child`, full_path_lower: `${newPath}/child`.toLowerCase(), full_name: 'Renamed 🚀 / Child' },
        { id: leaf.id, full_path: `${newPath}/child/leaf`, full_path_lower: `${newPath}/child/leaf`.toLowerCase(), full_name: 'Renamed 🚀 / Child / Leaf ✨' },
        { id: unrelated.id, full_path: unrelated.full_path, full_path_lower: unrelated.full_path_lower, full_name: unrelated.full_name },
      ])
      const leafRes = await t.api('GET', `/groups/${encodeURIComponent(`${newPath}/child/leaf`)}`, { token: owner.token })
      assert.equal(leafRes.status, 200)
      assert.equal(leafRes.body.projects[0].path_with_namespace, `${newPath}/child/leaf/${project.path}`)
      assert.equal(leafRes.body.projects[0].name_with_namespace, `Renamed 🚀 / Child / Leaf ✨ / ${project.name}`)
      assert.equal((await t.api('GET', `/groups/${encodeURIComponent(top.path)}`, { token: owner.token })).status, 404)

      const renamedChild = await t.api('PUT', `/groups/${child.id}`, { token: owner.token, body: { path: 'kid' } })
      assert.equal(renamedChild.body.full_path, `${newPath}/kid`)
      const leafRow = await t.ctx.db.selectFrom('namespaces').select('full_path').where('id', '=', leaf.id).executeTakeFirstOrThrow()
      assert.equal(leafRow.full_path, `${newPath}/kid/leaf`)
    })

    it('keeps visibility within the parent and above subgroups and projects', async () => {
      const owner = await makeUser(t)
      const parent = await makeGroup(t, { visibility: 'internal' }, owner)
      const group = await makeGroup(t, { visibility: 'internal', parent }, owner)
      const withSubgroup = await makeGroup(t, { visibility: 'internal' }, owner)
      await makeGroup(t, { visibility: 'internal', parent: withSubgroup }, owner)
      const withProject = await makeGroup(t, { visibility: 'public' }, owner)
      await makeProject(t, owner, { namespace: withProject, visibility: 'internal' })
      const put = (id: number, body: Record<string, unknown>) => t.api('PUT', `/groups/${id}`, { token: owner.token, body })

      const cases: [number, Record<string, unknown>, unknown][] = [
        [group.id, { visibility: 'public' }, { visibility_level: ['public is not allowed in a internal group.'] }],
        [withSubgroup.id, { visibility: 'private' }, { visibility_level: ['private is not allowed since there are sub-groups with higher visibility.'] }],
        [withProject.id, { visibility: 'private' }, { visibility_level: ['private is not allowed since this group contains projects with higher visibility.'] }],
        [group.id, { path: 'bad path' }, { path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."] }],
        [withProject.id, { path: parent.path.toUpperCase(), name: '' }, { name: ["can't be blank"], path: ['has already been taken'] }],
      ]
      for (const [id, body, expected] of cases) {
        const res = await put(id, body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(res.body, { message: expected })
      }
      assert.equal((await put(withProject.id, { visibility: 'internal' })).status, 200)
      const invalid = await put(group.id, { lfs_enabled: 'maybe' })
      assert.deepEqual([invalid.status, invalid.body], [400, { error: 'lfs_enabled is invalid' }])
      const caseOnly = await put(group.id, { path: group.path.toUpperCase() })
      assert.equal(caseOnly.status, 200, caseOnly.text)
    })

    it('is for owners and admins', async () => {
      const matrix = await makeMatrix(t, 'private')
      const groupMaintainer = await makeUser(t)
      await member(matrix.group, groupMaintainer, MAINTAINER)
      await expectStatuses(matrix, (token) => t.api('PUT', `/groups/${matrix.group.id}`, { token, body: { description: 'x' } }), {
        anonymous: 401, nonMember: 404, guest: 403, maintainer: 403, owner: 200, admin: 200,
      })
      const res = await t.api('PUT', `/groups/${matrix.group.id}`, { token: groupMaintainer.token, body: { description: 'y' } })
      assert.deepEqual([res.status, res.body], [403, { message: '403 Forbidden' }])
    })
  })

  describe('DELETE /groups/:id', () => {
    it('deletes the group, its descendants, their projects, repositories, memberships and shares', async () => {
      const owner = await makeUser(t)
      const someone = await makeUser(t)
      const group = await makeGroup(t, {}, owner)
      const child = await makeGroup(t, { parent: group }, owner)
      const project = await makeProject(t, owner, { namespace: child })
      const outside = await makeGroup(t)
      const outsideProject = await makeProject(t, null, { namespace: outside })
      await makeMember(t, { type: 'project', id: project.id }, someone, DEVELOPER)
      await member(child, someone, REPORTER)
      await share(outsideProject.id, child.id)
      await share(project.id, outside.id)
      await setAttribute(child.id, 'k', 'v')
      const repository = t.ctx.repositories.repositoryPath(project.id)
      assert.ok(fs.existsSync(repository))

      const res = await t.api('DELETE', `/groups/${group.id}`, { token: owner.token })
      assert.deepEqual([res.status, res.body], [202, { message: '202 Accepted' }])
      const db = t.ctx.db
      assert.deepEqual(await db.selectFrom('namespaces').select('id').where('id', 'in', [group.id, child.id]).execute(), [])
      assert.deepEqual(await db.selectFrom('projects').select('id').where('id', '=', project.id).execute(), [])
      assert.deepEqual(await db.selectFrom('members').select('id').where((eb) => eb.or([
        eb.and([eb('source_type', '=', 'group'), eb('source_id', 'in', [group.id, child.id])]),
        eb.and([eb('source_type', '=', 'project'), eb('source_id', '=', project.id)]),
      ])).execute(), [])
      assert.deepEqual(await db.selectFrom('project_group_links').select('id')
        .where((eb) => eb.or([eb('group_id', '=', child.id), eb('project_id', '=', project.id)])).execute(), [])
      assert.deepEqual(await db.selectFrom('custom_attributes').select('id').where('subject_type', '=', 'group').where('subject_id', '=', child.id).execute(), [])
      assert.ok(!fs.existsSync(repository))
      assert.ok(await db.selectFrom('projects').select('id').where('id', '=', outsideProject.id).executeTakeFirst())
      assert.equal((await t.api('GET', `/groups/${group.id}`)).status, 404)
    })

    it('is for owners and admins', async () => {
      const matrix = await makeMatrix(t, 'private')
      await expectStatuses(matrix, (token) => t.api('DELETE', `/groups/${matrix.group.id}`, { token }), {
        anonymous: 401, nonMember: 404, developer: 403, maintainer: 403,
      })
      const group = await makeGroup(t)
      assert.equal((await t.api('DELETE', `/groups/${group.id}`)).status, 202)
    })

    it('answers 412 when the group changed after If-Unmodified-Since', async () => {
      const group = await makeGroup(t)
      const res = await t.api('DELETE', `/groups/${group.id}`, { headers: { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' } })
      assert.deepEqual([res.status, res.body], [412, { message: '412 Precondition Failed' }])
      const later = new Date(Date.now() + 60_000).toUTCString()
      assert.equal((await t.api('DELETE', `/groups/${group.id}`, { headers: { 'if-unmodified-since': later } })).status, 202)
    })
  })

  describe('POST /groups/:id/projects/:project_id', () => {
    it('moves a project into the group for admins', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, { visibility: 'internal' })
      const project = await makeProject(t, owner, { visibility: 'internal' })
      const res = await t.api('POST', `/groups/${group.id}/projects/${encodeURIComponent(`${owner.user.username}/${project.path}`)}`)
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.id, project.id)
      assert.equal(res.body.path_with_namespace, `${group.path}/${project.path}`)
      assert.deepEqual(res.body.namespace, { id: group.id, name: group.name, path: group.path, kind: 'group', full_path: group.path, parent_id: null })
      assert.ok('permissions' in res.body)
      assert.equal(res.body.runners_token, project.runners_token)
      const row = await t.ctx.db.selectFrom('projects').select('namespace_id').where('id', '=', project.id).executeTakeFirstOrThrow()
      assert.equal(row.namespace_id, group.id)
    })

    it('refuses clashes and projects more visible than the group', async () => {
      const group = await makeGroup(t, { visibility: 'internal' })
      const inside = await makeProject(t, null, { namespace: group, name: 'Inside', path: 'inside' })
      const samePath = await makeProject(t, null, { path: 'inside' })
      const sameName = await makeProject(t, null, { name: 'Inside', path: uniqueName('other') })
      const subgroupPath = await makeProject(t, null, { path: 'sub' })
      await makeGroup(t, { parent: group, path: 'sub' })
      const open = await makeProject(t, null, { visibility: 'public' })
      const clash = 'Failed to transfer project {:new_namespace=>["Project with same name or path in target namespace already exists"]}'
      const cases: [number, string][] = [
        [samePath.id, clash],
        [sameName.id, clash],
        [subgroupPath.id, clash],
        [inside.id, 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}'],
        [open.id, 'Failed to transfer project {:new_namespace=>["Project visibility public is not allowed in a internal group."]}'],
      ]
      for (const [projectId, message] of cases) {
        const res = await t.api('POST', `/groups/${group.id}/projects/${projectId}`)
        assert.deepEqual([res.status, res.body], [400, { message }])
      }
    })

    it('is for admins only and answers 404 for what does not exist', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, {}, owner)
      const project = await makeProject(t, owner)
      const asOwner = await t.api('POST', `/groups/${group.id}/projects/${project.id}`, { token: owner.token })
      assert.deepEqual([asOwner.status, asOwner.body], [403, { message: '403 Forbidden' }])
      assert.equal((await t.api('POST', `/groups/${group.id}/projects/${project.id}`, { token: null })).status, 401)
      const noGroup = await t.api('POST', `/groups/999999/projects/${project.id}`)
      assert.deepEqual([noGroup.status, noGroup.body], [404, { message: '404 Group Not Found' }])
      const noProject = await t.api('POST', `/groups/${group.id}/projects/999999`)
      assert.deepEqual([noProject.status, noProject.body], [404, { message: '404 Project Not Found' }])
    })
  })
})
