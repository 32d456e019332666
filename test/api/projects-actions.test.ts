// Project actions: POST /projects/:id/star and /unstar, /archive and /unarchive, and sharing with
// groups (POST /projects/:id/share, DELETE /projects/:id/share/:group_id).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser } from '../helpers/factories.js'
import { FULL_FIELDS, fields, keysOf } from '../helpers/projects.js'
import { expectStatuses, makeMatrix } from '../shared/permission-matrix.js'
import { DEVELOPER, GUEST, MAINTAINER, REPORTER } from '../../src/policies/access-levels.js'

describe('project actions', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const post = (path: string, token: string | null, body?: unknown) => t.api('POST', path, { token, body })
  const projectRow = (id: number) => t.ctx.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

  describe('star and unstar', () => {
    it('lets anyone who can see the project star it', async () => {
      const m = await makeMatrix(t, 'private')
      await expectStatuses(m, (token) => post(`/projects/${m.project.id}/star`, token), {
        anonymous: 401, nonMember: 404, guest: 201, reporter: 201, developer: 201, maintainer: 201, owner: 201, admin: 201,
        external: 404, blocked: 403,
      })
      assert.equal((await projectRow(m.project.id)).star_count, 6)
      await expectStatuses(m, (token) => post(`/projects/${m.project.id}/unstar`, token), {
        anonymous: 401, nonMember: 404, guest: 201, reporter: 201, external: 404, blocked: 403,
      })
      assert.equal((await projectRow(m.project.id)).star_count, 4)
    })

    it('counts stars, answers the full form, and 304 with no body when nothing changes', async () => {
      const owner = await makeUser(t)
      const fan = await makeUser(t)
      const project = await makeProject(t, owner, { visibility: 'public' })
      const starred = await post(`/projects/${project.id}/star`, fan.token)
      assert.equal(starred.status, 201)
      assert.equal(starred.headers['content-type'], 'application/json')
      assert.deepEqual(keysOf(starred.body), fields(FULL_FIELDS, ['owner']))
      assert.equal(starred.body.star_count, 1)
      const again = await post(`/projects/${project.id}/star`, fan.token)
      assert.equal(again.status, 304)
      assert.equal(again.text, '')
      assert.equal((await post(`/projects/${project.id}/star`, owner.token)).body.star_count, 2)
      const rows = await t.ctx.db.selectFrom('stars').select('user_id').where('project_id', '=', project.id).orderBy('user_id').execute()
      assert.deepEqual(rows.map((r) => r.user_id), [owner.user.id, fan.user.id].sort((a, b) => a - b))
      const unstarred = await post(`/projects/${project.id}/unstar`, fan.token)
      assert.equal(unstarred.status, 201)
      assert.equal(unstarred.body.star_count, 1)
      const notStarred = await post(`/projects/${project.id}/unstar`, fan.token)
      assert.equal(notStarred.status, 304)
      assert.equal(notStarred.text, '')
      assert.equal((await projectRow(project.id)).star_count, 1)
      const listed = await t.api('GET', '/projects', { token: owner.token, query: { starred: true } })
      assert.deepEqual(listed.body.map((p: { id: number }) => p.id), [project.id])
    })

    it('keeps the count right under concurrent stars', async () => {
      const owner = await makeUser(t)
      const fan = await makeUser(t)
      const project = await makeProject(t, owner, { visibility: 'public' })
      const answers = await Promise.all([1, 2, 3, 4].map(() => post(`/projects/${project.id}/star`, fan.token)))
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 304, 304, 304])
      assert.equal((await projectRow(project.id)).star_count, 1)
    })
  })

  describe('archive and unarchive', () => {
    it('is for the project\'s owners and admins, as in the original', async () => {
      const m = await makeMatrix(t, 'private')
      await expectStatuses(m, (token) => post(`/projects/${m.project.id}/archive`, token), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 403, owner: 201, admin: 201,
        external: 404, blocked: 403,
      })
      await expectStatuses(m, (token) => post(`/projects/${m.project.id}/unarchive`, token), {
        anonymous: 401, nonMember: 404, maintainer: 403, owner: 201, admin: 201, external: 404,
      })
      const forbidden = await post(`/projects/${m.project.id}/archive`, m.tokens.maintainer)
      assert.deepEqual(forbidden.body, { message: '403 Forbidden' })
    })

    it('archives and unarchives, idempotently, answering the full form', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const archived = await post(`/projects/${project.id}/archive`, owner.token)
      assert.equal(archived.status, 201)
      assert.deepEqual(keysOf(archived.body), fields(FULL_FIELDS, ['owner']))
      assert.equal(archived.body.archived, true)
      assert.equal((await projectRow(project.id)).archived, 1)
      const again = await post(`/projects/${project.id}/archive`, owner.token)
      assert.deepEqual([again.status, again.body.archived], [201, true])
      const unarchived = await post(`/projects/${project.id}/unarchive`, owner.token)
      assert.deepEqual([unarchived.status, unarchived.body.archived], [201, false])
      assert.equal((await projectRow(project.id)).archived, 0)
      const twice = await post(`/projects/${project.id}/unarchive`, owner.token)
      assert.deepEqual([twice.status, twice.body.archived], [201, false])
    })
  })

  describe('POST /projects/:id/share', () => {
    it('is for Maintainers, Owners and admins; hides private projects from others', async () => {
      const m = await makeMatrix(t, 'private')
      await expectStatuses(m, async (token) => {
        const group = await makeGroup(t, { visibility: 'public' })
        return post(`/projects/${m.project.id}/share`, token, { group_id: group.id, group_access: DEVELOPER })
      }, {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 201, owner: 201, admin: 201,
        external: 404, blocked: 403,
      })
    })

    it('shares the project with a group, whose members then reach it', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const team = await makeGroup(t, { name: 'Team', visibility: 'internal' })
      const teammate = await makeUser(t)
      await makeMember(t, { type: 'group', id: team.id }, teammate, MAINTAINER)
      assert.equal((await t.api('GET', `/projects/${project.id}`, { token: teammate.token })).status, 404)
      const res = await post(`/projects/${project.id}/share`, owner.token, { group_id: team.id, group_access: REPORTER, expires_at: '2999-12-31' })
      assert.equal(res.status, 201)
      assert.deepEqual(res.body, { id: res.body.id, project_id: project.id, group_id: team.id, group_access: REPORTER, expires_at: '2999-12-31' })
      assert.equal(typeof res.body.id, 'number')
      const row = await t.ctx.db.selectFrom('project_group_links').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
      assert.deepEqual([row.project_id, row.group_id, row.group_access, row.expires_at], [project.id, team.id, REPORTER, '2999-12-31'])
      const seen = await t.api('GET', `/projects/${project.id}`, { token: teammate.token })
      assert.equal(seen.status, 200)
      assert.deepEqual(seen.body.shared_with_groups, [{ group_id: team.id, group_name: 'Team', group_access_level: REPORTER, expires_at: '2999-12-31' }])
      const withoutExpiry = await post(`/projects/${project.id}/share`, owner.token, {
        group_id: (await makeGroup(t, { visibility: 'public' })).id, group_access: GUEST,
      })
      assert.equal(withoutExpiry.body.expires_at, null)
    })

    it('answers 409 for a repeated share and for the project\'s own group or its ancestors', async () => {
      const owner = await makeUser(t)
      const parent = await makeGroup(t, { visibility: 'public' }, owner)
      const child = await makeGroup(t, { visibility: 'public', parent }, owner)
      const project = await makeProject(t, owner, { namespace: child })
      const other = await makeGroup(t, { visibility: 'public' })
      assert.equal((await post(`/projects/${project.id}/share`, owner.token, { group_id: other.id, group_access: DEVELOPER })).status, 201)
      const repeated = await post(`/projects/${project.id}/share`, owner.token, { group_id: other.id, group_access: GUEST })
      assert.equal(repeated.status, 409)
      assert.deepEqual(repeated.body, { message: 'Group already shared with this group' })
      for (const group of [child, parent]) {
        const own = await post(`/projects/${project.id}/share`, owner.token, { group_id: group.id, group_access: DEVELOPER })
        assert.equal(own.status, 409)
        assert.deepEqual(own.body, { message: 'Project cannot be shared with the group it is in or one of its ancestors.' })
      }
    })

    it('answers 404 for a group the caller cannot see', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const hidden = await makeGroup(t, { visibility: 'private' })
      for (const groupId of [hidden.id, 999999]) {
        const res = await post(`/projects/${project.id}/share`, owner.token, { group_id: groupId, group_access: DEVELOPER })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { message: '404 Group Not Found' })
      }
      const asAdmin = await post(`/projects/${project.id}/share`, t.root.token, { group_id: hidden.id, group_access: DEVELOPER })
      assert.equal(asAdmin.status, 201)
    })

    it('answers 400 for missing or invalid parameters', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const group = await makeGroup(t, { visibility: 'public' })
      const cases: [unknown, string][] = [
        [undefined, 'group_id is missing'],
        [{ group_access: DEVELOPER }, 'group_id is missing'],
        [{ group_id: group.id }, 'group_access is missing'],
        [{ group_id: group.id, group_access: 50 }, 'group_access is invalid'],
        [{ group_id: group.id, group_access: 35 }, 'group_access is invalid'],
        [{ group_id: 'abc', group_access: DEVELOPER }, 'group_id is invalid'],
        [{ group_id: group.id, group_access: DEVELOPER, expires_at: '2019-13-01' }, 'expires_at is invalid'],
      ]
      for (const [body, error] of cases) {
        const res = await post(`/projects/${project.id}/share`, owner.token, body)
        assert.equal(res.status, 400, error)
        assert.deepEqual(res.body, { error })
      }
    })
  })

  describe('DELETE /projects/:id/share/:group_id', () => {
    it('is for Maintainers, Owners and admins; hides private projects from others', async () => {
      const m = await makeMatrix(t, 'private')
      const groups = await Promise.all([1, 2, 3].map(() => makeGroup(t, { visibility: 'public' })))
      for (const group of groups) {
        assert.equal((await post(`/projects/${m.project.id}/share`, t.root.token, { group_id: group.id, group_access: GUEST })).status, 201)
      }
      const pending = [...groups]
      await expectStatuses(m, (token, persona) => {
        const group = ['maintainer', 'owner', 'admin'].includes(persona) ? pending.shift()! : groups[0]!
        return t.api('DELETE', `/projects/${m.project.id}/share/${group.id}`, { token })
      }, {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 204, owner: 204, admin: 204,
        external: 404, blocked: 403,
      })
    })

    it('ends the share, and answers 404 when there is none', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      const group = await makeGroup(t, { visibility: 'public' })
      await post(`/projects/${project.id}/share`, owner.token, { group_id: group.id, group_access: DEVELOPER })
      const res = await t.api('DELETE', `/projects/${project.id}/share/${group.id}`, { token: owner.token })
      assert.equal(res.status, 204)
      assert.equal(res.text, '')
      const rows = await t.ctx.db.selectFrom('project_group_links').select('id').where('project_id', '=', project.id).execute()
      assert.equal(rows.length, 0)
      const again = await t.api('DELETE', `/projects/${project.id}/share/${group.id}`, { token: owner.token })
      assert.equal(again.status, 404)
      assert.deepEqual(again.body, { message: '404 Group Link Not Found' })
      const invalid = await t.api('DELETE', `/projects/${project.id}/share/abc`, { token: owner.token })
      assert.deepEqual([invalid.status, invalid.body], [400, { error: 'group_id is invalid' }])
    })
  })
})
