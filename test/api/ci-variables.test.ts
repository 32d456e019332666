// CI/CD variables (/projects/:id/variables and /groups/:id/variables): list, get, create, update,
// delete with the 11.5 entity (key, value, protected); values sealed in the database; Maintainers
// and admins only (a Developer 403, an outsider of a private project or group 404, anonymous 401);
// the original's validation errors for keys; 404 for unknown keys.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject } from '../helpers/factories.js'
import { until } from '../helpers/jobs.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'

describe('CI/CD variables API', () => {
  let t: TestApp
  let m: Matrix

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
  })
  after(async () => { await t.close() })

  for (const kind of ['projects', 'groups'] as const) {
    describe(`/${kind}/:id/variables`, () => {
      const base = () => `/${kind}/${kind === 'projects' ? m.project.id : m.group.id}/variables`
      const create = (body: Record<string, unknown>, token: string | null = m.tokens.maintainer) => t.api('POST', base(), { token, body })

      before(async () => {
        // A group's Maintainer and Developer: group variables need Maintainer on the group.
        if (kind === 'groups') {
          await makeMember(t, { type: 'group', id: m.group.id }, m.users.maintainer, MAINTAINER)
          await makeMember(t, { type: 'group', id: m.group.id }, m.users.developer, DEVELOPER)
        }
      })

      it('creates a variable (201, protected false by default) and seals its value', async () => {
        const res = await create({ key: 'DEPLOY_TOKEN_1', value: 'hunter2-secret' })
        assert.equal(res.status, 201, res.text)
        assert.deepEqual(res.body, { key: 'DEPLOY_TOKEN_1', value: 'hunter2-secret', protected: false })
        const row = await t.ctx.db.selectFrom('ci_variables').selectAll().where('key', '=', 'DEPLOY_TOKEN_1')
          .where(kind === 'projects' ? 'project_id' : 'group_id', '=', kind === 'projects' ? m.project.id : m.group.id).executeTakeFirstOrThrow()
        assert.doesNotMatch(row.encrypted_value, /hunter2/)
        assert.equal(t.ctx.secrets.open('ci.variables', row.encrypted_value), 'hunter2-secret')
      })

      it('takes protected as a form word and an empty value', async () => {
        const res = await t.api('POST', base(), { token: m.tokens.maintainer, form: 'key=PROTECTED_ONE&value=&protected=true' })
        assert.equal(res.status, 201, res.text)
        assert.deepEqual(res.body, { key: 'PROTECTED_ONE', value: '', protected: true })
      })

      it('refuses a duplicate key and bad keys with the validation error shape', async () => {
        const duplicate = await create({ key: 'DEPLOY_TOKEN_1', value: 'other' })
        assert.equal(duplicate.status, 400)
        assert.deepEqual(duplicate.body, { message: { key: ['has already been taken'] } })
        const bad = await create({ key: 'no-dashes', value: 'x' })
        assert.equal(bad.status, 400)
        assert.deepEqual(bad.body, { message: { key: ["can contain only letters, digits and '_'."] } })
        const long = await create({ key: 'K'.repeat(256), value: 'x' })
        assert.equal(long.status, 400)
        assert.deepEqual(long.body, { message: { key: ['is too long (maximum is 255 characters)'] } })
        assert.equal((await create({ key: 'K'.repeat(255), value: 'x' })).status, 201)
        const blank = await create({ key: '', value: 'x' })
        assert.equal(blank.status, 400)
        assert.deepEqual(blank.body, { message: { key: ["can't be blank", "can contain only letters, digits and '_'."] } })
        const missingValue = await create({ key: 'NO_VALUE' })
        assert.equal(missingValue.status, 400)
        assert.deepEqual(missingValue.body, { error: 'value is missing' })
        const missingKey = await create({ value: 'x' })
        assert.equal(missingKey.status, 400)
        assert.deepEqual(missingKey.body, { error: 'key is missing' })
      })

      it('lists in key order with pagination headers', async () => {
        await create({ key: 'AAA_FIRST', value: '1' })
        const res = await t.api('GET', base(), { token: m.tokens.maintainer })
        assert.equal(res.status, 200, res.text)
        const keys = res.body.map((variable: { key: string }) => variable.key)
        assert.deepEqual(keys, [...keys].sort())
        assert.deepEqual(res.body[0], { key: 'AAA_FIRST', value: '1', protected: false })
        await expectPaginates({ t, path: base(), token: m.tokens.maintainer, total: res.body.length })
        await expectRejectsBadPagination(t, base(), m.tokens.maintainer)
      })

      it('gets one by key; 404 for an unknown key', async () => {
        const res = await t.api('GET', `${base()}/DEPLOY_TOKEN_1`, { token: m.tokens.maintainer })
        assert.equal(res.status, 200, res.text)
        assert.deepEqual(res.body, { key: 'DEPLOY_TOKEN_1', value: 'hunter2-secret', protected: false })
        const missing = await t.api('GET', `${base()}/NOPE`, { token: m.tokens.maintainer })
        assert.equal(missing.status, 404)
        assert.deepEqual(missing.body, { message: '404 Variable Not Found' })
      })

      it('updates the value and protected flag, keeping the key; 404 for an unknown key', async () => {
        await create({ key: 'TO_CHANGE', value: 'before' })
        const res = await t.api('PUT', `${base()}/TO_CHANGE`, { token: m.tokens.maintainer, body: { key: 'IGNORED', value: 'after', protected: true } })
        assert.equal(res.status, 200, res.text)
        assert.deepEqual(res.body, { key: 'TO_CHANGE', value: 'after', protected: true })
        const onlyFlag = await t.api('PUT', `${base()}/TO_CHANGE`, { token: m.tokens.maintainer, body: { protected: false } })
        assert.deepEqual(onlyFlag.body, { key: 'TO_CHANGE', value: 'after', protected: false })
        const missing = await t.api('PUT', `${base()}/NOPE`, { token: m.tokens.maintainer, body: { value: 'x' } })
        assert.equal(missing.status, 404)
        assert.deepEqual(missing.body, { message: '404 Variable Not Found' })
      })

      it('deletes with 204; 404 for an unknown key', async () => {
        await create({ key: 'TO_DELETE', value: 'x' })
        const res = await t.api('DELETE', `${base()}/TO_DELETE`, { token: m.tokens.maintainer })
        assert.equal(res.status, 204, res.text)
        assert.equal((await t.api('GET', `${base()}/TO_DELETE`, { token: m.tokens.maintainer })).status, 404)
        assert.equal((await t.api('DELETE', `${base()}/TO_DELETE`, { token: m.tokens.maintainer })).status, 404)
      })

      it('is for Maintainers and admins: 403 below, 404 for outsiders of the private owner, 401 anonymous', async () => {
        // The project's members see its private group too (the original's read_group for those with projects in it).
        const expected = { anonymous: 401, nonMember: 404, external: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, owner: 200, admin: 200 }
        await expectStatuses(m, (token) => t.api('GET', base(), { token }), expected)
        await expectStatuses(m, (token) => t.api('GET', `${base()}/DEPLOY_TOKEN_1`, { token }), expected)
        const writes = { anonymous: 401, nonMember: 404, developer: 403 }
        // Refused before the parameters are looked at: an empty body still gets 403/404.
        await expectStatuses(m, (token) => t.api('POST', base(), { token, body: {} }), writes)
        await expectStatuses(m, (token) => t.api('PUT', `${base()}/DEPLOY_TOKEN_1`, { token, body: { value: 'x' } }), writes)
        await expectStatuses(m, (token) => t.api('DELETE', `${base()}/DEPLOY_TOKEN_1`, { token }), writes)
        assert.equal((await t.api('GET', `${base()}/DEPLOY_TOKEN_1`, { token: m.tokens.maintainer })).body.value, 'hunter2-secret')
      })
    })
  }

  it('a project whose jobs are disabled refuses its variables (403), as the original\'s builds_disabled rule', async () => {
    const res = await t.api('PUT', `/projects/${m.project.id}`, { body: { jobs_enabled: false } })
    assert.equal(res.status, 200, res.text)
    assert.equal((await t.api('GET', `/projects/${m.project.id}/variables`, { token: m.tokens.maintainer })).status, 403)
    await t.api('PUT', `/projects/${m.project.id}`, { body: { jobs_enabled: true } })
  })

  it('an archived project refuses its variables (403), as the original\'s archived rule', async () => {
    const project = await makeProject(t, null)
    assert.equal((await t.api('POST', `/projects/${project.id}/archive`)).status, 201)
    assert.equal((await t.api('GET', `/projects/${project.id}/variables`)).status, 403)
  })

  it('goes with its project or group when that is deleted', async () => {
    const group = await makeGroup(t)
    const project = await makeProject(t, null, { namespace: group })
    assert.equal((await t.api('POST', `/groups/${group.id}/variables`, { body: { key: 'IN_GROUP', value: 'x' } })).status, 201)
    assert.equal((await t.api('POST', `/projects/${project.id}/variables`, { body: { key: 'IN_PROJECT', value: 'x' } })).status, 201)
    assert.equal((await t.api('DELETE', `/groups/${group.id}`)).status, 202)
    await until(async () => (await t.ctx.db.selectFrom('ci_variables').select('id')
      .where((eb) => eb.or([eb('group_id', '=', group.id), eb('project_id', '=', project.id)])).execute()).length === 0, 'the variables deleted')
  })
})
