// Custom attributes of users, groups and projects (administrators only): list, read, set (create or
// replace) and delete, with the same behaviour for every subject.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeProject, makeUser, uniqueName } from '../helpers/factories.js'
import type { CustomAttributeSubject } from '../../src/db/schema.js'

describe('custom attributes API', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  /** A new subject of the kind: its path prefix, id, and a path for it by full path where one exists. */
  const subjects: Record<CustomAttributeSubject, () => Promise<{ base: string; id: number; byPath: string | null }>> = {
    user: async () => {
      const { user } = await makeUser(t)
      return { base: `/users/${user.id}`, id: user.id, byPath: null }
    },
    group: async () => {
      const group = await makeGroup(t, { visibility: 'public' })
      return { base: `/groups/${group.id}`, id: group.id, byPath: `/groups/${encodeURIComponent(group.full_path)}` }
    },
    project: async () => {
      const group = await makeGroup(t, { visibility: 'public' })
      const project = await makeProject(t, null, { namespace: group, visibility: 'public' })
      return { base: `/projects/${project.id}`, id: project.id, byPath: `/projects/${encodeURIComponent(`${group.full_path}/${project.path}`)}` }
    },
  }
  const missingSubject: Record<CustomAttributeSubject, [string, string]> = {
    user: ['/users/999999', '404 User Not Found'],
    group: ['/groups/999999', '404 Group Not Found'],
    project: ['/projects/999999', '404 Project Not Found'],
  }

  for (const subject of ['user', 'group', 'project'] as const) {
    describe(`/${subject}s/:id/custom_attributes`, () => {
      it('sets, replaces, lists, reads and deletes attributes', async () => {
        const { base, id, byPath } = await subjects[subject]()
        const created = await t.api('PUT', `${base}/custom_attributes/zeta`, { body: { value: 'one' } })
        assert.equal(created.status, 200, created.text)
        assert.deepEqual(created.body, { key: 'zeta', value: 'one' })
        const replaced = await t.api('PUT', `${base}/custom_attributes/zeta`, { form: 'value=two' })
        assert.deepEqual(replaced.body, { key: 'zeta', value: 'two' })
        await t.api('PUT', `${base}/custom_attributes/alpha`, { body: { value: 'first' } })
        const rows = await t.ctx.db.selectFrom('custom_attributes').select(['key', 'value'])
          .where('subject_type', '=', subject).where('subject_id', '=', id).orderBy('key').execute()
        assert.deepEqual(rows, [{ key: 'alpha', value: 'first' }, { key: 'zeta', value: 'two' }])

        const list = await t.api('GET', `${base}/custom_attributes`)
        assert.equal(list.status, 200)
        assert.deepEqual(list.body, [{ key: 'alpha', value: 'first' }, { key: 'zeta', value: 'two' }])
        if (byPath !== null) assert.deepEqual((await t.api('GET', `${byPath}/custom_attributes`)).body, list.body)
        const one = await t.api('GET', `${base}/custom_attributes/zeta`)
        assert.equal(one.status, 200)
        assert.deepEqual(one.body, { key: 'zeta', value: 'two' })

        const deleted = await t.api('DELETE', `${base}/custom_attributes/zeta`)
        assert.equal(deleted.status, 204)
        assert.equal(deleted.text, '')
        assert.deepEqual((await t.api('GET', `${base}/custom_attributes`)).body, [{ key: 'alpha', value: 'first' }])
      })

      it('answers 404 for a missing key or subject', async () => {
        const { base } = await subjects[subject]()
        for (const method of ['GET', 'DELETE']) {
          const res = await t.api(method, `${base}/custom_attributes/${uniqueName('nokey')}`)
          assert.equal(res.status, 404)
          assert.deepEqual(res.body, { message: '404 Not found' })
        }
        const [missing, message] = missingSubject[subject]
        for (const [method, path] of [['GET', ''], ['GET', '/k'], ['PUT', '/k'], ['DELETE', '/k']] as const) {
          const res = await t.api(method, `${missing}/custom_attributes${path}`, method === 'PUT' ? { body: { value: 'v' } } : {})
          assert.equal(res.status, 404, `${method} ${path}`)
          assert.deepEqual(res.body, { message })
        }
      })

      it('answers 400 for a missing or blank value', async () => {
        const { base } = await subjects[subject]()
        const missing = await t.api('PUT', `${base}/custom_attributes/k`, { body: {} })
        assert.equal(missing.status, 400)
        assert.deepEqual(missing.body, { error: 'value is missing' })
        const blank = await t.api('PUT', `${base}/custom_attributes/k`, { body: { value: '  ' } })
        assert.equal(blank.status, 400)
        assert.deepEqual(blank.body, { message: { value: ["can't be blank"] } })
      })

      it('is for administrators only: 403 for others, 401 without credentials', async () => {
        const { base } = await subjects[subject]()
        await t.api('PUT', `${base}/custom_attributes/k`, { body: { value: 'v' } })
        const plain = await makeUser(t)
        for (const [method, path] of [['GET', ''], ['GET', '/k'], ['PUT', '/k'], ['DELETE', '/k']] as const) {
          const options = method === 'PUT' ? { body: { value: 'changed' } } : {}
          const denied = await t.api(method, `${base}/custom_attributes${path}`, { token: plain.token, ...options })
          assert.equal(denied.status, 403, `${method} ${path}`)
          assert.deepEqual(denied.body, { message: '403 Forbidden' })
          const anonymous = await t.api(method, `${base}/custom_attributes${path}`, { token: null, ...options })
          assert.equal(anonymous.status, 401, `${method} ${path}`)
        }
        assert.deepEqual((await t.api('GET', `${base}/custom_attributes/k`)).body, { key: 'k', value: 'v' })
      })
    })
  }

  it('hides private groups and projects from non-members with 404', async () => {
    const plain = await makeUser(t)
    const group = await makeGroup(t, { visibility: 'private' })
    const project = await makeProject(t, null, { namespace: group, visibility: 'private' })
    const groupRes = await t.api('GET', `/groups/${group.id}/custom_attributes`, { token: plain.token })
    assert.equal(groupRes.status, 404)
    assert.deepEqual(groupRes.body, { message: '404 Group Not Found' })
    const projectRes = await t.api('GET', `/projects/${project.id}/custom_attributes`, { token: plain.token })
    assert.equal(projectRes.status, 404)
    assert.deepEqual(projectRes.body, { message: '404 Project Not Found' })
  })
})
