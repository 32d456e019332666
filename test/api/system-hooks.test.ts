// System hooks (/hooks): list, add, test (GET /hooks/:id sends the original's sample and answers
// with it), delete — administrators only — and the instance events they receive from a real
// listener: user, project and group create/destroy, and pushes.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js'
import { expectPaginates } from '../shared/pagination.js'

async function drain(t: TestApp): Promise<void> {
  while (await t.ctx.jobs.runDue() > 0) { /* until no job is due */ }
}

describe('System hooks API', () => {
  let t: TestApp
  let receiver: HookReceiver
  let user: TestUser

  before(async () => {
    t = await buildTestApp()
    receiver = await startHookReceiver()
    user = await makeUser(t)
  })
  after(async () => {
    await receiver.close()
    await t.close()
  })

  it('adds a hook (201) with the original defaults, never showing the token', async () => {
    const res = await t.api('POST', '/hooks', { body: { url: `${receiver.url}/system`, token: 'sys-secret' } })
    assert.equal(res.status, 201, res.text)
    const { id, created_at: createdAt, ...rest } = res.body
    assert.equal(typeof id, 'number')
    assert.match(createdAt, /Z$/)
    assert.deepEqual(rest, {
      url: `${receiver.url}/system`,
      push_events: false,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: true,
      enable_ssl_verification: true,
    })
    assert.ok(!res.text.includes('sys-secret'))
  })

  it('is for administrators: 401 anonymous, 403 users, before the parameters are looked at', async () => {
    for (const [method, path] of [['GET', '/hooks'], ['POST', '/hooks'], ['GET', '/hooks/1'], ['DELETE', '/hooks/1']] as const) {
      assert.equal((await t.api(method, path, { token: null })).status, 401, `${method} ${path}`)
      const forbidden = await t.api(method, path, { token: user.token })
      assert.equal(forbidden.status, 403, `${method} ${path}`)
      assert.deepEqual(forbidden.body, { message: '403 Forbidden' })
    }
  })

  it('refuses a missing url (400) and an invalid one with field errors (400)', async () => {
    const missing = await t.api('POST', '/hooks', { body: {} })
    assert.equal(missing.status, 400)
    assert.deepEqual(missing.body, { error: 'url is missing' })
    const invalid = await t.api('POST', '/hooks', { body: { url: 'ftp://example.com' } })
    assert.equal(invalid.status, 400)
    assert.deepEqual(invalid.body, { message: { url: ['is blocked: Only allowed protocols are http, https'] } })
  })

  it('lists the system hooks only, paginated', async () => {
    await t.api('POST', '/hooks', { body: { url: `${receiver.url}/two`, push_events: true } })
    await t.api('POST', '/hooks', { body: { url: `${receiver.url}/three`, tag_push_events: true, merge_requests_events: true } })
    const res = await t.api('GET', '/hooks')
    assert.equal(res.status, 200)
    assert.equal(res.body.length, 3)
    assert.ok(res.body.every((hook: Record<string, unknown>) => !('project_id' in hook) && !('token' in hook)))
    await expectPaginates({ t, path: '/hooks', token: t.root.token, total: 3 })
  })

  it('GET /hooks/:id sends the sample event to the hook and answers with it; 404 for no hook', async () => {
    const hook = (await t.api('GET', '/hooks')).body[0]
    receiver.clear()
    const res = await t.api('GET', `/hooks/${hook.id}`)
    assert.equal(res.status, 200)
    const sample = {
      event_name: 'project_create', name: 'Ruby', path: 'ruby', project_id: 1, owner_name: 'Someone', owner_email: 'example@gitlabhq.com',
    }
    assert.deepEqual(res.body, sample)
    assert.equal(receiver.received.length, 1)
    assert.equal(receiver.received[0]!.headers['x-service-event'], 'System Hook')
    assert.equal(receiver.received[0]!.headers['x-service-token'], 'sys-secret')
    assert.equal(receiver.received[0]!.headers['x-gitlab-event'], 'System Hook')
    assert.equal(receiver.received[0]!.headers['x-gitlab-token'], 'sys-secret')
    assert.deepEqual(receiver.received[0]!.body, sample)
    const missing = await t.api('GET', '/hooks/99999')
    assert.equal(missing.status, 404)
    assert.deepEqual(missing.body, { message: '404 System hook Not Found' })
  })

  it('tells the system hooks of users, groups and projects made and destroyed', async () => {
    receiver.clear()
    const created = await t.api('POST', '/users', { body: { username: 'hooked', name: 'Hooked User', email: 'hooked@example.com', password: 'password1234' } })
    assert.equal(created.status, 201, created.text)
    const group = await t.api('POST', '/groups', { body: { name: 'Hooked Group', path: 'hooked-group' } })
    assert.equal(group.status, 201, group.text)
    const project = await t.api('POST', '/projects', { body: { name: 'Hooked', namespace_id: group.body.id } })
    assert.equal(project.status, 201, project.text)
    assert.equal((await t.api('DELETE', `/projects/${project.body.id}`)).status, 202)
    assert.equal((await t.api('DELETE', `/groups/${group.body.id}`)).status, 202)
    assert.equal((await t.api('DELETE', `/users/${created.body.id}`)).status, 204)
    await drain(t)
    const events = (name: string) => receiver.received.filter((r) => r.body.event_name === name && r.path === '/system')
    assert.ok(receiver.received.every((r) => r.headers['x-service-event'] === 'System Hook' && r.headers['x-gitlab-event'] === 'System Hook'))

    const [userCreate] = events('user_create')
    const { created_at: userAt, updated_at: _u, ...userRest } = userCreate!.body
    assert.match(userAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    assert.deepEqual(userRest, { event_name: 'user_create', name: 'Hooked User', email: 'hooked@example.com', user_id: created.body.id, username: 'hooked' })
    assert.equal(events('user_destroy')[0]?.body.user_id, created.body.id)

    const [groupCreate] = events('group_create')
    assert.deepEqual({ ...groupCreate!.body, created_at: undefined, updated_at: undefined }, {
      event_name: 'group_create', created_at: undefined, updated_at: undefined, name: 'Hooked Group', path: 'hooked-group', full_path: 'hooked-group',
      group_id: group.body.id, owner_name: t.root.user.name, owner_email: t.root.user.email,
    })
    assert.equal(events('group_destroy')[0]?.body.group_id, group.body.id)

    const [projectCreate] = events('project_create')
    assert.deepEqual({ ...projectCreate!.body, created_at: undefined, updated_at: undefined }, {
      event_name: 'project_create', created_at: undefined, updated_at: undefined, name: 'Hooked', path: 'hooked',
      path_with_namespace: 'hooked-group/hooked', project_id: project.body.id, owner_name: 'Hooked Group', owner_email: '',
      project_visibility: 'private',
    })
    assert.equal(events('project_destroy')[0]?.body.path_with_namespace, 'hooked-group/hooked')
  })

  it('tells hooks with push events of pushes, and every hook with repository_update_events of each push', async () => {
    const project = await t.api('POST', '/projects', { body: { name: 'Pushed', initialize_with_readme: true } })
    assert.equal(project.status, 201)
    await drain(t)
    receiver.clear()
    const commit = await t.api('POST', `/projects/${project.body.id}/repository/commits`, {
      body: { branch: 'master', commit_message: 'Add a file', actions: [{ action: 'create', file_path: 'new.txt', content: 'new\n' }] },
    })
    assert.equal(commit.status, 201, commit.text)
    await drain(t)
    const push = receiver.received.find((r) => r.body.event_name === 'push')
    assert.equal(push?.path, '/two')
    assert.equal(push?.body.after, commit.body.id)
    assert.deepEqual(push?.body.commits.map((c: { added: string[] }) => c.added), [['new.txt']])
    const updates = receiver.received.filter((r) => r.body.event_name === 'repository_update')
    assert.deepEqual(updates.map((r) => r.path).sort(), ['/system', '/three', '/two'])
    assert.deepEqual(updates[0]!.body.refs, ['refs/heads/master'])
    assert.deepEqual(updates[0]!.body.changes, [{ before: push!.body.before, after: commit.body.id, ref: 'refs/heads/master' }])
  })

  it('deletes a hook (204), then it is 404', async () => {
    const hook = (await t.api('GET', '/hooks')).body[0]
    const res = await t.api('DELETE', `/hooks/${hook.id}`)
    assert.equal(res.status, 204)
    assert.equal((await t.api('DELETE', `/hooks/${hook.id}`)).status, 404)
  })
})
