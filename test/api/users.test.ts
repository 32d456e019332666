// Users: the list (filters, admin extras, anonymous lookups, the hidden ghost), single users, the
// current user, create, update (the 404 quirk, namespace renames), delete (ghost migration, sole
// group ownership, hard delete), block and unblock, and user status.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { buildTestApp, EXTERNAL_URL, type ApiResponse, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeToken, makeUser, uniqueName } from '../helpers/factories.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { DEVELOPER, OWNER } from '../../src/policies/access-levels.js'
import { passwordMatches } from '../../src/auth/secrets.js'
import { ensureGhostUser } from '../../src/services/users/ghost-user.js'

const USER_BASIC_FIELDS = ['avatar_url', 'id', 'name', 'state', 'username', 'web_url']
const USER_FIELDS = [
  ...USER_BASIC_FIELDS, 'bio', 'created_at', 'location', 'messenger', 'microblog', 'organization', 'professional_network',
  'public_email', 'website_url',
].sort()
const USER_WITH_ADMIN_FIELDS = [
  ...USER_FIELDS, 'can_create_group', 'can_create_project', 'color_scheme_id', 'confirmed_at', 'current_sign_in_at', 'email',
  'external', 'identities', 'is_admin', 'last_activity_on', 'last_sign_in_at', 'private_profile', 'projects_limit', 'theme_id',
  'two_factor_enabled',
].sort()

const keysOf = (value: object) => Object.keys(value).sort()
const idsOf = (res: ApiResponse): number[] => res.body.map((u: { id: number }) => u.id)
const FORBIDDEN = { message: '403 Forbidden' }
const USER_NOT_FOUND = { message: '404 User Not Found' }

describe('users API', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const setAttribute = (userId: number, key: string, value: string) =>
    t.ctx.db.insertInto('custom_attributes')
      .values({ subject_type: 'user', subject_id: userId, key, value, created_at: Date.now(), updated_at: Date.now() }).execute()
  const userRow = (id: number) => t.ctx.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()

  describe('GET /users', () => {
    it('gives administrators the admin form of every user, newest first', async () => {
      const a = await makeUser(t)
      const b = await makeUser(t)
      const res = await t.api('GET', '/users')
      assert.equal(res.status, 200)
      assert.deepEqual(idsOf(res).slice(0, 2), [b.user.id, a.user.id])
      const entry = res.body.find((u: { id: number }) => u.id === a.user.id)
      assert.deepEqual(keysOf(entry), USER_WITH_ADMIN_FIELDS)
      assert.equal(entry.email, a.user.email)
      assert.equal(entry.is_admin, false)
      assert.deepEqual(entry.identities, [])
      assert.equal(entry.can_create_project, true)
      assert.equal(entry.web_url, `${EXTERNAL_URL}/${a.user.username}`)
    })

    it('gives everyone else the basic form, with the exact fields', async () => {
      const caller = await makeUser(t)
      const res = await t.api('GET', '/users', { token: caller.token })
      assert.equal(res.status, 200)
      const entry = res.body.find((u: { id: number }) => u.id === caller.user.id)
      assert.deepEqual(entry, {
        id: caller.user.id,
        name: caller.user.name,
        username: caller.user.username,
        state: 'active',
        avatar_url: null,
        web_url: `${EXTERNAL_URL}/${caller.user.username}`,
      })
    })

    it('lets anonymous callers look up a username only', async () => {
      const target = await makeUser(t, { username: uniqueName('Anon') })
      const list = await t.api('GET', '/users', { token: null })
      assert.equal(list.status, 403)
      assert.deepEqual(list.body, { message: '403 Forbidden - Not authorized to access /api/v4/users' })
      const found = await t.api('GET', '/users', { token: null, query: { username: target.user.username.toUpperCase() } })
      assert.equal(found.status, 200)
      assert.deepEqual(idsOf(found), [target.user.id])
      assert.deepEqual(keysOf(found.body[0]), USER_BASIC_FIELDS)
    })

    it('accepts a read_user token', async () => {
      const user = await makeUser(t)
      const readUser = await makeToken(t, user.user.id, ['read_user'])
      assert.equal((await t.api('GET', '/users', { token: readUser.token })).status, 200)
    })

    it('searches names and usernames by words, and emails exactly', async () => {
      const tag = uniqueName('srch')
      const byName = await makeUser(t, { name: `Alice ${tag} Liddell` })
      const byUsername = await makeUser(t, { username: `${tag}-bob` })
      const byEmail = await makeUser(t, { email: `${tag}.mail@example.org` })
      const caller = await makeUser(t)
      const search = async (search: string) => idsOf(await t.api('GET', '/users', { token: caller.token, query: { search } }))
      assert.deepEqual(await search(tag.toUpperCase()), [byUsername.user.id, byName.user.id])
      assert.deepEqual(await search(`alice ${tag}`), [byName.user.id])
      assert.deepEqual(await search(`${tag}.mail@EXAMPLE.org`), [byEmail.user.id])
      assert.deepEqual(await search(`${tag}.mail`), [])
    })

    it('filters by exact username, case-insensitively', async () => {
      const target = await makeUser(t, { username: uniqueName('Exact') })
      await makeUser(t, { username: `${target.user.username}x` })
      const res = await t.api('GET', '/users', { query: { username: target.user.username.toLowerCase() } })
      assert.deepEqual(idsOf(res), [target.user.id])
    })

    it('filters active and blocked users', async () => {
      const tag = uniqueName('state')
      const active = await makeUser(t, { name: `${tag} active` })
      const blocked = await makeUser(t, { name: `${tag} blocked` })
      await t.api('POST', `/users/${blocked.user.id}/block`)
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query: { search: tag, blocked: true } })), [blocked.user.id])
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query: { search: tag, active: true } })), [active.user.id])
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query: { search: tag, active: false } })), [blocked.user.id, active.user.id])
    })

    it('filters external users for administrators only', async () => {
      const tag = uniqueName('ext')
      const external = await makeUser(t, { name: `${tag} outside`, external: true })
      await makeUser(t, { name: `${tag} inside` })
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query: { search: tag, external: true } })), [external.user.id])
      const plain = await makeUser(t)
      const denied = await t.api('GET', '/users', { token: plain.token, query: { external: true } })
      assert.equal(denied.status, 403)
      assert.deepEqual(denied.body, FORBIDDEN)
      assert.equal((await t.api('GET', '/users', { token: null, query: { external: true, username: 'root' } })).status, 401)
    })

    it('finds the holder of an external identity, for administrators only', async () => {
      const uid = uniqueName('uid')
      const holder = await makeUser(t, { extern_uid: uid, provider: 'ldapmain' })
      const res = await t.api('GET', '/users', { query: { extern_uid: uid, provider: 'ldapmain' } })
      assert.deepEqual(idsOf(res), [holder.user.id])
      assert.deepEqual(res.body[0].identities, [{ provider: 'ldapmain', extern_uid: uid }])
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query: { extern_uid: uid, provider: 'github' } })), [])
      const plain = await makeUser(t)
      assert.equal((await t.api('GET', '/users', { token: plain.token, query: { extern_uid: uid, provider: 'ldapmain' } })).status, 403)
      const half = await t.api('GET', '/users', { query: { extern_uid: uid } })
      assert.equal(half.status, 400)
      assert.deepEqual(half.body, { error: 'extern_uid, provider provide all or none of parameters' })
    })

    it('filters by creation time', async () => {
      const tag = uniqueName('created')
      const old = await makeUser(t, { name: `${tag} old` })
      const recent = await makeUser(t, { name: `${tag} recent` })
      await t.ctx.db.updateTable('users').set({ created_at: Date.parse('2001-01-01T00:00:00Z') }).where('id', '=', old.user.id).execute()
      const before = await t.api('GET', '/users', { query: { search: tag, created_before: '2001-01-02T00:00:00Z' } })
      assert.deepEqual(idsOf(before), [old.user.id])
      const after = await t.api('GET', '/users', { query: { search: tag, created_after: '2001-01-02' } })
      assert.deepEqual(idsOf(after), [recent.user.id])
      const bad = await t.api('GET', '/users', { query: { created_before: 'yesterday' } })
      assert.equal(bad.status, 400)
      assert.deepEqual(bad.body, { error: 'created_before is invalid' })
    })

    it('orders by the admin extras order_by and sort, and ignores them for others', async () => {
      const tag = uniqueName('order')
      const zed = await makeUser(t, { username: `zed-${tag}`, name: `${tag} z` })
      const amy = await makeUser(t, { username: `amy-${tag}`, name: `${tag} a` })
      const mid = await makeUser(t, { username: `mid-${tag}`, name: `${tag} m` })
      const query = { search: tag, order_by: 'username', sort: 'asc' }
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query })), [amy.user.id, mid.user.id, zed.user.id])
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query: { search: tag, order_by: 'name' } })),
        [zed.user.id, mid.user.id, amy.user.id])
      const plain = await makeUser(t)
      assert.deepEqual(idsOf(await t.api('GET', '/users', { token: plain.token, query })), [mid.user.id, amy.user.id, zed.user.id])
      const bad = await t.api('GET', '/users', { query: { order_by: 'email' } })
      assert.equal(bad.status, 400)
      assert.deepEqual(bad.body, { error: 'order_by is invalid' })
    })

    it('filters by two-factor state for administrators', async () => {
      const tag = uniqueName('tfa')
      const enabled = await makeUser(t, { name: `${tag} on` })
      const disabled = await makeUser(t, { name: `${tag} off` })
      await t.ctx.db.updateTable('users').set({ two_factor_enabled: 1 }).where('id', '=', enabled.user.id).execute()
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query: { search: tag, two_factor: 'enabled' } })), [enabled.user.id])
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query: { search: tag, two_factor: 'disabled' } })), [disabled.user.id])
      const plain = await makeUser(t)
      const ignored = await t.api('GET', '/users', { token: plain.token, query: { search: tag, two_factor: 'enabled' } })
      assert.deepEqual(idsOf(ignored), [disabled.user.id, enabled.user.id])
    })

    it('filters by custom attributes and shows them, for administrators only', async () => {
      const tag = uniqueName('attr')
      const tagged = await makeUser(t, { name: `${tag} tagged` })
      const other = await makeUser(t, { name: `${tag} other` })
      await setAttribute(tagged.user.id, 'department', 'sales')
      await setAttribute(tagged.user.id, 'building', 'b1')
      await setAttribute(other.user.id, 'department', 'support')
      const filtered = await t.api('GET', `/users?search=${tag}&custom_attributes[department]=sales&with_custom_attributes=true`)
      assert.deepEqual(idsOf(filtered), [tagged.user.id])
      assert.deepEqual(filtered.body[0].custom_attributes, [{ key: 'building', value: 'b1' }, { key: 'department', value: 'sales' }])
      const plain = await makeUser(t)
      const ignored = await t.api('GET', `/users?search=${tag}&custom_attributes[department]=sales&with_custom_attributes=true`, { token: plain.token })
      assert.deepEqual(idsOf(ignored), [other.user.id, tagged.user.id])
      assert.equal(ignored.body[0].custom_attributes, undefined)
    })

    it('never lists the ghost user', async () => {
      const ghost = await ensureGhostUser(t.ctx.db, 'ingot.test')
      const res = await t.api('GET', '/users', { query: { per_page: 100 } })
      assert.ok(!idsOf(res).includes(ghost.id))
      assert.deepEqual(idsOf(await t.api('GET', '/users', { query: { username: ghost.username } })), [])
    })

    it('paginates', async () => {
      const tag = uniqueName('page')
      for (let i = 0; i < 3; i += 1) await makeUser(t, { name: `${tag} ${i}` })
      await expectPaginates({ t, path: `/users?search=${tag}`, token: t.root.token, total: 3 })
      await expectRejectsBadPagination(t, '/users', t.root.token)
    })
  })

  describe('GET /users/:id', () => {
    it('gives administrators the admin form, with custom attributes on request', async () => {
      const target = await makeUser(t, { extern_uid: uniqueName('x'), provider: 'saml' })
      await makeProject(t, target)
      await setAttribute(target.user.id, 'k', 'v')
      const res = await t.api('GET', `/users/${target.user.id}`, { query: { with_custom_attributes: true } })
      assert.equal(res.status, 200)
      assert.deepEqual(keysOf(res.body), [...USER_WITH_ADMIN_FIELDS, 'custom_attributes'].sort())
      assert.deepEqual(res.body.custom_attributes, [{ key: 'k', value: 'v' }])
      assert.equal(res.body.identities.length, 1)
      assert.equal(res.body.can_create_project, true)
      const plainRes = await t.api('GET', `/users/${target.user.id}`)
      assert.deepEqual(keysOf(plainRes.body), USER_WITH_ADMIN_FIELDS)
    })

    it('answers can_create_project false once the personal project limit is reached', async () => {
      const target = await makeUser(t, { projects_limit: 1 })
      await makeProject(t, target)
      assert.equal((await t.api('GET', `/users/${target.user.id}`)).body.can_create_project, false)
    })

    it('gives other callers, anonymous ones too, the single-user form', async () => {
      const target = await makeUser(t, { bio: 'A bio', location: 'Here', website_url: 'https://example.org' })
      await setAttribute(target.user.id, 'k', 'v')
      const plain = await makeUser(t)
      for (const token of [plain.token, null]) {
        const res = await t.api('GET', `/users/${target.user.id}`, { token, query: { with_custom_attributes: true } })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, {
          id: target.user.id,
          name: target.user.name,
          username: target.user.username,
          state: 'active',
          avatar_url: null,
          web_url: `${EXTERNAL_URL}/${target.user.username}`,
          created_at: new Date(target.user.created_at).toISOString(),
          bio: 'A bio',
          location: 'Here',
          public_email: '',
          messenger: '',
          professional_network: '',
          microblog: '',
          website_url: 'https://example.org',
          organization: null,
        })
      }
    })

    it('hides the creation date of a private profile from everyone but the user and administrators', async () => {
      const target = await makeUser(t, { private_profile: true })
      const other = await makeUser(t)
      for (const token of [other.token, null]) {
        const res = await t.api('GET', `/users/${target.user.id}`, { token })
        assert.equal(res.status, 200)
        assert.deepEqual(keysOf(res.body), USER_FIELDS.filter((field) => field !== 'created_at'))
      }
      for (const token of [target.token, t.root.token]) {
        const res = await t.api('GET', `/users/${target.user.id}`, { token })
        assert.equal(res.body.created_at, new Date(target.user.created_at).toISOString())
      }
    })

    it('answers 404 for missing users, the ghost and non-numeric ids', async () => {
      const ghost = await ensureGhostUser(t.ctx.db, 'ingot.test')
      for (const id of ['999999', String(ghost.id), 'root']) {
        const res = await t.api('GET', `/users/${id}`)
        assert.equal(res.status, 404, id)
        assert.deepEqual(res.body, USER_NOT_FOUND)
      }
    })
  })

  describe('GET /user', () => {
    it('gives the caller their own account in the admin form', async () => {
      const me = await makeUser(t)
      const res = await t.api('GET', '/user', { token: me.token })
      assert.equal(res.status, 200)
      assert.deepEqual(keysOf(res.body), USER_WITH_ADMIN_FIELDS)
      assert.equal(res.body.id, me.user.id)
      assert.equal(res.body.email, me.user.email)
      assert.equal(res.body.is_admin, false)
      assert.equal(res.body.last_activity_on, new Date().toISOString().slice(0, 10))
    })

    it('is the sudo target under sudo, and works with a read_user token', async () => {
      const target = await makeUser(t)
      const res = await t.api('GET', '/user', { headers: { sudo: target.user.username } })
      assert.equal(res.body.id, target.user.id)
      const readUser = await makeToken(t, target.user.id, ['read_user'])
      assert.equal((await t.api('GET', '/user', { token: readUser.token })).body.id, target.user.id)
    })

    it('answers 401 without credentials', async () => {
      const res = await t.api('GET', '/user', { token: null })
      assert.equal(res.status, 401)
      assert.deepEqual(res.body, { message: '401 Unauthorized' })
    })
  })

  describe('POST /users', () => {
    interface NewUserBody { email: string; username: string; name: string; password?: string; [field: string]: unknown }
    const newUser = (overrides: Record<string, unknown> = {}): NewUserBody => {
      const username = uniqueName('new')
      return { email: `${username}@example.com`, username, name: `New ${username}`, password: 'secret-password', ...overrides }
    }

    it('creates a user with every field and answers the admin form', async () => {
      const input = newUser({
        bio: 'bio', location: 'loc', messenger: 'm', professional_network: 'pn', microblog: 'mb', website_url: 'https://w.example',
        organization: 'org', projects_limit: 7, admin: true, can_create_group: false, external: true, private_profile: true,
        skip_confirmation: true, extern_uid: uniqueName('uid'), provider: 'ldapmain',
      })
      input.public_email = input.email
      const res = await t.api('POST', '/users', { body: input })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(keysOf(res.body), USER_WITH_ADMIN_FIELDS)
      const { id, created_at: createdAt, confirmed_at: confirmedAt, ...rest } = res.body
      assert.equal(typeof id, 'number')
      assert.equal(createdAt, confirmedAt)
      assert.deepEqual(rest, {
        name: input.name, username: input.username, state: 'active', avatar_url: null,
        web_url: `${EXTERNAL_URL}/${input.username}`, bio: 'bio', location: 'loc', public_email: input.email,
        messenger: 'm', professional_network: 'pn', microblog: 'mb', website_url: 'https://w.example', organization: 'org',
        last_sign_in_at: null, last_activity_on: null, email: input.email, theme_id: 1, color_scheme_id: 1,
        // An external user can create no groups and no personal projects, whatever was asked, as in the original.
        projects_limit: 0, current_sign_in_at: null, identities: [{ provider: 'ldapmain', extern_uid: input.extern_uid }],
        can_create_group: false, can_create_project: false, two_factor_enabled: false, external: true, private_profile: true,
        is_admin: true,
      })
      const row = await userRow(id)
      assert.ok(await passwordMatches(row!.password_digest, 'secret-password'))
      const namespace = await t.ctx.db.selectFrom('namespaces').selectAll().where('owner_id', '=', id).executeTakeFirstOrThrow()
      assert.deepEqual([namespace.kind, namespace.path, namespace.full_path, namespace.full_name], ['user', input.username, input.username, input.name])
    })

    it('gives external users no right to create groups or personal projects, as the original', async () => {
      const input = newUser({ external: true, can_create_group: true, projects_limit: 10 })
      const res = await t.api('POST', '/users', { body: input })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual([res.body.can_create_group, res.body.projects_limit, res.body.can_create_project], [false, 0, false])
      const row = await userRow(res.body.id)
      const { token } = await makeToken(t, row!.id)
      assert.equal((await t.api('POST', '/groups', { token, body: { name: 'ext', path: uniqueName('ext') } })).status, 403)
      assert.equal((await t.api('POST', '/projects', { token, body: { name: 'ext' } })).status, 403)
    })

    it('takes form-encoded parameters, and leaves unconfirmed users unconfirmed', async () => {
      const input = newUser()
      const res = await t.api('POST', '/users', {
        form: `email=${encodeURIComponent(input.email)}&username=${input.username}&name=Form+User&password=secret-password&admin=false&projects_limit=3`,
      })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.name, 'Form User')
      assert.equal(res.body.projects_limit, 3)
      assert.equal(res.body.confirmed_at, null)
      assert.equal(res.body.projects_limit, 3)
    })

    it('accepts reset_password instead of a password', async () => {
      const { password: _password, ...input } = newUser({ reset_password: true })
      const res = await t.api('POST', '/users', { body: input })
      assert.equal(res.status, 201, res.text)
      assert.notEqual((await userRow(res.body.id))!.password_digest, null)
    })

    it('needs a password or reset_password', async () => {
      const { password: _password, ...input } = newUser()
      const res = await t.api('POST', '/users', { body: input })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { error: 'password, reset_password are missing, at least one parameter must be provided' })
      const noPassword = await t.api('POST', '/users', { body: { ...input, reset_password: false } })
      assert.equal(noPassword.status, 400)
      assert.deepEqual(noPassword.body, { message: { password: ["can't be blank"] } })
    })

    it('answers 400 for missing and invalid fields', async () => {
      const { email: _email, ...noEmail } = newUser()
      assert.deepEqual((await t.api('POST', '/users', { body: noEmail })).body, { error: 'email is missing' })
      const invalid = await t.api('POST', '/users', { body: newUser({ email: 'not-an-email', username: '-bad', name: ' ', password: 'short' }) })
      assert.equal(invalid.status, 400)
      assert.deepEqual(Object.keys(invalid.body.message).sort(), ['email', 'name', 'password', 'username'])
      assert.deepEqual(invalid.body.message.password, ['is too short (minimum is 8 characters)'])
      assert.deepEqual(invalid.body.message.email, ['is invalid'])
      const notOwned = await t.api('POST', '/users', { body: newUser({ public_email: 'someone-else@example.com' }) })
      assert.deepEqual(notOwned.body, { message: { public_email: ['is not an email you own'] } })
      const negative = await t.api('POST', '/users', { body: newUser({ projects_limit: -1 }) })
      assert.deepEqual(negative.body, { message: { projects_limit: ['must be greater than or equal to 0'] } })
      const half = await t.api('POST', '/users', { body: newUser({ provider: 'ldapmain' }) })
      assert.deepEqual(half.body, { error: 'extern_uid, provider provide all or none of parameters' })
    })

    it('answers 409 for a taken email or username, and 400 for a username taken by a group', async () => {
      const existing = await makeUser(t)
      const email = await t.api('POST', '/users', { body: newUser({ email: existing.user.email.toUpperCase() }) })
      assert.equal(email.status, 409)
      assert.deepEqual(email.body, { message: 'Email has already been taken' })
      const username = await t.api('POST', '/users', { body: newUser({ username: existing.user.username.toUpperCase() }) })
      assert.equal(username.status, 409)
      assert.deepEqual(username.body, { message: 'Username has already been taken' })
      const group = await makeGroup(t)
      const groupClash = await t.api('POST', '/users', { body: newUser({ username: group.path }) })
      assert.equal(groupClash.status, 400)
      assert.deepEqual(groupClash.body, { message: { username: ['has already been taken'] } })
    })

    it('answers 400 when the external identity belongs to someone else', async () => {
      const uid = uniqueName('uid')
      await makeUser(t, { extern_uid: uid, provider: 'ldapmain' })
      const res = await t.api('POST', '/users', { body: newUser({ extern_uid: uid.toUpperCase(), provider: 'ldapmain' }) })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { extern_uid: ['has already been taken'] } })
    })

    it('is for administrators only', async () => {
      const plain = await makeUser(t)
      const res = await t.api('POST', '/users', { token: plain.token, body: newUser() })
      assert.equal(res.status, 403)
      assert.deepEqual(res.body, FORBIDDEN)
      assert.equal((await t.api('POST', '/users', { token: null, body: newUser() })).status, 401)
    })
  })

  describe('PUT /users/:id', () => {
    it('updates fields and answers the admin form', async () => {
      const target = await makeUser(t)
      const res = await t.api('PUT', `/users/${target.user.id}`, {
        body: { bio: 'new bio', organization: 'Org', projects_limit: 5, can_create_group: false, external: false, admin: true, private_profile: true },
      })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), USER_WITH_ADMIN_FIELDS)
      assert.deepEqual(
        [res.body.bio, res.body.organization, res.body.projects_limit, res.body.can_create_group, res.body.external, res.body.is_admin, res.body.private_profile],
        ['new bio', 'Org', 5, false, false, true, true],
      )
      assert.equal(res.body.name, target.user.name)
    })

    it('takes the rights to create groups and personal projects from a user made external', async () => {
      const target = await makeUser(t)
      const res = await t.api('PUT', `/users/${target.user.id}`, { body: { external: true } })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual([res.body.external, res.body.can_create_group, res.body.projects_limit], [true, false, 0])
      const raised = await t.api('PUT', `/users/${target.user.id}`, { body: { projects_limit: 5, can_create_group: true } })
      assert.deepEqual([raised.body.can_create_group, raised.body.projects_limit], [false, 0])
    })

    it('renames the personal namespace with the username and its full name with the name', async () => {
      const target = await makeUser(t)
      const project = await makeProject(t, target)
      const username = uniqueName('Renamed')
      const res = await t.api('PUT', `/users/${target.user.id}`, { body: { username, name: 'Renamed Person' } })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.username, username)
      assert.equal(res.body.web_url, `${EXTERNAL_URL}/${username}`)
      const namespace = await t.ctx.db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
      assert.deepEqual(
        [namespace.name, namespace.path, namespace.full_path, namespace.full_path_lower, namespace.full_name],
        [username, username, username, username.toLowerCase(), 'Renamed Person'],
      )
      const row = await userRow(target.user.id)
      assert.equal(row!.username_lower, username.toLowerCase())
    })

    it('changes the email, and the password with a forced change at next sign-in', async () => {
      const target = await makeUser(t)
      const email = `${uniqueName('changed')}@example.com`
      const res = await t.api('PUT', `/users/${target.user.id}`, { body: { email, password: 'another-password', skip_reconfirmation: true } })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.email, email)
      const row = await userRow(target.user.id)
      assert.equal(row!.email_lower, email.toLowerCase())
      assert.ok(await passwordMatches(row!.password_digest, 'another-password'))
      assert.ok(row!.password_expires_at !== null && Math.abs(row!.password_expires_at - Date.now()) < 60_000)
    })

    it('sets the identity of a provider', async () => {
      const target = await makeUser(t)
      const first = await t.api('PUT', `/users/${target.user.id}`, { body: { provider: 'github', extern_uid: 'gh-1' } })
      assert.deepEqual(first.body.identities, [{ provider: 'github', extern_uid: 'gh-1' }])
      const second = await t.api('PUT', `/users/${target.user.id}`, { body: { provider: 'github', extern_uid: 'gh-2' } })
      assert.deepEqual(second.body.identities, [{ provider: 'github', extern_uid: 'gh-2' }])
      const other = await makeUser(t)
      const clash = await t.api('PUT', `/users/${other.user.id}`, { body: { provider: 'github', extern_uid: 'gh-2' } })
      assert.equal(clash.status, 400)
      assert.deepEqual(clash.body, { message: { extern_uid: ['has already been taken'] } })
    })

    it('answers 404 with a message for a taken email or username, as the original does', async () => {
      const target = await makeUser(t)
      const other = await makeUser(t)
      const email = await t.api('PUT', `/users/${target.user.id}`, { body: { email: other.user.email } })
      assert.equal(email.status, 404)
      assert.deepEqual(email.body, { message: 'Email has already been taken' })
      const username = await t.api('PUT', `/users/${target.user.id}`, { body: { username: other.user.username.toUpperCase() } })
      assert.equal(username.status, 404)
      assert.deepEqual(username.body, { message: 'Username has already been taken' })
      const own = await t.api('PUT', `/users/${target.user.id}`, { body: { username: target.user.username.toUpperCase() } })
      assert.equal(own.status, 200)
    })

    it('answers 400 for invalid fields and a username taken by a group', async () => {
      const target = await makeUser(t)
      const group = await makeGroup(t)
      const res = await t.api('PUT', `/users/${target.user.id}`, { body: { username: group.path } })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { username: ['has already been taken'] } })
      const invalid = await t.api('PUT', `/users/${target.user.id}`, { body: { email: 'nope', password: 'short', name: '' } })
      assert.deepEqual(invalid.body, {
        message: { email: ['is invalid'], name: ["can't be blank"], password: ['is too short (minimum is 8 characters)'] },
      })
      const typed = await t.api('PUT', `/users/${target.user.id}`, { body: { projects_limit: 'many' } })
      assert.deepEqual(typed.body, { error: 'projects_limit is invalid' })
    })

    it('is for administrators only, and 404 for missing users', async () => {
      const target = await makeUser(t)
      const denied = await t.api('PUT', `/users/${target.user.id}`, { token: target.token, body: { bio: 'x' } })
      assert.equal(denied.status, 403)
      assert.equal((await t.api('PUT', `/users/${target.user.id}`, { token: null, body: { bio: 'x' } })).status, 401)
      const missing = await t.api('PUT', '/users/999999', { body: { bio: 'x' } })
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, USER_NOT_FOUND)
    })
  })

  describe('POST /users/:id/block and /unblock', () => {
    it('blocks and unblocks, answering whether the state changed', async () => {
      const target = await makeUser(t)
      const block = await t.api('POST', `/users/${target.user.id}/block`)
      assert.equal(block.status, 201)
      assert.equal(block.text, 'true')
      assert.equal((await userRow(target.user.id))!.state, 'blocked')
      const refused = await t.api('GET', '/user', { token: target.token })
      assert.equal(refused.status, 403)
      assert.equal((await t.api('POST', `/users/${target.user.id}/block`)).text, 'false')
      const unblock = await t.api('POST', `/users/${target.user.id}/unblock`)
      assert.equal(unblock.status, 201)
      assert.equal(unblock.text, 'true')
      assert.equal((await t.api('GET', '/user', { token: target.token })).status, 200)
      assert.equal((await t.api('POST', `/users/${target.user.id}/unblock`)).text, 'false')
    })

    it('is for administrators only, and 404 for missing users', async () => {
      const target = await makeUser(t)
      for (const action of ['block', 'unblock']) {
        assert.equal((await t.api('POST', `/users/${target.user.id}/${action}`, { token: target.token })).status, 403)
        assert.equal((await t.api('POST', `/users/${target.user.id}/${action}`, { token: null })).status, 401)
        const missing = await t.api('POST', `/users/999999/${action}`)
        assert.equal(missing.status, 404)
        assert.deepEqual(missing.body, USER_NOT_FOUND)
      }
    })
  })

  describe('user status', () => {
    const NO_STATUS = { emoji: null, message: null, message_html: '' }

    it('shows an unset status as nulls and an empty message_html', async () => {
      const me = await makeUser(t)
      const res = await t.api('GET', '/user/status', { token: me.token })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, NO_STATUS)
    })

    it('sets a status, with the default emoji when only a message is given, and clears it', async () => {
      const me = await makeUser(t)
      const set = await t.api('PUT', '/user/status', { token: me.token, body: { message: 'Out <sick> & "away"' } })
      assert.equal(set.status, 200)
      assert.deepEqual(set.body, {
        emoji: 'speech_balloon',
        message: 'Out <sick> & "away"',
        message_html: '<p dir="auto">Out &lt;sick&gt; &amp; &quot;away&quot;</p>',
      })
      const emojiOnly = await t.api('PUT', '/user/status', { token: me.token, body: { emoji: 'coffee' } })
      assert.deepEqual(emojiOnly.body, { emoji: 'coffee', message: null, message_html: '' })
      assert.deepEqual((await t.api('GET', '/user/status', { token: me.token })).body, emojiOnly.body)
      const cleared = await t.api('PUT', '/user/status', { token: me.token, body: { emoji: '', message: '' } })
      assert.deepEqual(cleared.body, NO_STATUS)
      assert.deepEqual((await t.api('GET', '/user/status', { token: me.token })).body, NO_STATUS)
    })

    it('answers 400 for a message too long or a malformed emoji', async () => {
      const me = await makeUser(t)
      const long = await t.api('PUT', '/user/status', { token: me.token, body: { message: 'x'.repeat(101) } })
      assert.equal(long.status, 400)
      assert.deepEqual(long.body, { message: { message: ['is too long (maximum is 100 characters)'] } })
      const emoji = await t.api('PUT', '/user/status', { token: me.token, body: { emoji: 'Not An Emoji!' } })
      assert.deepEqual(emoji.body, { message: { emoji: ['is not included in the list'] } })
    })

    it("shows anyone a user's status by id or username", async () => {
      const target = await makeUser(t)
      await t.api('PUT', '/user/status', { token: target.token, body: { emoji: 'tada', message: 'Shipped' } })
      const expected = { emoji: 'tada', message: 'Shipped', message_html: '<p dir="auto">Shipped</p>' }
      for (const id of [String(target.user.id), target.user.username.toUpperCase()]) {
        const res = await t.api('GET', `/users/${id}/status`, { token: null })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, expected)
      }
      const missing = await t.api('GET', '/users/no-such-user-here/status', { token: null })
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, USER_NOT_FOUND)
    })

    it('needs a caller for the own status', async () => {
      assert.equal((await t.api('GET', '/user/status', { token: null })).status, 401)
      assert.equal((await t.api('PUT', '/user/status', { token: null, body: { message: 'x' } })).status, 401)
    })
  })

  describe('DELETE /users/:id', () => {
    it('moves contributions to the ghost user and removes projects, memberships and tokens', async () => {
      const doomed = await makeUser(t)
      const project = await makeProject(t, doomed)
      const otherOwner = await makeUser(t)
      const group = await makeGroup(t, {}, otherOwner)
      const groupProject = await makeProject(t, otherOwner, { namespace: group })
      await makeMember(t, { type: 'group', id: group.id }, doomed, DEVELOPER)
      await makeMember(t, { type: 'project', id: groupProject.id }, doomed, DEVELOPER)
      await t.ctx.db.insertInto('stars').values({ user_id: doomed.user.id, project_id: groupProject.id, created_at: Date.now() }).execute()
      await t.ctx.db.updateTable('projects').set({ star_count: 1 }).where('id', '=', groupProject.id).execute()
      await setAttribute(doomed.user.id, 'k', 'v')
      const issue = await t.api('POST', `/projects/${groupProject.id}/issues`, { token: doomed.token, body: { title: 'Left behind' } })
      assert.equal(issue.status, 201, issue.text)
      const note = await t.api('POST', `/projects/${groupProject.id}/issues/${issue.body.iid}/notes`, { token: doomed.token, body: { body: 'Mine' } })
      assert.equal(note.status, 201, note.text)
      const events = await t.ctx.db.selectFrom('events').select('id').where('author_id', '=', doomed.user.id)
        .where('project_id', '=', groupProject.id).execute()
      assert.equal(events.length, 3)
      const repository = t.ctx.repositories.repositoryPath(project.id)
      assert.ok(fs.existsSync(repository))

      const res = await t.api('DELETE', `/users/${doomed.user.id}`)
      assert.equal(res.status, 204)
      assert.equal(res.text, '')

      const { db } = t.ctx
      assert.equal(await userRow(doomed.user.id), undefined)
      const ghost = await db.selectFrom('users').selectAll().where('ghost', '=', 1).executeTakeFirstOrThrow()
      assert.deepEqual([ghost.name, ghost.state, ghost.password_digest], ['Ghost User', 'blocked', null])
      assert.match(ghost.username, /^ghost\d*$/)
      const moved = await db.selectFrom('events').select(['id', 'author_id']).where('id', 'in', events.map((e) => e.id)).execute()
      assert.deepEqual(moved.map((e) => e.author_id), [ghost.id, ghost.id, ghost.id])
      const movedIssue = await t.api('GET', `/projects/${groupProject.id}/issues/${issue.body.iid}`)
      assert.equal(movedIssue.body.author.id, ghost.id, 'the issue stays, authored by the ghost')
      const movedNote = await t.api('GET', `/projects/${groupProject.id}/issues/${issue.body.iid}/notes/${note.body.id}`)
      assert.equal(movedNote.body.author.id, ghost.id)
      assert.equal(await db.selectFrom('projects').select('id').where('id', '=', project.id).executeTakeFirst(), undefined)
      assert.equal(fs.existsSync(repository), false)
      assert.equal(await db.selectFrom('namespaces').select('id').where('owner_id', '=', doomed.user.id).executeTakeFirst(), undefined)
      assert.deepEqual(await db.selectFrom('members').select('id').where('user_id', '=', doomed.user.id).execute(), [])
      assert.deepEqual(await db.selectFrom('access_tokens').select('id').where('user_id', '=', doomed.user.id).execute(), [])
      assert.deepEqual(await db.selectFrom('custom_attributes').select('id').where('subject_type', '=', 'user')
        .where('subject_id', '=', doomed.user.id).execute(), [])
      const starred = await db.selectFrom('projects').select('star_count').where('id', '=', groupProject.id).executeTakeFirstOrThrow()
      assert.equal(starred.star_count, 0)
      assert.equal((await t.api('GET', '/user', { token: doomed.token })).status, 401)
      assert.equal((await t.api('GET', `/users/${doomed.user.id}`)).status, 404)

      const second = await makeUser(t)
      await makeProject(t, second)
      assert.equal((await t.api('DELETE', `/users/${second.user.id}`)).status, 204)
      const ghosts = await db.selectFrom('users').select('id').where('ghost', '=', 1).execute()
      assert.deepEqual(ghosts.map((g) => g.id), [ghost.id])
    })

    it('answers 409 while the user alone owns a group', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, {}, owner)
      const res = await t.api('DELETE', `/users/${owner.user.id}`)
      assert.equal(res.status, 409)
      assert.deepEqual(res.body, { message: 'You must transfer ownership or delete groups before you can remove user' })
      assert.notEqual(await userRow(owner.user.id), undefined)
      const coOwner = await makeUser(t)
      await makeMember(t, { type: 'group', id: group.id }, coOwner, OWNER)
      assert.equal((await t.api('DELETE', `/users/${owner.user.id}`)).status, 204)
      assert.notEqual(await t.ctx.db.selectFrom('namespaces').select('id').where('id', '=', group.id).executeTakeFirst(), undefined)
    })

    it('with hard_delete deletes contributions and the groups the user alone owns', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, {}, owner)
      const subgroup = await makeGroup(t, { parent: group }, owner)
      const project = await makeProject(t, owner, { namespace: subgroup })
      const bystander = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, bystander, DEVELOPER)
      const otherGroup = await makeGroup(t)
      const otherProject = await makeProject(t, null, { namespace: otherGroup })
      await makeMember(t, { type: 'project', id: otherProject.id }, owner, DEVELOPER)
      const repository = t.ctx.repositories.repositoryPath(project.id)

      const res = await t.api('DELETE', `/users/${owner.user.id}`, { query: { hard_delete: true } })
      assert.equal(res.status, 204)
      const { db } = t.ctx
      assert.deepEqual(await db.selectFrom('namespaces').select('id').where('id', 'in', [group.id, subgroup.id]).execute(), [])
      assert.equal(await db.selectFrom('projects').select('id').where('id', '=', project.id).executeTakeFirst(), undefined)
      assert.equal(fs.existsSync(repository), false)
      assert.deepEqual(await db.selectFrom('members').select('id').where('source_type', '=', 'project')
        .where('source_id', '=', project.id).execute(), [])
      assert.deepEqual(await db.selectFrom('events').select('id').where('author_id', '=', owner.user.id).execute(), [])
      assert.equal(await db.selectFrom('events').select('id').where('project_id', '=', otherProject.id)
        .where('action', '=', 'joined').executeTakeFirst(), undefined)
      assert.notEqual(await db.selectFrom('projects').select('id').where('id', '=', otherProject.id).executeTakeFirst(), undefined)
    })

    it('takes hard_delete from a JSON body too, where clients such as @gitbeaker/rest send it', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, {}, owner)
      const res = await t.api('DELETE', `/users/${owner.user.id}`, { body: { hard_delete: true } })
      assert.equal(res.status, 204)
      assert.equal(await userRow(owner.user.id), undefined)
      assert.equal(await t.ctx.db.selectFrom('namespaces').select('id').where('id', '=', group.id).executeTakeFirst(), undefined)
    })

    it('is for administrators only, and 404 for missing users', async () => {
      const target = await makeUser(t)
      const denied = await t.api('DELETE', `/users/${target.user.id}`, { token: target.token })
      assert.equal(denied.status, 403)
      assert.deepEqual(denied.body, FORBIDDEN)
      assert.equal((await t.api('DELETE', `/users/${target.user.id}`, { token: null })).status, 401)
      const missing = await t.api('DELETE', '/users/999999')
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, USER_NOT_FOUND)
    })
  })
})

describe('the ghost user', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  it('is created on first need, as ghost1 when ghost is taken', async () => {
    await makeUser(t, { username: 'ghost', email: 'ghost@ingot.test' })
    const doomed = await makeUser(t)
    assert.equal((await t.api('DELETE', `/users/${doomed.user.id}`)).status, 204)
    const ghost = await t.ctx.db.selectFrom('users').selectAll().where('ghost', '=', 1).executeTakeFirstOrThrow()
    assert.deepEqual([ghost.username, ghost.email, ghost.projects_limit], ['ghost1', 'ghost1@ingot.test', 0])
    const namespace = await t.ctx.db.selectFrom('namespaces').selectAll().where('owner_id', '=', ghost.id).executeTakeFirstOrThrow()
    assert.equal(namespace.full_path, 'ghost1')
  })
})
