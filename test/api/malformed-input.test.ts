// Cross-cutting: malformed input is a clean 4xx in the original's shapes on every route, never a
// 500, on SQLite and PostgreSQL alike. The classes of input covered here once broke: ids beyond the
// 32-bit id columns (PostgreSQL refused the whole query), NUL characters (PostgreSQL refuses them
// in text), and numbers too large to be finite ("1e309", which schema validation let through).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeToken, makeUser, type TestUser } from '../helpers/factories.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'

const BEYOND_INT4 = ['2147483648', '99999999999999999999'] as const

describe('malformed input', () => {
  let t: TestApp
  let alice: TestUser
  let projectId: number
  let groupId: number

  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t)
    projectId = (await makeProject(t, alice, { visibility: 'public' })).id
    const group = await makeGroup(t, { visibility: 'public' })
    groupId = group.id
    await makeMember(t, { type: 'group', id: group.id }, alice, DEVELOPER)
  })
  after(async () => { await t.close() })

  /** Every route taking a numeric id of a project, group, user or namespace (`:id`), with a valid body. */
  const routesWithId = (): [method: string, path: string, body?: unknown][] => [
    ['GET', '/projects/:id'], ['PUT', '/projects/:id', { description: 'd' }], ['DELETE', '/projects/:id'],
    ['GET', '/projects/:id/events'], ['GET', '/projects/:id/members'], ['GET', '/projects/:id/members/all'],
    ['GET', '/projects/:id/members/1'], ['POST', '/projects/:id/members', { user_id: 1, access_level: 30 }],
    ['PUT', '/projects/:id/members/1', { access_level: 30 }], ['DELETE', '/projects/:id/members/1'],
    ['POST', '/projects/:id/star'], ['POST', '/projects/:id/unstar'], ['POST', '/projects/:id/archive'], ['POST', '/projects/:id/unarchive'],
    ['POST', '/projects/:id/share', { group_id: 1, group_access: 30 }], ['DELETE', '/projects/:id/share/1'],
    ['GET', '/projects/:id/custom_attributes'], ['PUT', '/projects/:id/custom_attributes/k', { value: 'v' }],
    ['GET', '/groups/:id'], ['PUT', '/groups/:id', { description: 'd' }], ['DELETE', '/groups/:id'], ['GET', '/groups/:id/subgroups'],
    ['GET', '/groups/:id/projects'], ['POST', `/groups/:id/projects/${projectId}`], ['GET', '/groups/:id/members'],
    ['GET', '/groups/:id/members/all'], ['POST', '/groups/:id/members', { user_id: 1, access_level: 30 }],
    ['DELETE', '/groups/:id/members/1'], ['GET', '/groups/:id/custom_attributes'],
    ['GET', '/users/:id'], ['PUT', '/users/:id', { bio: 'b' }], ['DELETE', '/users/:id'], ['POST', '/users/:id/block'],
    ['POST', '/users/:id/unblock'], ['GET', '/users/:id/status'], ['GET', '/users/:id/keys'], ['GET', '/users/:id/events'],
    ['GET', '/users/:id/projects'], ['GET', '/users/:id/impersonation_tokens'], ['GET', '/users/:id/custom_attributes'],
    ['GET', '/namespaces/:id'],
  ]

  it('answers 404 for ids beyond the integer id columns, on every route that takes one', async () => {
    for (const id of BEYOND_INT4) {
      for (const [method, path, body] of routesWithId()) {
        const res = await t.api(method, path.replace(':id', id), { body })
        assert.equal(res.status, 404, `${method} ${path} with ${id}: ${res.text}`)
        assert.match(res.body.message, /^404 (Project|Group|User|Namespace) Not Found$/, `${method} ${path}`)
      }
    }
  })

  it('answers 404 for ids beyond the integer columns in the rest of a path and in bodies', async () => {
    const id = BEYOND_INT4[0]
    const cases: [string, string, unknown, string][] = [
      ['GET', `/user/keys/${id}`, undefined, 'Key'],
      ['DELETE', `/users/${alice.user.id}/keys/${id}`, undefined, 'Key'],
      ['GET', `/users/${alice.user.id}/impersonation_tokens/${id}`, undefined, 'Impersonation Token'],
      ['GET', `/projects/${projectId}/members/${id}`, undefined, 'Member'],
      ['PUT', `/groups/${groupId}/members/${id}`, { access_level: 30 }, 'Member'],
      ['DELETE', `/projects/${projectId}/share/${id}`, undefined, 'Group Link'],
      ['POST', `/projects/${projectId}/members`, { user_id: Number(id), access_level: 30 }, 'User'],
      ['POST', `/projects/${projectId}/share`, { group_id: Number(id), group_access: 30 }, 'Group'],
      ['POST', '/groups', { name: 'nested', path: 'nested', parent_id: Number(id) }, 'Group'],
      ['POST', `/projects/user/${id}`, { name: 'p' }, 'User'],
    ]
    for (const [method, path, body, thing] of cases) {
      const res = await t.api(method, path, { body })
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`)
      assert.deepEqual(res.body, { message: `404 ${thing} Not Found` }, `${method} ${path}`)
    }
    const namespace = await t.api('POST', '/projects', { body: { name: 'p', namespace_id: id } })
    assert.equal(namespace.status, 400)
    assert.deepEqual(namespace.body, { message: { namespace: ['is not valid'] } })
    const skipped = await t.api('GET', '/groups', { query: { skip_groups: [id, groupId] } })
    assert.equal(skipped.status, 200)
    assert.ok(!skipped.body.some((g: { id: number }) => g.id === groupId))
    const sudo = await t.api('GET', '/user', { headers: { sudo: id } })
    assert.equal(sudo.status, 404)
    assert.deepEqual(sudo.body, { message: `404 User with ID or username '${id}' Not Found` })
  })

  it('answers 400 "<param> is invalid" for a NUL character in the path, the query or the body', async () => {
    const cases: [string, string, unknown, string][] = [
      ['GET', '/groups/a%00b', undefined, 'id'],
      ['GET', '/projects/a%2F%00', undefined, 'id'],
      ['GET', '/users/a%00/events', undefined, 'id'],
      ['GET', '/users?search=x%00', undefined, 'search'],
      ['GET', '/projects?custom_attributes[k]=%00', undefined, 'custom_attributes[k]'],
      ['GET', `/projects/${projectId}/members?query=%00`, undefined, 'query'],
      ['POST', '/groups', { name: 'a\u0000', path: 'nul-group' }, 'name'],
      ['PUT', '/user/status', { message: 'x\u0000' }, 'message'],
      ['PUT', `/projects/${projectId}`, { tag_list: ['ok', '\u0000'] }, 'tag_list[1]'],
    ]
    for (const [method, path, body, param] of cases) {
      const res = await t.api(method, path, { body })
      assert.equal(res.status, 400, `${method} ${path}: ${res.text}`)
      assert.deepEqual(res.body, { error: `${param} is invalid` }, `${method} ${path}`)
    }
    const form = await t.api('POST', '/groups', { form: 'name=a%00&path=nul-form' })
    assert.deepEqual([form.status, form.body], [400, { error: 'name is invalid' }])
    const sudo = await t.api('GET', '/user', { query: { sudo: 'ro\u0000ot' } })
    assert.equal(sudo.status, 404)
  })

  it('answers 400 "<param> is invalid" for integers too large to be finite', async () => {
    const query = await t.api('GET', '/user/keys/1e309')
    assert.deepEqual([query.status, query.body], [400, { error: 'key_id is invalid' }])
    const form = await t.api('POST', `/projects/${projectId}/members`, { form: `user_id=1e309&access_level=30` })
    assert.deepEqual([form.status, form.body], [400, { error: 'user_id is invalid' }])
    const json = await t.app.inject({
      method: 'POST', url: `/api/v4/groups/${groupId}/members`, payload: '{"user_id":1e999,"access_level":30}',
      headers: { 'private-token': t.root.token, 'content-type': 'application/json' },
    })
    assert.deepEqual([json.statusCode, json.json()], [400, { error: 'user_id is invalid' }])
  })

  it('answers 400 "search is invalid" for a search longer than 4,096 characters, on every list that searches', async () => {
    // SQLite refused the LIKE pattern of a 70,000-character search with a 500.
    const lists = ['/users', '/groups', '/projects', '/merge_requests', '/namespaces', '/issues',
      `/projects/${projectId}/repository/branches`, `/projects/${projectId}/milestones`]
    for (const list of lists) {
      const long = await t.api('GET', list, { query: { search: 'a'.repeat(70_000) } })
      assert.deepEqual([long.status, long.body], [400, { error: 'search is invalid' }], list)
      assert.equal((await t.api('GET', list, { query: { search: 'a'.repeat(4096) } })).status, 200, list)
    }
  })

  it('answers 400 "<param> is invalid" for datetimes that are no instant of the years 0000–9999', async () => {
    const issues = `/projects/${projectId}/issues`
    // 1e308, the year 300000 (beyond what a Date holds), a fraction of a millisecond, and as text.
    for (const created_at of [1e308, 9_400_000_000_000_000, -1e17, 1.5, '1e308', '+300000-01-01T00:00:00Z', '0000-01-01T00:00:00+01:00']) {
      const res = await t.api('POST', issues, { body: { title: 'When', created_at } })
      assert.deepEqual([res.status, res.body], [400, { error: 'created_at is invalid' }], String(created_at))
    }
    const edges = await Promise.all(['0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'].map((created_at) => t.api('POST', issues, { body: { title: 'Edge', created_at } })))
    assert.deepEqual(edges.map((res) => res.body.created_at), ['0000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'])
    const list = await t.api('GET', `${issues}?created_after=1e308`)
    assert.deepEqual([list.status, list.body], [400, { error: 'created_after is invalid' }])
    assert.equal((await t.api('GET', issues)).status, 200)
  })

  it('shows an instant out of range stored before datetimes were checked, rather than answering 500', async () => {
    const made = await t.api('POST', `/projects/${projectId}/issues`, { body: { title: 'Stored long ago' } })
    await t.ctx.db.updateTable('issues').set({ created_at: 9_400_000_000_000_000, updated_at: -9_400_000_000_000_000 }).where('id', '=', made.body.id).execute()
    const list = await t.api('GET', `/projects/${projectId}/issues?search=${encodeURIComponent('Stored long ago')}`)
    assert.equal(list.status, 200, list.text)
    assert.deepEqual([list.body[0].created_at, list.body[0].updated_at], ['9999-12-31T23:59:59.999Z', '0000-01-01T00:00:00.000Z'])
    assert.equal((await t.api('GET', `/projects/${projectId}/issues/${made.body.iid}`)).status, 200)
  })

  it('answers 400 "<param> is invalid" for a list where one value goes, or a list of lists', async () => {
    const issues = `/projects/${projectId}/issues`
    for (const [param, value] of [
      ['labels', [['a']]], ['labels', [['a', 'b']]], ['labels', [{ a: 'b' }]], ['title', ['a']], ['description', ['x']],
      ['assignee_ids[0]', [[alice.user.id]]], ['due_date', ['2020-01-01']], ['confidential', [true]],
    ] as const) {
      const name = param.replace(/\[0\]$/, '')
      const res = await t.api('POST', issues, { body: { title: 'Shape', [name]: value } })
      assert.deepEqual([res.status, res.body], [400, { error: `${param} is invalid` }], `${param}=${JSON.stringify(value)}`)
    }
    for (const [form, param] of [['title=x&labels[][]=a', 'labels'], ['title[]=x', 'title'], ['title=x&labels[k]=a', 'labels']] as const) {
      const res = await t.api('POST', issues, { form })
      assert.deepEqual([res.status, res.body], [400, { error: `${param} is invalid` }], form)
    }
    // A single value for a list is a list of one, as the original coerces it; scalars of other
    // types are read as the type the parameter takes.
    const made = await t.api('POST', issues, { form: `title=One&assignee_ids=${alice.user.id}&labels[]=7` })
    assert.equal(made.status, 201, made.text)
    assert.deepEqual([made.body.assignees.map((a: { id: number }) => a.id), made.body.labels], [[alice.user.id], ['7']])
    const listed = await t.api('GET', `${issues}?iids=${made.body.iid}`)
    assert.deepEqual(listed.body.map((issue: { title: string }) => issue.title), ['One'])
  })

  it('answers a field error for a projects_limit beyond the integer column', async () => {
    const res = await t.api('PUT', `/users/${alice.user.id}`, { body: { projects_limit: 2147483648 } })
    assert.equal(res.status, 400)
    assert.deepEqual(res.body, { message: { projects_limit: ['must be less than or equal to 2147483647'] } })
    const create = await t.api('POST', '/users', {
      body: { email: 'limit@example.com', username: 'limit-user', name: 'Limit', password: 'password1234', projects_limit: 2147483648 },
    })
    assert.equal(create.status, 400)
    assert.deepEqual(create.body, { message: { projects_limit: ['must be less than or equal to 2147483647'] } })
  })

  it('answers 400 for bodies that are not a JSON object, and takes the last of duplicate query parameters', async () => {
    for (const payload of ['[]', '"text"', '42', 'null']) {
      const res = await t.app.inject({
        method: 'POST', url: '/api/v4/groups', payload, headers: { 'private-token': t.root.token, 'content-type': 'application/json' },
      })
      assert.deepEqual([res.statusCode, res.json()], [400, { error: 'body is invalid' }], payload)
    }
    const list = await t.api('GET', '/projects?per_page=1&per_page=2')
    assert.equal(list.headers['x-per-page'], '2')
  })

  it('reads a JSON body nested deeper than the call stack goes', async () => {
    const depth = 200_000
    const res = await t.app.inject({
      method: 'PUT', url: '/api/v4/user/status', headers: { 'private-token': t.root.token, 'content-type': 'application/json' },
      payload: `{"message":"deep","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    })
    assert.equal(res.statusCode, 200, res.body.slice(0, 200))
  })

  it('answers URLs the router cannot read in the API\'s shape', async () => {
    for (const [url, status, message] of [
      ['/api/v4/groups/%FF', 400, '400 Bad Request'],
      ['/api/v4/projects/%E0%A4%A/members', 400, '400 Bad Request'],
      [`/api/v4/groups/${'x'.repeat(5000)}`, 414, '414 URI Too Long'],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'private-token': t.root.token } })
      assert.deepEqual([res.statusCode, res.json()], [status, { message }], url.slice(0, 40))
    }
  })

  it('keeps a read_user token to reading users and events whatever the input', async () => {
    const { token } = await makeToken(t, alice.user.id, ['read_user'])
    const res = await t.api('GET', `/projects/${BEYOND_INT4[0]}`, { token })
    assert.equal(res.status, 403)
    assert.equal(res.body.error, 'insufficient_scope')
  })
})
