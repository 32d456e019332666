// The protected branches API (GET/POST /projects/:id/protected_branches, GET/DELETE …/:name): rules
// for a name or wildcard with `push_access_level` and `merge_access_level` (default 40), exact
// fields, 409 for a name protected already, Maintainers only, bad input — and that the rules it
// writes are the ones the branch endpoints and the push rules apply.
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

describe('Protected branches API', () => {
  let t: TestApp
  let m: Matrix
  let base: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', m.project.id).execute()
    await commitFiles(t, m.project.id, { 'README.md': 'hi\n' })
    base = `/projects/${m.project.id}/protected_branches`
  })
  after(async () => { await t.close() })

  const create = (body: Record<string, unknown>, token = m.tokens.maintainer) => t.api('POST', base, { token, body })

  describe('POST /projects/:id/protected_branches', () => {
    it('protects a name with Maintainers by default (201, exactly the fields of the original)', async () => {
      const res = await create({ name: 'master' })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, { name: 'master', push_access_levels: [level(40)], merge_access_levels: [level(40)] })
    })

    it('takes the levels and a wildcard, in the query string as @gitbeaker/rest sends them', async () => {
      const res = await t.api('POST', `${base}?name=${encodeURIComponent('release-*')}&push_access_level=30&merge_access_level=0`, { token: m.tokens.maintainer })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, { name: 'release-*', push_access_levels: [level(30)], merge_access_levels: [level(0)] })
    })

    it('answers 409 for a name protected already', async () => {
      const res = await create({ name: 'master', push_access_level: 30 })
      assert.equal(res.status, 409)
      assert.deepEqual(res.body, { message: "Protected branch 'master' already exists" })
    })

    it('refuses a missing or blank name and levels other than 0, 30 and 40', async () => {
      const missing = await create({})
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { error: 'name is missing' })
      for (const [param, value] of [['push_access_level', 20], ['merge_access_level', 50], ['push_access_level', 'high']] as const) {
        const res = await create({ name: 'x', [param]: value })
        assert.equal(res.status, 400, `${param}=${value}`)
        assert.deepEqual(res.body, { error: `${param} is invalid` })
      }
      const blank = await create({ name: ' ' })
      assert.equal(blank.status, 422)
      assert.deepEqual(blank.body, { message: ["Name can't be blank"] })
    })

    it('refuses a name no branch could have, or one over 255 characters (400, the field errors)', async () => {
      for (const name of ['a..b', 'feature~1', 'x y', '-x', 'release/', 'a/*.lock', '*\\x']) {
        const res = await create({ name })
        assert.equal(res.status, 400, name)
        assert.deepEqual(res.body, { message: { name: ['is invalid'] } }, name)
      }
      const long = await create({ name: `${'*'.repeat(200)}${'x'.repeat(56)}` })
      assert.equal(long.status, 400)
      assert.deepEqual(long.body, { message: { name: ['is too long (maximum is 255 characters)'] } })
    })

    it('takes a pattern written to backtrack, and branch lists and pushes still answer', async () => {
      const hostile = `${'*'.repeat(30)}x`
      assert.equal((await create({ name: hostile })).status, 201)
      const branch = 'b'.repeat(60)
      const branches = `/projects/${m.project.id}/repository/branches`
      const made = await t.api('POST', branches, { token: m.tokens.developer, body: { branch, ref: 'master' } })
      assert.equal(made.status, 201, made.text)
      const list = await t.api('GET', `${branches}?search=bbb`, { token: m.tokens.developer })
      assert.deepEqual(list.body.map((b: { name: string; protected: boolean }) => [b.name, b.protected]), [[branch, false]])
      assert.equal((await t.api('DELETE', `${base}/${encodeURIComponent(hostile)}`, { token: m.tokens.maintainer })).status, 204)
    })

    it('is for Maintainers: 401 anonymous, 403 below, 404 for outsiders', async () => {
      let n = 0
      await expectStatuses(m, (token) => t.api('POST', base, { token, body: { name: `who-${n += 1}` } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 201, owner: 201, admin: 201,
      })
    })
  })

  describe('GET /projects/:id/protected_branches and …/:name', () => {
    it('lists the rules in the order they were made, paginated', async () => {
      const res = await t.api('GET', base, { token: m.tokens.maintainer })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.slice(0, 2), [
        { name: 'master', push_access_levels: [level(40)], merge_access_levels: [level(40)] },
        { name: 'release-*', push_access_levels: [level(30)], merge_access_levels: [level(0)] },
      ])
      await expectPaginates({ t, path: base, token: m.tokens.maintainer, total: res.body.length })
      await expectRejectsBadPagination(t, base, m.tokens.maintainer)
    })

    it('shows one rule by its name or wildcard, URL-encoded; 404 for another', async () => {
      await create({ name: 'feature/*', push_access_level: 30 })
      const res = await t.api('GET', `${base}/${encodeURIComponent('feature/*')}`, { token: m.tokens.maintainer })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, { name: 'feature/*', push_access_levels: [level(30)], merge_access_levels: [level(40)] })
      // A branch the wildcard covers is not a rule of its own.
      const covered = await t.api('GET', `${base}/release-1`, { token: m.tokens.maintainer })
      assert.equal(covered.status, 404)
      assert.deepEqual(covered.body, { message: '404 Not found' })
    })

    it('is for Maintainers; anonymous callers get 404 for a private project and 403 for a public one', async () => {
      await expectStatuses(m, (token) => t.api('GET', base, { token }), {
        anonymous: 404, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, owner: 200, admin: 200,
      })
      await expectStatuses(m, (token) => t.api('GET', `${base}/master`, { token }), {
        anonymous: 404, developer: 403, maintainer: 200,
      })
      const owner = await makeUser(t)
      const open = await makeProject(t, owner, { visibility: 'public' })
      const res = await t.api('GET', `/projects/${open.id}/protected_branches`, { token: null })
      assert.equal(res.status, 403)
      assert.equal((await t.api('GET', `/projects/${open.id}/protected_branches`, { token: owner.token })).status, 200)
    })
  })

  describe('DELETE /projects/:id/protected_branches/:name', () => {
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
      await expectStatuses(m, (token) => t.api('DELETE', `${base}/master`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403,
      })
      assert.equal((await t.api('GET', `${base}/master`, { token: m.tokens.maintainer })).status, 200)
    })
  })

  describe('what the rules do', () => {
    it('decides who may create, push to and delete the branches they match', async () => {
      await create({ name: 'stable-*', push_access_level: 40, merge_access_level: 30 })
      const branches = `/projects/${m.project.id}/repository/branches`
      const refused = await t.api('POST', branches, { token: m.tokens.developer, body: { branch: 'stable-1', ref: 'master' } })
      assert.equal(refused.status, 400)
      const made = await t.api('POST', branches, { token: m.tokens.maintainer, body: { branch: 'stable-1', ref: 'master' } })
      assert.equal(made.status, 201, made.text)
      const { commit: _commit, ...flags } = made.body
      assert.deepEqual(flags, {
        name: 'stable-1', merged: false, protected: true, default: false, developers_can_push: false, developers_can_merge: true, can_push: true,
      })
      const seenByDeveloper = await t.api('GET', `${branches}/stable-1`, { token: m.tokens.developer })
      assert.equal(seenByDeveloper.body.can_push, false)
      const deleteRefused = await t.api('DELETE', `${branches}/stable-1`, { token: m.tokens.developer })
      assert.equal(deleteRefused.status, 400)
      assert.match(deleteRefused.body.message, /Only a project maintainer or owner can delete a protected branch/)

      // Unprotected, the branch is the Developer's to push to and delete.
      assert.equal((await t.api('DELETE', `${base}/stable-*`, { token: m.tokens.maintainer })).status, 204)
      const unprotected = await t.api('GET', `${branches}/stable-1`, { token: m.tokens.developer })
      assert.equal(unprotected.body.protected, false)
      assert.equal(unprotected.body.can_push, true)
      assert.equal((await t.api('DELETE', `${branches}/stable-1`, { token: m.tokens.developer })).status, 204)
    })

    it('shows what the deprecated protect endpoint made', async () => {
      const res = await t.api('PUT', `/projects/${m.project.id}/repository/branches/master/unprotect`, { token: m.tokens.maintainer })
      assert.equal(res.status, 200, res.text)
      const made = await t.api('PUT', `/projects/${m.project.id}/repository/branches/master/protect`, {
        token: m.tokens.maintainer, body: { developers_can_merge: true },
      })
      assert.equal(made.status, 200, made.text)
      const rule = await t.api('GET', `${base}/master`, { token: m.tokens.maintainer })
      assert.deepEqual(rule.body, { name: 'master', push_access_levels: [level(40)], merge_access_levels: [level(30)] })
    })
  })
})
