// Notification settings: the caller's global setting (level, notification_email) and per group and
// project (level), with the 14 event flags shown for the custom level, validation and visibility.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { EMAIL_EVENTS } from '../../src/entities/notification-setting.js'

const ALL_OFF_BUT_FAILED = Object.fromEntries(EMAIL_EVENTS.map((event) => [event, event === 'failed_pipeline']))

describe('notification settings API', () => {
  let t: TestApp
  let alice: TestUser
  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t, { email: 'Alice.Notify@example.com' })
  })
  after(async () => { await t.close() })

  describe('global /notification_settings', () => {
    it('shows participating and the primary email by default', async () => {
      const user = await makeUser(t)
      const res = await t.api('GET', '/notification_settings', { token: user.token })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, { level: 'participating', notification_email: user.user.email })
    })

    it('changes the level; custom shows the events, stored whatever the level', async () => {
      const user = await makeUser(t)
      let res = await t.api('PUT', '/notification_settings', { token: user.token, body: { level: 'watch', new_note: true } })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, { level: 'watch', notification_email: user.user.email })
      // Form-encoded like python-gitlab sends it; new_note set before stays on.
      res = await t.api('PUT', '/notification_settings', { token: user.token, form: 'level=custom&close_issue=true&failed_pipeline=false' })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, {
        level: 'custom',
        events: { ...ALL_OFF_BUT_FAILED, new_note: true, close_issue: true, failed_pipeline: false },
        notification_email: user.user.email,
      })
      res = await t.api('GET', '/notification_settings', { token: user.token })
      assert.equal(res.body.events.close_issue, true)
      assert.equal(res.body.events.new_issue, false)
      // An empty PUT changes nothing.
      res = await t.api('PUT', '/notification_settings', { token: user.token })
      assert.equal(res.status, 200)
      assert.equal(res.body.level, 'custom')
    })

    it('refuses a level outside the six with the original message', async () => {
      const res = await t.api('PUT', '/notification_settings', { token: alice.token, body: { level: 'loud' } })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: "'loud' is not a valid level" })
      assert.equal((await t.api('GET', '/notification_settings', { token: alice.token })).body.level, 'participating')
    })

    it('takes a notification_email the user owns, refuses others, and returns to the primary one with ""', async () => {
      let res = await t.api('PUT', '/notification_settings', { token: alice.token, body: { notification_email: 'someone@example.com' } })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { notification_email: ['is not an email you own'] } })
      res = await t.api('PUT', '/notification_settings', { token: alice.token, body: { notification_email: 'not an address' } })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { notification_email: ['is invalid', 'is not an email you own'] } })
      res = await t.api('PUT', '/notification_settings', { token: alice.token, body: { notification_email: 'alice.notify@example.com', level: 'mention' } })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, { level: 'mention', notification_email: 'alice.notify@example.com' })
      res = await t.api('PUT', '/notification_settings', { token: alice.token, body: { notification_email: '' } })
      assert.deepEqual(res.body, { level: 'mention', notification_email: 'Alice.Notify@example.com' })
    })

    it('requires authentication', async () => {
      assert.equal((await t.api('GET', '/notification_settings', { token: null })).status, 401)
      const res = await t.api('PUT', '/notification_settings', { token: null, body: { level: 'watch' } })
      assert.equal(res.status, 401)
      assert.deepEqual(res.body, { message: '401 Unauthorized' })
    })
  })

  for (const kind of ['group', 'project'] as const) {
    describe(`/${kind}s/:id/notification_settings`, () => {
      const makeSource = async (owner: TestUser, visibility: 'private' | 'public') => {
        if (kind === 'group') {
          const group = await makeGroup(t, { visibility }, owner)
          return { id: group.id, path: group.full_path }
        }
        const project = await makeProject(t, owner, { visibility })
        const namespace = await t.ctx.db.selectFrom('namespaces').select('full_path').where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
        return { id: project.id, path: `${namespace.full_path}/${project.path}` }
      }

      it('shows global by default and keeps each user’s own setting', async () => {
        const owner = await makeUser(t)
        const other = await makeUser(t)
        const source = await makeSource(owner, 'public')
        let res = await t.api('GET', `/${kind}s/${source.id}/notification_settings`, { token: owner.token })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, { level: 'global' })
        res = await t.api('PUT', `/${kind}s/${encodeURIComponent(source.path)}/notification_settings`, { token: owner.token, body: { level: 'watch' } })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, { level: 'watch' })
        assert.deepEqual((await t.api('GET', `/${kind}s/${source.id}/notification_settings`, { token: owner.token })).body, { level: 'watch' })
        // A reader of a public source has a setting of their own.
        assert.deepEqual((await t.api('GET', `/${kind}s/${source.id}/notification_settings`, { token: other.token })).body, { level: 'global' })
        res = await t.api('PUT', `/${kind}s/${source.id}/notification_settings`, { token: other.token, body: { level: 'disabled' } })
        assert.deepEqual(res.body, { level: 'disabled' })
        assert.deepEqual((await t.api('GET', `/${kind}s/${source.id}/notification_settings`, { token: owner.token })).body, { level: 'watch' })
      })

      it('shows the events for custom, and the flags given before', async () => {
        const owner = await makeUser(t)
        const source = await makeSource(owner, 'private')
        let res = await t.api('PUT', `/${kind}s/${source.id}/notification_settings`, { token: owner.token, body: { reassign_issue: true } })
        assert.deepEqual(res.body, { level: 'global' })
        res = await t.api('PUT', `/${kind}s/${source.id}/notification_settings`, { token: owner.token, body: { level: 'custom', merge_merge_request: 'true' } })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, { level: 'custom', events: { ...ALL_OFF_BUT_FAILED, reassign_issue: true, merge_merge_request: true } })
        res = await t.api('PUT', `/${kind}s/${source.id}/notification_settings`, { token: owner.token, body: { level: 'nope' } })
        assert.equal(res.status, 400)
        assert.deepEqual(res.body, { message: "'nope' is not a valid level" })
        res = await t.api('PUT', `/${kind}s/${source.id}/notification_settings`, { token: owner.token, body: { new_issue: 'maybe' } })
        assert.equal(res.status, 400)
      })

      it('is 404 for a private one the caller cannot see or a missing one, and 401 anonymous', async () => {
        const owner = await makeUser(t)
        const outsider = await makeUser(t)
        const source = await makeSource(owner, 'private')
        const label = kind === 'group' ? 'Group' : 'Project'
        for (const method of ['GET', 'PUT'] as const) {
          let res = await t.api(method, `/${kind}s/${source.id}/notification_settings`, { token: outsider.token, body: { level: 'watch' } })
          assert.equal(res.status, 404)
          assert.deepEqual(res.body, { message: `404 ${label} Not Found` })
          res = await t.api(method, `/${kind}s/999999/notification_settings`, { token: outsider.token, body: { level: 'watch' } })
          assert.equal(res.status, 404)
          res = await t.api(method, `/${kind}s/${source.id}/notification_settings`, { token: null, body: { level: 'watch' } })
          assert.equal(res.status, 401)
        }
        // Administrators see everything.
        assert.deepEqual((await t.api('GET', `/${kind}s/${source.id}/notification_settings`)).body, { level: 'global' })
      })
    })
  }
})
