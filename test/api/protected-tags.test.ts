// Protected tags (spec: Protected tags): list, get by name or wildcard, create with
// `create_access_level` (default 40) 201 and 409 on a duplicate, delete 204 — exact fields,
// Maintainers only, bad input — and that the rules decide who may create and delete matching tags.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'

const level = (accessLevel: number) => ({
  access_level: accessLevel,
  access_level_description: ({ 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers' } as Record<number, string>)[accessLevel],
})

describe('Protected tags API', () => {
  let t: TestApp
  let m: Matrix
  let base: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', m.project.id).execute()
    await commitFiles(t, m.project.id, { 'README.md': 'hi\n' })
    base = `/projects/${m.project.id}/protected_tags`
  })
  after(async () => { await t.close() })

  const create = (body: Record<string, unknown>, token = m.tokens.maintainer) => t.api('POST', base, { token, body })
  const tags = () => `/projects/${m.project.id}/repository/tags`

  describe('POST /projects/:id/protected_tags', () => {
    it('protects a tag name for Maintainers by default (201, exactly the fields of the spec)', async () => {
      const res = await create({ name: 'v1.0.0' })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, { name: 'v1.0.0', create_access_levels: [level(40)] })
    })

    it('takes a wildcard and a level, in the query string too', async () => {
      const res = await t.api('POST', `${base}?name=${encodeURIComponent('release-*')}&create_access_level=30`, { token: m.tokens.maintainer })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, { name: 'release-*', create_access_levels: [level(30)] })
      const none = await create({ name: 'frozen/*', create_access_level: 0 })
      assert.deepEqual(none.body, { name: 'frozen/*', create_access_levels: [level(0)] })
    })

    it('answers 409 for a name protected already', async () => {
      const res = await create({ name: 'release-*' })
      assert.equal(res.status, 409)
      assert.deepEqual(res.body, { message: "Protected tag 'release-*' already exists" })
    })

    it('refuses a missing or blank name and levels other than 0, 30 and 40', async () => {
      const missing = await create({ create_access_level: 30 })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { error: 'name is missing' })
      for (const value of [10, 60, 'all']) {
        const res = await create({ name: 'x', create_access_level: value })
        assert.equal(res.status, 400, String(value))
        assert.deepEqual(res.body, { error: 'create_access_level is invalid' })
      }
      const blank = await create({ name: '' })
      assert.equal(blank.status, 422)
      assert.deepEqual(blank.body, { message: ["Name can't be blank"] })
    })

    it('refuses a name no tag could have, or one over 255 characters (400, the field errors)', async () => {
      for (const name of ['v1..2', 'v1^', 'v 1', 'v1:x']) {
        const res = await create({ name })
        assert.equal(res.status, 400, name)
        assert.deepEqual(res.body, { message: { name: ['is invalid'] } }, name)
      }
      const long = await create({ name: `v${'*'.repeat(255)}` })
      assert.equal(long.status, 400)
      assert.deepEqual(long.body, { message: { name: ['is too long (maximum is 255 characters)'] } })
    })

    it('is for Maintainers: 401 anonymous, 403 below, 404 for outsiders', async () => {
      let n = 0
      await expectStatuses(m, (token) => t.api('POST', base, { token, body: { name: `who-${n += 1}` } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 201, owner: 201, admin: 201,
      })
    })
  })

  describe('GET /projects/:id/protected_tags and …/:name', () => {
    it('lists the rules in the order they were made, paginated', async () => {
      const res = await t.api('GET', base, { token: m.tokens.maintainer })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.slice(0, 3), [
        { name: 'v1.0.0', create_access_levels: [level(40)] },
        { name: 'release-*', create_access_levels: [level(30)] },
        { name: 'frozen/*', create_access_levels: [level(0)] },
      ])
      await expectPaginates({ t, path: base, token: m.tokens.maintainer, total: res.body.length })
      await expectRejectsBadPagination(t, base, m.tokens.maintainer)
    })

    it('shows one rule by its name or wildcard, URL-encoded; 404 for another', async () => {
      const res = await t.api('GET', `${base}/${encodeURIComponent('frozen/*')}`, { token: m.tokens.maintainer })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, { name: 'frozen/*', create_access_levels: [level(0)] })
      const exact = await t.api('GET', `${base}/v1.0.0`, { token: m.tokens.maintainer })
      assert.deepEqual(exact.body, { name: 'v1.0.0', create_access_levels: [level(40)] })
      const covered = await t.api('GET', `${base}/release-1`, { token: m.tokens.maintainer })
      assert.equal(covered.status, 404)
      assert.deepEqual(covered.body, { message: '404 Not found' })
    })

    it('is for Maintainers; anonymous callers get 404 for a private project and 403 for a public one', async () => {
      await expectStatuses(m, (token) => t.api('GET', base, { token }), {
        anonymous: 404, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, owner: 200, admin: 200,
      })
      await expectStatuses(m, (token) => t.api('GET', `${base}/v1.0.0`, { token }), { anonymous: 404, developer: 403, maintainer: 200 })
      const owner = await makeUser(t)
      const open = await makeProject(t, owner, { visibility: 'public' })
      assert.equal((await t.api('GET', `/projects/${open.id}/protected_tags`, { token: null })).status, 403)
      assert.equal((await t.api('GET', `/projects/${open.id}/protected_tags`, { token: owner.token })).status, 200)
    })
  })

  describe('DELETE /projects/:id/protected_tags/:name', () => {
    it('unprotects (204); then the rule is gone (404)', async () => {
      await create({ name: 'temp/*' })
      const res = await t.api('DELETE', `${base}/${encodeURIComponent('temp/*')}`, { token: m.tokens.maintainer })
      assert.equal(res.status, 204, res.text)
      assert.equal(res.text, '')
      const again = await t.api('DELETE', `${base}/${encodeURIComponent('temp/*')}`, { token: m.tokens.maintainer })
      assert.equal(again.status, 404)
      assert.deepEqual(again.body, { message: '404 Not found' })
    })

    it('is for Maintainers', async () => {
      await expectStatuses(m, (token) => t.api('DELETE', `${base}/v1.0.0`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403,
      })
      assert.equal((await t.api('GET', `${base}/v1.0.0`, { token: m.tokens.maintainer })).status, 200)
    })
  })

  describe('what the rules do', () => {
    it('lets only the allowed level create matching tags, and keeps them from Developers', async () => {
      const refused = await t.api('POST', tags(), { token: m.tokens.developer, body: { tag_name: 'v1.0.0', ref: 'master' } })
      assert.equal(refused.status, 405)
      assert.deepEqual(refused.body, { message: 'You are not allowed to create this tag as it is protected.' })
      const byMaintainer = await t.api('POST', tags(), { token: m.tokens.maintainer, body: { tag_name: 'v1.0.0', ref: 'master' } })
      assert.equal(byMaintainer.status, 201, byMaintainer.text)
      // create_access_level 30 lets Developers create the tags a wildcard matches.
      const byDeveloper = await t.api('POST', tags(), { token: m.tokens.developer, body: { tag_name: 'release-1', ref: 'master' } })
      assert.equal(byDeveloper.status, 201, byDeveloper.text)
      // 0: nobody, not even a Maintainer.
      const frozen = await t.api('POST', tags(), { token: m.tokens.maintainer, body: { tag_name: 'frozen/1', ref: 'master' } })
      assert.equal(frozen.status, 405)
      // A protected tag stays when a Developer deletes it.
      const kept = await t.api('DELETE', `${tags()}/v1.0.0`, { token: m.tokens.developer })
      assert.equal(kept.status, 400)
      // Unprotected, a Developer may create it.
      assert.equal((await t.api('DELETE', `${base}/${encodeURIComponent('frozen/*')}`, { token: m.tokens.maintainer })).status, 204)
      const thawed = await t.api('POST', tags(), { token: m.tokens.developer, body: { tag_name: 'frozen/1', ref: 'master' } })
      assert.equal(thawed.status, 201, thawed.text)
    })
  })
})
