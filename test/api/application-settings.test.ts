// Application settings: the defaults, changing and keeping settings, administrators only, type and
// value validation, the settings that need partners when enabled, and settings taking effect at once.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { DEFAULT_SETTINGS } from '../../src/services/settings.js'
import { acceptTerms } from '../../src/services/users/accept-terms.js'

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('Application settings API', () => {
  let t: TestApp
  let user: TestUser
  before(async () => {
    t = await buildTestApp()
    user = await makeUser(t)
    // root turns enforce_terms on below: having accepted the terms keeps root's API access.
    await acceptTerms(t.ctx.db, t.root.user.id)
  })
  after(async () => { await t.close() })

  const get = (token?: string | null) => t.api('GET', '/application/settings', { token })
  const put = (body: Record<string, unknown>) => t.api('PUT', '/application/settings', { body })

  describe('GET /application/settings', () => {
    it('shows every setting with its default, the id and the times', async () => {
      const res = await get()
      assert.equal(res.status, 200)
      assert.deepEqual(Object.keys(res.body).sort(), [...Object.keys(DEFAULT_SETTINGS), 'id', 'created_at', 'updated_at'].sort())
      for (const [name, value] of Object.entries(DEFAULT_SETTINGS)) assert.deepEqual(res.body[name], value, name)
      assert.equal(typeof res.body.id, 'number')
      assert.match(res.body.created_at, ISO_TIME)
      assert.match(res.body.updated_at, ISO_TIME)
      assert.equal(res.body.default_projects_limit, 100000)
      assert.equal(res.body.default_branch_protection, 2)
      assert.equal(res.body.default_project_visibility, 'private')
      assert.equal(res.body.password_authentication_enabled_for_git, true)
      assert.equal(res.body.diagram_renderer_enabled, false)
      assert.deepEqual(res.body.restricted_visibility_levels, [])
      assert.equal(res.body.domain_whitelist, null)
      assert.ok(res.body.import_sources.includes('git') && res.body.import_sources.includes('service_project'))
      assert.equal(res.body.max_attachment_size, 10)
      assert.equal(res.body.session_expire_delay, 10080)
      assert.deepEqual(
        [res.body.housekeeping_incremental_repack_period, res.body.housekeeping_full_repack_period, res.body.housekeeping_gc_period],
        [10, 50, 200],
      )
    })

    it('is for administrators only', async () => {
      assert.equal((await get(null)).status, 401)
      const res = await get(user.token)
      assert.equal(res.status, 403)
      assert.deepEqual(res.body, { message: '403 Forbidden' })
    })
  })

  describe('PUT /application/settings', () => {
    it('is for administrators only, refusing before reading the parameters', async () => {
      assert.equal((await t.api('PUT', '/application/settings', { token: null, body: { signup_enabled: false } })).status, 401)
      for (const body of [{ signup_enabled: false }, { signup_enabled: 'maybe' }]) {
        assert.equal((await t.api('PUT', '/application/settings', { token: user.token, body })).status, 403)
      }
      assert.equal((await get()).body.signup_enabled, true)
    })

    it('changes the settings given, keeps them, and leaves the others alone', async () => {
      const before = (await get()).body
      const res = await put({
        home_page_url: 'https://example.com/home',
        signup_enabled: 'false',
        max_attachment_size: '25',
        polling_interval_multiplier: 1.5,
        default_snippet_visibility: 'internal',
        disabled_oauth_sign_in_sources: 'provider_a, provider_b',
        domain_whitelist: ['example.com', '*.example.org'],
        enabled_git_access_protocol: 'ssh',
      })
      assert.equal(res.status, 200)
      assert.equal(res.body.home_page_url, 'https://example.com/home')
      assert.equal(res.body.signup_enabled, false)
      assert.equal(res.body.max_attachment_size, 25)
      assert.equal(res.body.polling_interval_multiplier, 1.5)
      assert.equal(res.body.default_snippet_visibility, 'internal')
      assert.deepEqual(res.body.disabled_oauth_sign_in_sources, ['provider_a', 'provider_b'])
      assert.deepEqual(res.body.domain_whitelist, ['example.com', '*.example.org'])
      assert.equal(res.body.enabled_git_access_protocol, 'ssh')
      assert.equal(res.body.id, before.id)
      assert.equal(res.body.created_at, before.created_at)
      assert.ok(res.body.updated_at >= before.updated_at)
      assert.equal(res.body.default_projects_limit, before.default_projects_limit)

      assert.deepEqual((await get()).body, res.body)
      // Only what was changed is stored: the defaults stay the code's.
      const row = await t.ctx.db.selectFrom('application_settings').select('settings').executeTakeFirstOrThrow()
      assert.deepEqual(Object.keys(JSON.parse(row.settings)).sort(), [
        'default_snippet_visibility', 'disabled_oauth_sign_in_sources', 'domain_whitelist', 'enabled_git_access_protocol',
        'home_page_url', 'max_attachment_size', 'polling_interval_multiplier', 'signup_enabled',
      ])

      const both = await put({ enabled_git_access_protocol: 'nil', signup_enabled: true })
      assert.equal(both.body.enabled_git_access_protocol, null)
      assert.equal(both.body.signup_enabled, true)
    })

    it('takes form-encoded arrays and lists, and visibility levels by name or number', async () => {
      const res = await t.api('PUT', '/application/settings', {
        form: 'import_sources[]=git&import_sources[]=service_project&restricted_visibility_levels=20,internal&repository_storages=default',
      })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body.import_sources, ['git', 'service_project'])
      assert.deepEqual(res.body.restricted_visibility_levels, ['public', 'internal'])
      const reset = await put({ restricted_visibility_levels: [] })
      assert.deepEqual(reset.body.restricted_visibility_levels, [])
    })

    it('answers 400 to a value of the wrong type', async () => {
      for (const [name, value] of [
        ['signup_enabled', 'maybe'], ['default_projects_limit', 'many'], ['default_projects_limit', 1.5],
        ['default_projects_limit', -1], ['polling_interval_multiplier', 'fast'], ['home_page_url', { url: 'x' }],
        ['import_sources', { git: true }], ['max_attachment_size', 0],
      ] as const) {
        const res = await put({ [name]: value })
        assert.equal(res.status, 400, `${name}=${JSON.stringify(value)}`)
        assert.deepEqual(res.body, { error: `${name} is invalid` })
      }
    })

    it('answers 400 to a value outside the allowed ones', async () => {
      for (const [name, value] of [
        ['default_project_visibility', 'secret'], ['default_group_visibility', 'hidden'], ['default_branch_protection', 3],
        ['enabled_git_access_protocol', 'ftp'], ['import_sources', ['git', 'svn']], ['restricted_visibility_levels', ['30']],
        ['rsa_key_restriction', 1000], ['ed25519_key_restriction', 512],
      ] as const) {
        const res = await put({ [name]: value })
        assert.equal(res.status, 400, `${name}=${JSON.stringify(value)}`)
        assert.deepEqual(res.body, { error: `${name} is invalid` })
      }
      const res = await get()
      assert.equal(res.body.default_project_visibility, 'private')
      assert.equal(res.body.rsa_key_restriction, 0)
    })

    it('refuses to enable a setting without its partners, naming them', async () => {
      const rules = [
        { enable: 'spam_service_enabled', partner: 'spam_service_api_key', value: 'a-key' },
        { enable: 'clientside_error_tracker_enabled', partner: 'clientside_error_tracker_dsn', value: 'https://dsn.example.com/1' },
        { enable: 'domain_blacklist_enabled', partner: 'domain_blacklist', value: ['*.spam.example'] },
        { enable: 'enforce_terms', partner: 'terms', value: 'Be kind.' },
        { enable: 'diagram_renderer_enabled', partner: 'diagram_renderer_url', value: 'https://diagrams.example.com' },
      ]
      for (const rule of rules) {
        const refused = await put({ [rule.enable]: true })
        assert.equal(refused.status, 400, rule.enable)
        assert.deepEqual(refused.body, { message: { [rule.partner]: ["can't be blank"] } })
        assert.equal((await get()).body[rule.enable], false)

        const accepted = await put({ [rule.enable]: true, [rule.partner]: rule.value })
        assert.equal(accepted.status, 200, rule.enable)
        assert.equal(accepted.body[rule.enable], true)
        assert.deepEqual(accepted.body[rule.partner], rule.value)
        // Clearing the partner of an enabled setting is refused too.
        const cleared = await put({ [rule.partner]: Array.isArray(rule.value) ? [] : '' })
        assert.equal(cleared.status, 400, rule.partner)
        assert.equal((await put({ [rule.enable]: false })).status, 200)
      }
    })

    it('accepts a partner stored before, and checks the defaults of numeric partners', async () => {
      assert.equal((await put({ terms: 'Stored terms' })).status, 200)
      const enforced = await put({ enforce_terms: true })
      assert.equal(enforced.status, 200)
      assert.equal(enforced.body.terms, 'Stored terms')
      assert.equal((await put({ enforce_terms: false })).status, 200)

      // metrics' partners have defaults, so enabling works alone; a blank one is refused.
      const blankHost = await put({ metrics_enabled: true, metrics_host: '' })
      assert.equal(blankHost.status, 400)
      assert.deepEqual(blankHost.body, { message: { metrics_host: ["can't be blank"] } })
      assert.equal((await put({ metrics_enabled: true, metrics_port: 9000 })).status, 200)
      assert.equal((await put({ metrics_enabled: false })).status, 200)

      // Housekeeping periods must grow from incremental repack to full repack to gc.
      const disordered = await put({ housekeeping_enabled: true, housekeeping_full_repack_period: 300 })
      assert.equal(disordered.status, 400)
      assert.deepEqual(disordered.body, {
        message: { housekeeping_gc_period: ['must be greater than or equal to housekeeping_full_repack_period'] },
      })
      const ordered = await put({ housekeeping_enabled: true, housekeeping_full_repack_period: 300, housekeeping_gc_period: 400 })
      assert.equal(ordered.status, 200)
      assert.equal(ordered.body.housekeeping_gc_period, 400)
    })
  })

  describe('settings that take effect at once', () => {
    it('restricted visibility levels keep non-administrators from public projects', async () => {
      assert.equal((await put({ restricted_visibility_levels: ['public'] })).status, 200)
      try {
        const refused = await t.api('POST', '/projects', { token: user.token, body: { name: 'open-project', visibility: 'public' } })
        assert.equal(refused.status, 400)
        assert.match(JSON.stringify(refused.body), /restricted by your administrator/)
        const allowed = await t.api('POST', '/projects', { token: user.token, body: { name: 'closed-project', visibility: 'private' } })
        assert.equal(allowed.status, 201)
        const byAdmin = await t.api('POST', '/projects', { body: { name: 'admin-open-project', visibility: 'public' } })
        assert.equal(byAdmin.status, 201)
      } finally {
        await put({ restricted_visibility_levels: [] })
      }
      const now = await t.api('POST', '/projects', { token: user.token, body: { name: 'open-project', visibility: 'public' } })
      assert.equal(now.status, 201)
    })

    it('default visibility and projects limit apply to what is created next', async () => {
      assert.equal((await put({ default_project_visibility: 'internal', default_projects_limit: 7 })).status, 200)
      try {
        const project = await t.api('POST', '/projects', { token: user.token, body: { name: 'default-visibility' } })
        assert.equal(project.body.visibility, 'internal')
        const created = await t.api('POST', '/users', {
          body: { username: 'limited-user', name: 'Limited', email: 'limited@example.com', password: 'password1234' },
        })
        assert.equal(created.status, 201)
        assert.equal(created.body.projects_limit, 7)
      } finally {
        await put({ default_project_visibility: 'private', default_projects_limit: 100000 })
      }
    })
  })
})
