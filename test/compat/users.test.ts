// @gitbeaker/rest against a real Ingot socket: users (list with filters and page following, single
// users, the current user, create, edit as the multipart form gitbeaker sends, remove, block),
// user status, SSH keys, impersonation tokens and user custom attributes.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import sshpk from 'sshpk'
import { expectStatus, startCompatServer, untypedParams, type Client, type CompatServer } from './server.js'
import { makeGroup, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'

/** A fresh OpenSSH ed25519 public key line. */
function makeSshKey(comment: string): string {
  const { publicKey } = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  const key = sshpk.parseKey(publicKey, 'pem')
  key.comment = comment
  return key.toString('ssh')
}

const idsOf = (list: readonly { id: number }[]) => list.map((item) => item.id)

describe('compat: users', () => {
  let server: CompatServer
  let root: Client
  let alice: TestUser
  let asAlice: Client

  before(async () => {
    server = await startCompatServer()
    root = server.client()
    alice = await makeUser(server.t, { username: uniqueName('Alice') })
    asAlice = server.client(alice.token)
  })
  after(async () => { await server.close() })

  describe('Users.all', () => {
    it('follows every page, stops at maxPages, and reports paginationInfo', async () => {
      for (let i = 0; i < 4; i += 1) await makeUser(server.t)
      const expected = (await server.t.ctx.db.selectFrom('users').select('id').where('ghost', '=', 0).orderBy('id', 'desc').execute())
        .map((u) => u.id)
      assert.ok(expected.length > 4)

      assert.deepEqual(idsOf(await root.Users.all({ perPage: 2 })), expected)
      assert.deepEqual(idsOf(await root.Users.all({ perPage: 2, maxPages: 2 })), expected.slice(0, 4))

      const expanded = await root.Users.all({ perPage: 2, maxPages: 1, showExpanded: true })
      assert.deepEqual(idsOf(expanded.data), expected.slice(0, 2))
      assert.deepEqual(expanded.paginationInfo, {
        total: expected.length, next: 2, current: 1, previous: null, perPage: 2, totalPages: Math.ceil(expected.length / 2),
      })

      // An explicit page is one page: gitbeaker does not follow the links then.
      const second = await root.Users.all({ perPage: 2, page: 2, showExpanded: true })
      assert.deepEqual(idsOf(second.data), expected.slice(2, 4))
      assert.equal(second.paginationInfo.current, 2)
      assert.equal(second.paginationInfo.previous, 1)
    })

    it('filters by username, search, state, creation time and custom attributes', async () => {
      const bob = await makeUser(server.t, { username: uniqueName('Bob') })
      const blocked = await makeUser(server.t)
      await root.Users.block(blocked.user.id)
      await root.UserCustomAttributes.set(bob.user.id, 'team', 'compat')

      assert.deepEqual(idsOf(await root.Users.all({ username: bob.user.username.toUpperCase() })), [bob.user.id])
      assert.deepEqual(idsOf(await root.Users.all({ search: bob.user.username })), [bob.user.id])
      assert.ok(idsOf(await root.Users.all({ blocked: true })).includes(blocked.user.id))
      assert.ok(!idsOf(await root.Users.all({ active: true })).includes(blocked.user.id))

      const later = await root.Users.all({ createdAfter: new Date(bob.user.created_at).toISOString(), orderBy: 'username', sort: 'asc' })
      const laterNames = later.map((u) => u.username)
      assert.ok(laterNames.includes(bob.user.username) && !laterNames.includes('root'))
      assert.deepEqual(laterNames, [...laterNames].sort())
      assert.ok(!idsOf(await root.Users.all({ createdBefore: new Date(bob.user.created_at - 1).toISOString() })).includes(bob.user.id))

      const tagged = await root.Users.all({ customAttributes: { team: 'compat' }, withCustomAttributes: true })
      assert.deepEqual(idsOf(tagged), [bob.user.id])
      assert.deepEqual(tagged[0]!.custom_attributes, [{ key: 'team', value: 'compat' }])
    })

    it('finds identities for administrators only', async () => {
      const created = await root.Users.create({
        email: `${uniqueName('ldap')}@example.com`, username: uniqueName('ldap'), name: 'Ldap User', password: 'password-1234',
        externUid: 'uid=compat', provider: 'ldapmain',
      })
      assert.deepEqual(idsOf(await root.Users.all({ externUid: 'uid=compat', provider: 'ldapmain' })), [created.id])
      await expectStatus(asAlice.Users.all({ externUid: 'uid=compat', provider: 'ldapmain' }), 403)
    })

    it('gives administrators the admin form and others the basic form', async () => {
      const [asAdmin] = await root.Users.all({ username: alice.user.username })
      assert.equal(asAdmin!.email, alice.user.email)
      assert.equal(asAdmin!.is_admin, false)
      const [asUser] = await asAlice.Users.all({ username: 'root' })
      assert.deepEqual(Object.keys(asUser!).sort(), ['avatar_url', 'id', 'name', 'state', 'username', 'web_url'])
      assert.equal(asUser!.web_url, `${server.url}/root`)
    })

    it('refuses anonymous listing but answers an anonymous username lookup', async () => {
      const anonymous = server.client(null)
      await expectStatus(anonymous.Users.all(), 403)
      assert.deepEqual(idsOf(await anonymous.Users.all({ username: alice.user.username })), [alice.user.id])
    })
  })

  describe('Users.show and showCurrentUser', () => {
    it('shows a user: the admin form to administrators, the public form to others', async () => {
      const shown = await root.Users.show(alice.user.id)
      assert.equal(shown.username, alice.user.username)
      assert.equal(shown.email, alice.user.email)
      assert.equal(shown.is_admin, false)
      const asOther = await server.client((await makeUser(server.t)).token).Users.show(alice.user.id)
      assert.equal(asOther.username, alice.user.username)
      assert.equal('email' in asOther, false)
      assert.equal('is_admin' in asOther, false)
      await expectStatus(root.Users.show(999999), 404)
    })

    it('shows the current user in the admin form', async () => {
      const me = await root.Users.showCurrentUser()
      assert.equal(me.username, 'root')
      assert.equal(me.is_admin, true)
      const self = await asAlice.Users.showCurrentUser()
      assert.equal(self.id, alice.user.id)
      assert.equal(self.email, alice.user.email)
      assert.equal(self.can_create_project, true)
      await expectStatus(server.client(null).Users.showCurrentUser(), 401)
    })
  })

  describe('Users.create, edit and remove', () => {
    it('creates a user with 201 and answers the admin form', async () => {
      const username = uniqueName('Created')
      const response = await root.Users.create({
        email: `${username}@example.com`, username, name: 'Created User', password: 'password-1234', skipConfirmation: true,
        projectsLimit: 7, canCreateGroup: false, bio: 'about', location: 'here', websiteUrl: 'https://example.com',
        showExpanded: true,
      })
      assert.equal(response.status, 201)
      const created = response.data
      assert.equal(created.username, username)
      assert.equal(created.email, `${username}@example.com`)
      assert.equal(created.state, 'active')
      assert.equal(created.projects_limit, 7)
      assert.equal(created.can_create_group, false)
      assert.equal(created.external, false)
      assert.equal(created.bio, 'about')
      assert.equal(created.website_url, 'https://example.com')
      assert.equal(typeof created.confirmed_at, 'string')
    })

    it('answers 409 for a taken email, 400 for a missing field, 403 for non-admins', async () => {
      const message = await expectStatus(root.Users.create({
        email: alice.user.email, username: uniqueName('dup'), name: 'Dup', password: 'password-1234',
      }), 409)
      assert.equal(message, 'Email has already been taken')
      assert.equal(await expectStatus(root.Users.create({ username: uniqueName('x'), name: 'X', password: 'password-1234' }), 400), 'email is missing')
      await expectStatus(asAlice.Users.create({
        email: `${uniqueName('n')}@example.com`, username: uniqueName('n'), name: 'N', password: 'password-1234',
      }), 403)
    })

    it('edits a user through the multipart form gitbeaker sends', async () => {
      const target = await makeUser(server.t)
      // gitbeaker's edit sends multipart/form-data without turning camelCase keys into snake_case
      // (jdalrymple/gitbeaker#3844), so multi-word fields are given the way the API names them.
      const snakeCaseFields = { projects_limit: 3, can_create_group: false }
      const edited = await root.Users.edit(target.user.id, { name: 'Renamed', bio: 'edited bio', admin: true, ...snakeCaseFields })
      assert.equal(edited.name, 'Renamed')
      assert.equal(edited.bio, 'edited bio')
      assert.equal(edited.is_admin, true)
      assert.equal(edited.projects_limit, 3)
      assert.equal(edited.can_create_group, false)
      const row = await server.t.ctx.db.selectFrom('users').selectAll().where('id', '=', target.user.id).executeTakeFirstOrThrow()
      assert.deepEqual([row.name, row.admin, row.projects_limit], ['Renamed', 1, 3])

      await expectStatus(asAlice.Users.edit(target.user.id, { name: 'Nope' }), 403)
      await expectStatus(root.Users.edit(999999, { name: 'Nobody' }), 404)
    })

    it('removes a user with 204, and with hardDelete the groups they alone own', async () => {
      const plain = await makeUser(server.t)
      assert.equal(await root.Users.remove(plain.user.id), null)
      await expectStatus(root.Users.show(plain.user.id), 404)

      const owner = await makeUser(server.t)
      const group = await makeGroup(server.t, {}, owner)
      await expectStatus(root.Users.remove(owner.user.id), 409)
      await root.Users.remove(owner.user.id, { hardDelete: true })
      await expectStatus(root.Users.show(owner.user.id), 404)
      await expectStatus(root.Groups.show(group.id), 404)

      await expectStatus(asAlice.Users.remove(alice.user.id), 403)
      await expectStatus(root.Users.remove(999999), 404)
    })
  })

  describe('Users.block and unblock', () => {
    it('blocks and unblocks with 201 true, and a blocked user is refused', async () => {
      const target = await makeUser(server.t)
      const blocked = await root.Users.block(target.user.id, { showExpanded: true })
      assert.deepEqual([blocked.status, blocked.data], [201, true])
      assert.equal((await root.Users.show(target.user.id)).state, 'blocked')
      await expectStatus(server.client(target.token).Users.showCurrentUser(), 403)

      assert.equal(await root.Users.unblock(target.user.id), true)
      assert.equal((await root.Users.show(target.user.id)).state, 'active')
      assert.equal((await server.client(target.token).Users.showCurrentUser()).id, target.user.id)

      await expectStatus(asAlice.Users.block(target.user.id), 403)
      await expectStatus(root.Users.unblock(999999), 404)
    })
  })

  describe('user status', () => {
    it('sets the own status and shows it by id, username and for the current user', async () => {
      const status = await asAlice.Users.editStatus({ emoji: 'coffee', message: 'brewing' })
      assert.deepEqual(status, { emoji: 'coffee', message: 'brewing', message_html: status.message_html })
      assert.match(status.message_html, /brewing/)
      assert.equal((await asAlice.Users.showStatus()).emoji, 'coffee')
      assert.equal((await root.Users.showStatus({ iDOrUsername: alice.user.username })).message, 'brewing')
      assert.equal((await server.client(null).Users.showStatus({ iDOrUsername: alice.user.id })).message, 'brewing')

      const cleared = await asAlice.Users.editStatus({})
      assert.deepEqual([cleared.emoji, cleared.message], [null, null])
      await expectStatus(server.client(null).Users.showStatus(), 401)
    })
  })

  describe('UserSSHKeys', () => {
    it('adds, lists, shows and removes the current user\'s keys', async () => {
      const line = makeSshKey('alice@laptop')
      const response = await asAlice.UserSSHKeys.create('laptop', line, { showExpanded: true })
      assert.equal(response.status, 201)
      const key = response.data
      assert.deepEqual([key.title, key.key], ['laptop', line])
      assert.equal(typeof key.created_at, 'string')

      assert.deepEqual(idsOf(await asAlice.UserSSHKeys.all()), [key.id])
      assert.equal((await asAlice.UserSSHKeys.show(key.id)).key, line)
      assert.deepEqual(idsOf(await server.client(null).UserSSHKeys.all({ userId: alice.user.id })), [key.id])

      await expectStatus(asAlice.UserSSHKeys.create('again', line), 400)
      await expectStatus(asAlice.UserSSHKeys.create('junk', 'ssh-rsa not-a-key'), 400)

      assert.equal(await asAlice.UserSSHKeys.remove(key.id), null)
      await expectStatus(asAlice.UserSSHKeys.show(key.id), 404)
    })

    it("lets administrators add and remove any user's keys", async () => {
      const owner = await makeUser(server.t)
      const key = await root.UserSSHKeys.create('deploy', makeSshKey('ops'), { userId: owner.user.id })
      assert.deepEqual(idsOf(await root.UserSSHKeys.all({ userId: owner.user.id })), [key.id])
      // GET /users/:id/keys/:key_id (gitbeaker's show with userId) came after 11.5; a user's own
      // key is read through /user/keys/:key_id.
      assert.equal((await server.client(owner.token).UserSSHKeys.show(key.id)).title, 'deploy')
      await expectStatus(asAlice.UserSSHKeys.create('nope', makeSshKey('x'), { userId: owner.user.id }), 403)
      await expectStatus(asAlice.UserSSHKeys.remove(key.id, { userId: owner.user.id }), 403)
      assert.equal(await root.UserSSHKeys.remove(key.id, { userId: owner.user.id }), null)
      assert.deepEqual(await root.UserSSHKeys.all({ userId: owner.user.id }), [])
    })
  })

  describe('UserImpersonationTokens', () => {
    it('creates a usable token, lists, shows and revokes it', async () => {
      const target = await makeUser(server.t)
      const response = await root.UserImpersonationTokens.create(target.user.id, 'support', ['api', 'read_user'], {
        expiresAt: '2099-01-31', showExpanded: true,
      })
      assert.equal(response.status, 201)
      const token = response.data
      assert.equal(token.name, 'support')
      assert.deepEqual(token.scopes, ['api', 'read_user'])
      assert.equal(token.impersonation, true)
      assert.equal(token.active, true)
      assert.equal(token.revoked, false)
      assert.equal(token.expires_at, '2099-01-31')
      assert.equal(typeof token.token, 'string')

      const asTarget = server.client(token.token)
      assert.equal((await asTarget.Users.showCurrentUser()).id, target.user.id)

      const listed = await root.UserImpersonationTokens.all(target.user.id)
      assert.deepEqual(idsOf(listed), [token.id])
      assert.equal('token' in listed[0]!, false)
      assert.equal((await root.UserImpersonationTokens.show(target.user.id, token.id)).name, 'support')

      assert.equal(await root.UserImpersonationTokens.revoke(target.user.id, token.id), null)
      const revoked = await root.UserImpersonationTokens.show(target.user.id, token.id)
      assert.deepEqual([revoked.revoked, revoked.active], [true, false])
      await expectStatus(asTarget.Users.showCurrentUser(), 401)
      await expectStatus(root.UserImpersonationTokens.remove(target.user.id, 999999), 404)
    })

    it('filters by state, validates scopes and is for administrators only', async () => {
      const target = await makeUser(server.t)
      const active = await root.UserImpersonationTokens.create(target.user.id, 'active', ['api'])
      const gone = await root.UserImpersonationTokens.create(target.user.id, 'gone', ['api'])
      await root.UserImpersonationTokens.remove(target.user.id, gone.id)
      const byState = (state: string) => root.UserImpersonationTokens.all(target.user.id, untypedParams({ state }))
      assert.deepEqual(idsOf(await byState('active')), [active.id])
      assert.deepEqual(idsOf(await byState('inactive')), [gone.id])

      await expectStatus(root.UserImpersonationTokens.create(target.user.id, 'bad', ['everything' as never]), 400)
      await expectStatus(asAlice.UserImpersonationTokens.all(target.user.id), 403)
      await expectStatus(asAlice.UserImpersonationTokens.create(target.user.id, 'x', ['api']), 403)
    })
  })

  describe('UserCustomAttributes', () => {
    it('sets, lists, shows and removes attributes, for administrators only', async () => {
      const target = await makeUser(server.t)
      assert.deepEqual(await root.UserCustomAttributes.set(target.user.id, 'location', 'lab'), { key: 'location', value: 'lab' })
      assert.deepEqual(await root.UserCustomAttributes.set(target.user.id, 'location', 'office'), { key: 'location', value: 'office' })
      assert.deepEqual(await root.UserCustomAttributes.all(target.user.id), [{ key: 'location', value: 'office' }])
      assert.deepEqual(await root.UserCustomAttributes.show(target.user.id, 'location'), { key: 'location', value: 'office' })
      assert.deepEqual((await root.Users.show(target.user.id, untypedParams({ withCustomAttributes: true }))).custom_attributes,
        [{ key: 'location', value: 'office' }])

      await expectStatus(asAlice.UserCustomAttributes.all(target.user.id), 403)
      await expectStatus(asAlice.UserCustomAttributes.set(target.user.id, 'location', 'x'), 403)
      assert.equal(await root.UserCustomAttributes.remove(target.user.id, 'location'), null)
      await expectStatus(root.UserCustomAttributes.show(target.user.id, 'location'), 404)
      await expectStatus(root.UserCustomAttributes.remove(target.user.id, 'location'), 404)
      await expectStatus(root.UserCustomAttributes.all(999999), 404)
    })
  })
})
