// The project lists: GET /projects, GET /users/:user_id/projects and GET /groups/:id/projects —
// who sees what (a private project never shows up, nor counts, for a non-member), the forms, every
// filter, order and pagination.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import {
  FULL_FIELDS, SIMPLE_FIELDS, fields, idsOf, keysOf, setProjectAttribute, setProjectColumns, shareWith, sorted, sortedIds,
} from '../helpers/projects.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.js'

describe('GET /projects', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  let external: TestUser
  let g1: NamespaceRow
  const p: Record<string, ProjectRow> = {}

  // alice: own aPub/aInt/aPriv; Owner of g1 (g1Priv); Reporter on bPriv through a share with g1;
  // Developer of cPriv. bob: bPub (no issues, no merge requests), bPriv; Maintainer of g2 (g2Int,
  // archived). dave: dPub ("Needle" in its description) and dPriv, which nobody else may see.
  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t)
    bob = await makeUser(t)
    const carol = await makeUser(t)
    const dave = await makeUser(t)
    external = await makeUser(t, { external: true })
    g1 = await makeGroup(t, { visibility: 'private' }, alice)
    const g2 = await makeGroup(t, { visibility: 'internal' }, bob)
    p.aPub = await makeProject(t, alice, { name: 'Alpha Public', path: 'alpha-public', visibility: 'public', description: 'first' })
    p.aInt = await makeProject(t, alice, { name: 'Bravo Internal', path: 'bravo-internal', visibility: 'internal', description: 'ok' })
    p.aPriv = await makeProject(t, alice, { name: 'Charlie Private', path: 'charlie-private', visibility: 'private' })
    p.g1Priv = await makeProject(t, alice, { name: 'Delta Group', path: 'delta-group', namespace: g1, visibility: 'private' })
    p.g2Int = await makeProject(t, bob, { name: 'Echo Archived', path: 'echo-archived', namespace: g2, visibility: 'internal' })
    p.bPub = await makeProject(t, bob, { name: 'Foxtrot Bare', path: 'foxtrot-bare', visibility: 'public' })
    p.bPriv = await makeProject(t, bob, { name: 'Golf Shared', path: 'golf-shared', visibility: 'private' })
    p.cPriv = await makeProject(t, carol, { name: 'Hotel Member', path: 'hotel-member', visibility: 'private' })
    p.dPriv = await makeProject(t, dave, { name: 'India Hidden', path: 'india-hidden', visibility: 'private' })
    p.dPub = await makeProject(t, dave, { name: 'Juliett Public', path: 'juliett-public', visibility: 'public', description: 'A Needle_in 100% hay' })
    await setProjectColumns(t, p.g2Int!.id, { archived: 1 })
    await setProjectColumns(t, p.bPub!.id, { issues_enabled: 0, merge_requests_enabled: 0 })
    await shareWith(t, p.bPriv!.id, g1.id, REPORTER)
    await makeMember(t, { type: 'project', id: p.cPriv!.id }, alice, DEVELOPER)
    for (const project of [p.bPub!, p.dPub!]) assert.equal((await t.api('POST', `/projects/${project.id}/star`, { token: alice.token })).status, 201)
    await setProjectAttribute(t, p.aPriv!.id, 'tier', 'gold')
    await setProjectAttribute(t, p.dPriv!.id, 'tier', 'silver')
  })
  after(async () => { await t.close() })

  const ids = (...names: string[]) => sorted(names.map((name) => p[name]!.id))
  const list = (token: string | null, query: Record<string, string | number | boolean> = {}) =>
    t.api('GET', '/projects', { token, query: { per_page: 100, ...query } })
  const ALICE_SEES = ['aPub', 'aInt', 'aPriv', 'g1Priv', 'g2Int', 'bPub', 'bPriv', 'cPriv', 'dPub']

  it('shows anonymous callers public projects in the simple form', async () => {
    const res = await list(null)
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-type'], 'application/json')
    assert.deepEqual(sortedIds(res), ids('aPub', 'bPub', 'dPub'))
    assert.equal(res.headers['x-total'], '3')
    for (const project of res.body) assert.deepEqual(keysOf(project), SIMPLE_FIELDS)
    const withFullAsked = await list(null, { simple: false })
    assert.deepEqual(keysOf(withFullAsked.body[0]), SIMPLE_FIELDS)
  })

  it('shows a signed-in user every project visible to them, never a private one of others', async () => {
    const res = await list(alice.token)
    assert.equal(res.status, 200)
    assert.deepEqual(sortedIds(res), ids(...ALICE_SEES))
    assert.equal(res.headers['x-total'], String(ALICE_SEES.length))
    assert.ok(!idsOf(res).includes(p.dPriv!.id))
    const bobs = await list(bob.token)
    assert.deepEqual(sortedIds(bobs), ids('aPub', 'aInt', 'g2Int', 'bPub', 'bPriv', 'dPub'))
    const externals = await list(external.token)
    assert.deepEqual(sortedIds(externals), ids('aPub', 'bPub', 'dPub'))
    const admins = await list(t.root.token)
    assert.deepEqual(sortedIds(admins), sorted(Object.values(p).map((project) => project.id)))
  })

  it('presents the full form with permissions to signed-in callers, the simple one on request', async () => {
    const res = await list(alice.token)
    const byId = new Map(res.body.map((project: { id: number }) => [project.id, project]))
    const own = byId.get(p.aPub!.id) as Record<string, unknown>
    assert.deepEqual(keysOf(own), fields(FULL_FIELDS, ['owner', 'permissions']))
    assert.deepEqual(own.permissions, { project_access: { access_level: 40, notification_level: 3 }, group_access: null })
    const inGroup = byId.get(p.g1Priv!.id) as Record<string, unknown>
    assert.deepEqual(keysOf(inGroup), fields(FULL_FIELDS, ['permissions']))
    assert.deepEqual(inGroup.permissions, { project_access: null, group_access: { access_level: 50, notification_level: 3 } })
    const shared = byId.get(p.bPriv!.id) as Record<string, unknown>
    assert.deepEqual(shared.permissions, { project_access: null, group_access: null })
    const bare = byId.get(p.bPub!.id) as Record<string, unknown>
    assert.ok(!('open_issues_count' in bare))
    assert.deepEqual(Object.keys(bare._links as object).sort(), ['events', 'labels', 'members', 'repo_branches', 'self'])
    const simple = await list(alice.token, { simple: true })
    assert.equal(simple.body.length, ALICE_SEES.length)
    for (const project of simple.body) assert.deepEqual(keysOf(project), SIMPLE_FIELDS)
  })

  it('paginates with exact totals and rejects bad pagination', async () => {
    await expectPaginates({ t, path: '/projects', token: alice.token, total: ALICE_SEES.length })
    await expectPaginates({ t, path: '/projects', token: null, total: 3 })
    await expectPaginates({ t, path: '/projects?visibility=private&order_by=name&sort=asc', token: alice.token, total: 4 })
    await expectRejectsBadPagination(t, '/projects', alice.token)
  })

  it('filters by archived status', async () => {
    assert.deepEqual(sortedIds(await list(alice.token, { archived: true })), ids('g2Int'))
    assert.deepEqual(sortedIds(await list(alice.token, { archived: false })), ids(...ALICE_SEES.filter((n) => n !== 'g2Int')))
  })

  it('filters by visibility', async () => {
    assert.deepEqual(sortedIds(await list(alice.token, { visibility: 'public' })), ids('aPub', 'bPub', 'dPub'))
    assert.deepEqual(sortedIds(await list(alice.token, { visibility: 'internal' })), ids('aInt', 'g2Int'))
    assert.deepEqual(sortedIds(await list(alice.token, { visibility: 'private' })), ids('aPriv', 'g1Priv', 'bPriv', 'cPriv'))
    assert.deepEqual(sortedIds(await list(null, { visibility: 'private' })), [])
  })

  it('searches name, path and description case-insensitively, word by word as the original', async () => {
    const search = async (text: string) => sortedIds(await list(alice.token, { search: text }))
    assert.deepEqual(await search('ALPHA'), ids('aPub'))
    assert.deepEqual(await search('golf-sh'), ids('bPriv'))
    assert.deepEqual(await search('needle'), ids('dPub'))
    assert.deepEqual(await search('public alpha'), ids('aPub'))
    assert.deepEqual(await search('alpha first'), [])
    assert.deepEqual(await search('"pha pub"'), ids('aPub'))
    assert.deepEqual(await search('100% hay'), ids('dPub'))
    assert.deepEqual(await search('e_i'), ids('dPub'))
    assert.deepEqual(await search('e%i'), [])
    assert.deepEqual(await search('OK'), ids('aInt'))
    assert.deepEqual(await search('o'), [])
    assert.deepEqual(await search('india'), [])
    assert.deepEqual(await search('   '), ids(...ALICE_SEES))
    const counted = await list(alice.token, { search: 'public' })
    assert.deepEqual(sortedIds(counted), ids('aPub', 'dPub'))
    assert.equal(counted.headers['x-total'], '2')
  })

  it('filters owned projects: the personal namespace and groups the caller owns', async () => {
    assert.deepEqual(sortedIds(await list(alice.token, { owned: true })), ids('aPub', 'aInt', 'aPriv', 'g1Priv'))
    assert.deepEqual(sortedIds(await list(bob.token, { owned: true })), ids('g2Int', 'bPub', 'bPriv'))
    assert.deepEqual(sortedIds(await list(alice.token, { owned: true, min_access_level: 50, membership: true })),
      ids('aPub', 'aInt', 'aPriv', 'g1Priv'))
    assert.deepEqual(sortedIds(await list(alice.token, { owned: false })), ids(...ALICE_SEES))
  })

  it('filters projects the caller is a member of, directly, through groups or shares', async () => {
    assert.deepEqual(sortedIds(await list(alice.token, { membership: true })), ids('aPub', 'aInt', 'aPriv', 'g1Priv', 'bPriv', 'cPriv'))
    assert.deepEqual(sortedIds(await list(external.token, { membership: true })), [])
  })

  it('filters by minimum access level', async () => {
    assert.deepEqual(sortedIds(await list(alice.token, { min_access_level: 20 })), ids('aPub', 'aInt', 'aPriv', 'g1Priv', 'bPriv', 'cPriv'))
    assert.deepEqual(sortedIds(await list(alice.token, { min_access_level: 30 })), ids('aPub', 'aInt', 'aPriv', 'g1Priv', 'cPriv'))
    assert.deepEqual(sortedIds(await list(alice.token, { min_access_level: 40 })), ids('aPub', 'aInt', 'aPriv', 'g1Priv'))
    assert.deepEqual(sortedIds(await list(alice.token, { min_access_level: 50 })), ids('g1Priv'))
  })

  it('gives anonymous callers nothing for owned, membership and min_access_level, and ignores starred', async () => {
    const queries: Record<string, string | number | boolean>[] = [{ owned: true }, { membership: true }, { min_access_level: 10 }]
    for (const query of queries) {
      const res = await list(null, query)
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, [])
      assert.equal(res.headers['x-total'], '0')
    }
    assert.deepEqual(sortedIds(await list(null, { starred: true })), ids('aPub', 'bPub', 'dPub'))
  })

  it('filters starred projects', async () => {
    assert.deepEqual(sortedIds(await list(alice.token, { starred: true })), ids('bPub', 'dPub'))
    assert.deepEqual(sortedIds(await list(bob.token, { starred: true })), [])
  })

  it('filters by enabled issues and merge requests', async () => {
    const without = ALICE_SEES.filter((n) => n !== 'bPub')
    assert.deepEqual(sortedIds(await list(alice.token, { with_issues_enabled: true })), ids(...without))
    assert.deepEqual(sortedIds(await list(alice.token, { with_merge_requests_enabled: true })), ids(...without))
  })

  it('answers nothing for the checksum filters: Ingot computes no checksums, so none failed', async () => {
    assert.deepEqual((await list(alice.token, { wiki_checksum_failed: true })).body, [])
    assert.deepEqual((await list(alice.token, { repository_checksum_failed: true })).body, [])
    assert.equal((await list(alice.token, { wiki_checksum_failed: false })).body.length, ALICE_SEES.length)
  })

  it('filters by custom attributes and shows them for admins only', async () => {
    const res = await t.api('GET', '/projects?custom_attributes[tier]=gold&with_custom_attributes=true', { token: t.root.token })
    assert.deepEqual(idsOf(res), [p.aPriv!.id])
    assert.deepEqual(res.body[0].custom_attributes, [{ key: 'tier', value: 'gold' }])
    const ignored = await t.api('GET', '/projects?custom_attributes[tier]=gold&with_custom_attributes=true&per_page=100', { token: alice.token })
    assert.equal(ignored.body.length, ALICE_SEES.length)
    assert.ok(ignored.body.every((project: object) => !('custom_attributes' in project)))
    const plain = await list(t.root.token)
    assert.ok(plain.body.every((project: object) => !('custom_attributes' in project)))
  })

  it('includes statistics for the projects the caller may read them of', async () => {
    await t.ctx.db.updateTable('project_statistics').set({ commit_count: 7, repository_size: 1024, storage_size: 2048 })
      .where('project_id', '=', p.bPriv!.id).execute()
    const res = await list(alice.token, { statistics: true })
    const byId = new Map<number, Record<string, unknown>>(res.body.map((project: { id: number }) => [project.id, project]))
    assert.deepEqual(byId.get(p.bPriv!.id)!.statistics, {
      commit_count: 7, storage_size: 2048, repository_size: 1024, lfs_objects_size: 0, job_artifacts_size: 0,
    })
    assert.ok(!('statistics' in byId.get(p.dPub!.id)!))
    assert.ok(!('statistics' in byId.get(p.g2Int!.id)!))
    const admin = await list(t.root.token, { statistics: true })
    assert.ok(admin.body.every((project: object) => 'statistics' in project))
    assert.ok((await list(alice.token)).body.every((project: object) => !('statistics' in project)))
  })

  it('orders by every column, created_at desc by default, with the id breaking ties', async () => {
    const mine = ['aPub', 'aInt', 'aPriv']
    const times = [3000, 1000, 2000]
    for (const [i, name] of mine.entries()) {
      await setProjectColumns(t, p[name]!.id, { created_at: times[i]!, updated_at: times[i]!, last_activity_at: 5000 })
    }
    const ordered = async (query: Record<string, string>) => idsOf(await list(alice.token, { owned: true, ...query })).filter((id) => ids(...mine).includes(id))
    assert.deepEqual(await ordered({}), [p.aPub!.id, p.aPriv!.id, p.aInt!.id])
    assert.deepEqual(await ordered({ order_by: 'created_at', sort: 'asc' }), [p.aInt!.id, p.aPriv!.id, p.aPub!.id])
    assert.deepEqual(await ordered({ order_by: 'updated_at', sort: 'desc' }), [p.aPub!.id, p.aPriv!.id, p.aInt!.id])
    assert.deepEqual(await ordered({ order_by: 'id', sort: 'asc' }), ids(...mine))
    assert.deepEqual(await ordered({ order_by: 'name', sort: 'asc' }), [p.aPub!.id, p.aInt!.id, p.aPriv!.id])
    assert.deepEqual(await ordered({ order_by: 'path', sort: 'desc' }), [p.aPriv!.id, p.aInt!.id, p.aPub!.id])
    assert.deepEqual(await ordered({ order_by: 'last_activity_at', sort: 'asc' }), ids(...mine))
    assert.deepEqual(await ordered({ order_by: 'last_activity_at', sort: 'desc' }), ids(...mine).reverse())
  })

  it('runs as many queries for a page of 100 as for a page of 3', async () => {
    const queriesFor = async (perPage: number) => {
      const { queries, result: res } = await countQueries(t, () => list(alice.token, { per_page: perPage, statistics: true }))
      assert.equal(res.body.length, Math.min(perPage, ALICE_SEES.length))
      return queries
    }
    const forHundred = await queriesFor(100)
    assert.ok(forHundred > 3)
    assert.equal(forHundred, await queriesFor(3))
  })

  it('rejects invalid parameters with 400', async () => {
    for (const [key, value] of [
      ['visibility', 'secret'], ['order_by', 'stars'], ['sort', 'up'], ['min_access_level', '15'], ['archived', 'maybe'],
      ['owned', 'perhaps'], ['statistics', 'x'],
    ] as const) {
      const res = await list(alice.token, { [key]: value })
      assert.equal(res.status, 400, key)
      assert.deepEqual(res.body, { error: `${key} is invalid` })
    }
  })

  it('answers 401 for an invalid token', async () => {
    const res = await list('not-a-valid-token-0000')
    assert.equal(res.status, 401)
    assert.deepEqual(res.body, { message: '401 Unauthorized' })
  })
})

describe('GET /users/:user_id/projects', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  const p: Record<string, ProjectRow> = {}

  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t, { username: 'Alice-Lists' })
    bob = await makeUser(t)
    const group = await makeGroup(t, { visibility: 'public' }, alice)
    p.pub = await makeProject(t, alice, { name: 'Public One', visibility: 'public', description: 'shiny' })
    p.int = await makeProject(t, alice, { name: 'Internal Two', visibility: 'internal' })
    p.priv = await makeProject(t, alice, { name: 'Private Three', visibility: 'private' })
    p.arch = await makeProject(t, alice, { name: 'Archived Four', visibility: 'public' })
    p.inGroup = await makeProject(t, alice, { name: 'Group Five', namespace: group, visibility: 'public' })
    p.bobs = await makeProject(t, bob, { name: 'Bob Six', visibility: 'public' })
    await setProjectColumns(t, p.arch!.id, { archived: 1, issues_enabled: 0 })
    await t.api('POST', `/projects/${p.int!.id}/star`, { token: bob.token })
  })
  after(async () => { await t.close() })

  const ids = (...names: string[]) => sorted(names.map((name) => p[name]!.id))
  const list = (user: string | number, token: string | null, query: Record<string, string | number | boolean> = {}) =>
    t.api('GET', `/users/${user}/projects`, { token, query: { per_page: 100, ...query } })

  it('lists the projects of the personal namespace visible to the caller', async () => {
    const anonymous = await list(alice.user.id, null)
    assert.equal(anonymous.status, 200)
    assert.deepEqual(sortedIds(anonymous), ids('pub', 'arch'))
    for (const project of anonymous.body) assert.deepEqual(keysOf(project), SIMPLE_FIELDS)
    assert.deepEqual(sortedIds(await list(alice.user.id, bob.token)), ids('pub', 'int', 'arch'))
    const own = await list(alice.user.id, alice.token)
    assert.deepEqual(sortedIds(own), ids('pub', 'int', 'priv', 'arch'))
    assert.equal(own.headers['x-total'], '4')
    const pub = own.body.find((project: { id: number }) => project.id === p.pub!.id)
    assert.deepEqual(keysOf(pub), fields(FULL_FIELDS, ['owner', 'permissions']))
    assert.deepEqual(sortedIds(await list(alice.user.id, t.root.token)), ids('pub', 'int', 'priv', 'arch'))
  })

  it('finds the user by username, case-insensitively', async () => {
    assert.deepEqual(sortedIds(await list('alice-lists', bob.token)), ids('pub', 'int', 'arch'))
  })

  it('answers 404 for an unknown user', async () => {
    for (const user of ['999999', 'nobody-here']) {
      const res = await list(user, bob.token)
      assert.equal(res.status, 404)
      assert.deepEqual(res.body, { message: '404 User Not Found' })
    }
  })

  it('paginates', async () => {
    await expectPaginates({ t, path: `/users/${alice.user.id}/projects`, token: alice.token, total: 4 })
    await expectRejectsBadPagination(t, `/users/${alice.user.id}/projects`, alice.token)
  })

  it('applies the filters of the project list', async () => {
    assert.deepEqual(sortedIds(await list(alice.user.id, alice.token, { archived: true })), ids('arch'))
    assert.deepEqual(sortedIds(await list(alice.user.id, alice.token, { archived: false })), ids('pub', 'int', 'priv'))
    assert.deepEqual(sortedIds(await list(alice.user.id, alice.token, { visibility: 'private' })), ids('priv'))
    assert.deepEqual(sortedIds(await list(alice.user.id, alice.token, { search: 'SHINY' })), ids('pub'))
    assert.deepEqual(sortedIds(await list(alice.user.id, bob.token, { starred: true })), ids('int'))
    assert.deepEqual(sortedIds(await list(alice.user.id, bob.token, { owned: true })), [])
    assert.deepEqual(sortedIds(await list(alice.user.id, bob.token, { membership: true })), [])
    assert.deepEqual(sortedIds(await list(alice.user.id, alice.token, { min_access_level: 40 })), ids('pub', 'int', 'priv', 'arch'))
    assert.deepEqual(sortedIds(await list(alice.user.id, alice.token, { with_issues_enabled: true })), ids('pub', 'int', 'priv'))
    assert.deepEqual(sortedIds(await list(alice.user.id, alice.token, { with_merge_requests_enabled: true })), ids('pub', 'int', 'priv', 'arch'))
    const simple = await list(alice.user.id, alice.token, { simple: true })
    assert.deepEqual(keysOf(simple.body[0]), SIMPLE_FIELDS)
    const byName = await list(alice.user.id, alice.token, { order_by: 'name', sort: 'asc' })
    assert.deepEqual(idsOf(byName), [p.arch!.id, p.int!.id, p.priv!.id, p.pub!.id])
    const stats = await list(alice.user.id, alice.token, { statistics: true })
    assert.ok(stats.body.every((project: object) => 'statistics' in project))
  })

  it('rejects invalid parameters with 400', async () => {
    const res = await list(alice.user.id, alice.token, { order_by: 'stars' })
    assert.equal(res.status, 400)
    assert.deepEqual(res.body, { error: 'order_by is invalid' })
  })
})

describe('GET /groups/:id/projects', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let stranger: TestUser
  let group: NamespaceRow
  let privateGroup: NamespaceRow
  const p: Record<string, ProjectRow> = {}

  // group (public, owner Owner, developer Developer): gPub, gInt, gPriv, gArch (archived), gNoIssues;
  // its subgroup's sPub (not listed); other's oPub and oPriv shared with the group.
  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    developer = await makeUser(t)
    stranger = await makeUser(t)
    const other = await makeUser(t)
    group = await makeGroup(t, { visibility: 'public' }, owner)
    privateGroup = await makeGroup(t, { visibility: 'private' }, owner)
    const subgroup = await makeGroup(t, { visibility: 'public', parent: group }, owner)
    await makeMember(t, { type: 'group', id: group.id }, developer, DEVELOPER)
    p.gPub = await makeProject(t, owner, { name: 'Group Public', namespace: group, visibility: 'public' })
    p.gInt = await makeProject(t, owner, { name: 'Group Internal', namespace: group, visibility: 'internal' })
    p.gPriv = await makeProject(t, owner, { name: 'Group Private', namespace: group, visibility: 'private', description: 'secret sauce' })
    p.gArch = await makeProject(t, owner, { name: 'Group Archived', namespace: group, visibility: 'public' })
    p.gNoIssues = await makeProject(t, owner, { name: 'Group Quiet', namespace: group, visibility: 'public' })
    p.sPub = await makeProject(t, owner, { name: 'Sub Public', namespace: subgroup, visibility: 'public' })
    p.oPub = await makeProject(t, other, { name: 'Other Public', visibility: 'public' })
    p.oPriv = await makeProject(t, other, { name: 'Other Private', visibility: 'private' })
    p.elsewhere = await makeProject(t, other, { name: 'Other Unshared', visibility: 'public' })
    await makeProject(t, owner, { name: 'Hidden Group Project', namespace: privateGroup, visibility: 'private' })
    await setProjectColumns(t, p.gArch!.id, { archived: 1 })
    await setProjectColumns(t, p.gNoIssues!.id, { issues_enabled: 0, merge_requests_enabled: 0 })
    await shareWith(t, p.oPub!.id, group.id, DEVELOPER)
    await shareWith(t, p.oPriv!.id, group.id, REPORTER)
    await t.api('POST', `/projects/${p.gInt!.id}/star`, { token: developer.token })
    await setProjectAttribute(t, p.gPub!.id, 'tier', 'gold')
  })
  after(async () => { await t.close() })

  const ids = (...names: string[]) => sorted(names.map((name) => p[name]!.id))
  const list = (token: string | null, query: Record<string, string | number | boolean> = {}, id: string | number = group.id) =>
    t.api('GET', `/groups/${id}/projects`, { token, query: { per_page: 100, ...query } })

  it('lists the group\'s unarchived projects and those shared with it, as visible to the caller', async () => {
    const anonymous = await list(null)
    assert.equal(anonymous.status, 200)
    assert.deepEqual(sortedIds(anonymous), ids('gPub', 'gNoIssues', 'oPub'))
    assert.deepEqual(sortedIds(await list(stranger.token)), ids('gPub', 'gInt', 'gNoIssues', 'oPub'))
    assert.deepEqual(sortedIds(await list(developer.token)), ids('gPub', 'gInt', 'gPriv', 'gNoIssues', 'oPub', 'oPriv'))
    const admin = await list(t.root.token)
    assert.deepEqual(sortedIds(admin), ids('gPub', 'gInt', 'gPriv', 'gNoIssues', 'oPub', 'oPriv'))
    assert.equal(admin.headers['x-total'], '6')
  })

  it('presents the full form without permissions, to anonymous callers too, and the simple one on request', async () => {
    const anonymous = await list(null)
    const groupProject = anonymous.body.find((project: { id: number }) => project.id === p.gPub!.id)
    assert.deepEqual(keysOf(groupProject), FULL_FIELDS)
    const shared = anonymous.body.find((project: { id: number }) => project.id === p.oPub!.id)
    assert.deepEqual(keysOf(shared), fields(FULL_FIELDS, ['owner']))
    assert.deepEqual(shared.shared_with_groups, [{ group_id: group.id, group_name: group.name, group_access_level: DEVELOPER, expires_at: null }])
    const simple = await list(developer.token, { simple: true })
    for (const project of simple.body) assert.deepEqual(keysOf(project), SIMPLE_FIELDS)
  })

  it('finds the group by its full path', async () => {
    assert.deepEqual(sortedIds(await list(null, {}, encodeURIComponent(group.full_path))), ids('gPub', 'gNoIssues', 'oPub'))
  })

  it('answers 404 for a group the caller cannot see', async () => {
    for (const token of [null, stranger.token]) {
      const res = await list(token, {}, privateGroup.id)
      assert.equal(res.status, 404)
      assert.deepEqual(res.body, { message: '404 Group Not Found' })
    }
    assert.equal((await list(stranger.token, {}, 999999)).status, 404)
    assert.equal((await list(owner.token, {}, privateGroup.id)).body.length, 1)
  })

  it('paginates', async () => {
    await expectPaginates({ t, path: `/groups/${group.id}/projects`, token: null, total: 3 })
    await expectPaginates({ t, path: `/groups/${group.id}/projects?with_issues_enabled=true`, token: developer.token, total: 5 })
    await expectRejectsBadPagination(t, `/groups/${group.id}/projects`, null)
  })

  it('applies its filters', async () => {
    assert.deepEqual(sortedIds(await list(developer.token, { archived: true })), ids('gArch'))
    assert.deepEqual(sortedIds(await list(developer.token, { archived: false })), ids('gPub', 'gInt', 'gPriv', 'gNoIssues', 'oPub', 'oPriv'))
    assert.deepEqual(sortedIds(await list(developer.token, { visibility: 'private' })), ids('gPriv', 'oPriv'))
    assert.deepEqual(sortedIds(await list(developer.token, { search: 'SAUCE' })), ids('gPriv'))
    assert.deepEqual(sortedIds(await list(owner.token, { owned: true })), ids('gPub', 'gInt', 'gPriv', 'gNoIssues'))
    assert.deepEqual(sortedIds(await list(developer.token, { owned: true })), [])
    assert.deepEqual(sortedIds(await list(developer.token, { starred: true })), ids('gInt'))
    assert.deepEqual(sortedIds(await list(developer.token, { with_issues_enabled: true })), ids('gPub', 'gInt', 'gPriv', 'oPub', 'oPriv'))
    assert.deepEqual(sortedIds(await list(developer.token, { with_merge_requests_enabled: true })), ids('gPub', 'gInt', 'gPriv', 'oPub', 'oPriv'))
    const byName = await list(null, { order_by: 'name', sort: 'asc' })
    assert.deepEqual(idsOf(byName), [p.gPub!.id, p.gNoIssues!.id, p.oPub!.id])
  })

  it('shows custom attributes to admins only', async () => {
    const admin = await list(t.root.token, { with_custom_attributes: true })
    const withAttribute = admin.body.find((project: { id: number }) => project.id === p.gPub!.id)
    assert.deepEqual(withAttribute.custom_attributes, [{ key: 'tier', value: 'gold' }])
    const plain = await list(developer.token, { with_custom_attributes: true })
    assert.ok(plain.body.every((project: object) => !('custom_attributes' in project)))
  })

  it('rejects invalid parameters with 400', async () => {
    for (const [key, value] of [['order_by', 'stars'], ['visibility', 'secret'], ['archived', 'maybe']] as const) {
      const res = await list(developer.token, { [key]: value })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { error: `${key} is invalid` })
    }
  })
})
