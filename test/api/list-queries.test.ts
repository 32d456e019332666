// Cross-cutting: every list runs a fixed number of queries whatever the page size (no N+1). Each
// list holds more rows than the small page, rows that differ in what their entities load (authors,
// namespaces, owners, shares, statistics, custom attributes), and is read at per_page=3 (a page
// holding each kind of row, users' namespaces and groups alike) and 100.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { createImpersonationToken } from '../../src/services/access-tokens/create-impersonation-token.js'
import { setCustomAttribute } from '../../src/services/custom-attributes/set-custom-attribute.js'

const ROWS = 5

describe('list queries', () => {
  let t: TestApp
  let alice: TestUser
  let groupId: number
  let projectId: number

  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t)
    const group = await makeGroup(t, { visibility: 'public' })
    groupId = group.id
    await makeMember(t, { type: 'group', id: group.id }, alice, DEVELOPER)
    const project = await makeProject(t, null, { namespace: group, visibility: 'public' })
    projectId = project.id
    for (let i = 0; i < ROWS; i += 1) {
      const user = await makeUser(t)
      await setCustomAttribute(t.ctx.db, { subject: 'user', subjectId: user.user.id }, 'k', `v${i}`)
      const other = await makeGroup(t, { visibility: 'public' }, user)
      await setCustomAttribute(t.ctx.db, { subject: 'group', subjectId: other.id }, 'k', `v${i}`)
      await makeGroup(t, { visibility: 'public', parent: group })
      const own = await makeProject(t, user, { visibility: 'public' })
      await setCustomAttribute(t.ctx.db, { subject: 'project', subjectId: own.id }, 'k', `v${i}`)
      await makeProject(t, null, { namespace: group, visibility: 'public' })
      await makeProject(t, alice, { visibility: 'public' })
      await makeMember(t, { type: 'group', id: group.id }, user, REPORTER)
      await makeMember(t, { type: 'project', id: project.id }, user, DEVELOPER)
      await makeMember(t, { type: 'group', id: other.id }, alice, REPORTER)
      await t.ctx.db.insertInto('project_group_links')
        .values({ project_id: project.id, group_id: other.id, group_access: DEVELOPER, expires_at: null, created_at: Date.now() }).execute()
      await t.ctx.db.insertInto('ssh_keys').values({
        user_id: alice.user.id, title: `key ${i}`, key: `ssh-ed25519 AAAA${i}`, fingerprint: `SHA256:list-queries-${i}`,
        key_type: 'ed25519', key_bits: 256, created_at: Date.now(),
      }).execute()
      await createImpersonationToken(t.ctx.db, alice.user.id, { name: `token ${i}`, scopes: ['api'] })
    }
  })
  after(async () => { await t.close() })

  /** The queries one request runs, after a first request has done the caller's once-a-day writes. */
  const queriesOf = async (path: string, token: string, perPage: number) => {
    await t.api('GET', path, { token, query: { per_page: perPage } })
    const { queries, result: res } = await countQueries(t, () => t.api('GET', path, { token, query: { per_page: perPage } }))
    assert.equal(res.status, 200, `${path}: ${res.text}`)
    const length = Array.isArray(res.body) ? res.body.length : res.body.projects.length
    return { queries, length }
  }

  it('runs as many queries for a page of 100 as for a page of 3, on every list', async () => {
    const lists: [path: string, token: string][] = [
      ['/users', alice.token], ['/users?with_custom_attributes=true', t.root.token],
      ['/groups', alice.token], ['/groups?statistics=true&with_custom_attributes=true&all_available=true', t.root.token],
      [`/groups/${groupId}/subgroups`, alice.token], [`/groups/${groupId}/projects`, alice.token],
      ['/projects', alice.token], ['/projects?statistics=true&with_custom_attributes=true', t.root.token], ['/projects?simple=true', alice.token],
      [`/users/${alice.user.id}/projects`, alice.token],
      [`/groups/${groupId}/members`, alice.token], [`/groups/${groupId}/members/all`, alice.token],
      [`/projects/${projectId}/members`, alice.token], [`/projects/${projectId}/members/all`, alice.token],
      ['/events', alice.token], [`/users/${alice.user.id}/events`, t.root.token], [`/projects/${projectId}/events`, alice.token],
      ['/namespaces', alice.token], ['/namespaces', t.root.token],
      ['/user/keys', alice.token], [`/users/${alice.user.id}/keys`, alice.token],
      [`/users/${alice.user.id}/impersonation_tokens`, t.root.token],
    ]
    for (const [path, token] of lists) {
      const small = await queriesOf(path, token, 3)
      const large = await queriesOf(path, token, 100)
      assert.ok(small.length === 3 && large.length > 3, `${path} lists ${large.length} rows`)
      assert.equal(large.queries, small.queries, `${path}: ${small.queries} queries for 3 rows, ${large.queries} for ${large.length}`)
    }
  })

  it('runs as many queries for a group with many projects as for one with few', async () => {
    const few = await makeGroup(t, { visibility: 'public' })
    await makeProject(t, null, { namespace: few, visibility: 'public' })
    const small = await queriesOf(`/groups/${few.id}`, alice.token, 20)
    const large = await queriesOf(`/groups/${groupId}`, alice.token, 20)
    assert.ok(large.length > ROWS)
    assert.equal(large.queries, small.queries)
  })
})
