// @gitbeaker/rest against a real Ingot socket: how its credentials reach Ingot (token as
// Private-Token, oauthToken as Bearer, none), what failing credentials answer, token scopes, and
// sudo through gitbeaker's client-wide and per-call `sudo` option.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { GitbeakerRequestError } from '@gitbeaker/rest'
import { expectStatus, startCompatServer, type Client, type CompatServer } from './server.js'
import { blockUser, makeProject, makeToken, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'
import { revokeAccessToken } from '../../src/services/access-tokens/revoke-access-token.js'

/** The response of a call that must fail (gitbeaker has read its body into the error's message). */
async function failedResponse(call: Promise<unknown>): Promise<{ message: string; response: Response }> {
  const error = await call.then(() => assert.fail('expected a failure'), (err: unknown) => err)
  assert.ok(error instanceof GitbeakerRequestError)
  return { message: error.message, response: error.cause!.response }
}

describe('compat: authentication and sudo', () => {
  let server: CompatServer
  let root: Client
  let alice: TestUser

  before(async () => {
    server = await startCompatServer()
    root = server.client()
    alice = await makeUser(server.t, { username: uniqueName('Alice') })
  })
  after(async () => { await server.close() })

  describe('credentials', () => {
    it('accepts a personal token as Private-Token and as a Bearer token', async () => {
      assert.equal((await server.client(alice.token).Users.showCurrentUser()).id, alice.user.id)
      assert.equal((await server.client(alice.token, { bearer: true }).Users.showCurrentUser()).id, alice.user.id)
    })

    it('answers 401 for unknown, expired and revoked tokens', async () => {
      assert.equal(await expectStatus(server.client('not-a-token-at-all').Users.showCurrentUser(), 401), '401 Unauthorized')
      await expectStatus(server.client('not-a-token-at-all', { bearer: true }).Users.showCurrentUser(), 401)

      const expired = await makeToken(server.t, alice.user.id, ['api'], Date.now() - 1000)
      assert.equal(await expectStatus(server.client(expired.token).Users.showCurrentUser(), 401), 'invalid_token')
      const revoked = await makeToken(server.t, alice.user.id, ['api'])
      await revokeAccessToken(server.t.ctx.db, revoked.row)
      const refused = await failedResponse(server.client(revoked.token).Users.showCurrentUser())
      assert.deepEqual([refused.response.status, refused.message], [401, 'invalid_token'])
      assert.match(refused.response.headers.get('www-authenticate') ?? '', /Token was revoked/)
    })

    it('serves public data anonymously and hides the rest', async () => {
      const open = await makeProject(server.t, alice, { visibility: 'public' })
      const secret = await makeProject(server.t, alice, { visibility: 'private' })
      const anonymous = server.client(null)
      assert.equal((await anonymous.Projects.show(open.id)).id, open.id)
      await expectStatus(anonymous.Projects.show(secret.id), 404)
      await expectStatus(anonymous.Projects.create({ name: 'nope' }), 401)
    })

    it('refuses a blocked user with 403', async () => {
      const blocked = await makeUser(server.t)
      await blockUser(server.t, blocked.user.id)
      await expectStatus(server.client(blocked.token).Projects.all(), 403)
    })
  })

  describe('token scopes', () => {
    it('lets a read_user token read users and events only', async () => {
      const readUser = await makeToken(server.t, alice.user.id, ['read_user'])
      const client = server.client(readUser.token)
      assert.equal((await client.Users.showCurrentUser()).id, alice.user.id)
      assert.equal((await client.Users.show(alice.user.id)).id, alice.user.id)
      assert.ok(Array.isArray(await client.Events.all()))

      const refused = await failedResponse(client.Projects.all())
      assert.deepEqual([refused.response.status, refused.message], [403, 'insufficient_scope'])
      assert.match(refused.response.headers.get('www-authenticate') ?? '', /scope="api"/)
      await expectStatus(client.Users.editStatus({ message: 'no' }), 403)
    })
  })

  describe('sudo', () => {
    it('acts as the user named by the client-wide sudo option, by username or id', async () => {
      const byName = server.client(undefined, { sudo: alice.user.username.toUpperCase() })
      assert.equal((await byName.Users.showCurrentUser()).id, alice.user.id)
      const byId = server.client(undefined, { sudo: alice.user.id })
      const project = await byId.Projects.create({ name: uniqueName('sudo') })
      assert.equal(project.creator_id, alice.user.id)
      assert.equal(project.namespace.path, alice.user.username)
      assert.equal((await server.client(undefined, { sudo: alice.user.id, bearer: true }).Users.showCurrentUser()).id, alice.user.id)
    })

    it('acts as the user named by the per-call sudo option', async () => {
      assert.equal((await root.Users.showCurrentUser({ sudo: alice.user.id })).id, alice.user.id)
      assert.equal((await root.Users.showCurrentUser()).username, 'root')
      const secret = await makeProject(server.t, null, { visibility: 'private' })
      await expectStatus(root.Projects.show(secret.id, { sudo: alice.user.username }), 404)
    })

    it('answers 403 for non-admins and tokens without the sudo scope, 404 for an unknown user', async () => {
      assert.equal(await expectStatus(server.client(alice.token).Users.showCurrentUser({ sudo: 'root' }), 403),
        '403 Forbidden - Must be admin to use sudo')
      const apiOnly = await makeToken(server.t, server.t.root.user.id, ['api'])
      const refused = await failedResponse(server.client(apiOnly.token, { sudo: alice.user.id }).Users.showCurrentUser())
      assert.deepEqual([refused.response.status, refused.message], [403, 'insufficient_scope'])
      assert.match(refused.response.headers.get('www-authenticate') ?? '', /scope="sudo"/)
      assert.equal(await expectStatus(root.Users.showCurrentUser({ sudo: 'nobody-by-this-name' }), 404),
        "404 User with ID or username 'nobody-by-this-name' Not Found")
      await expectStatus(server.client(null, { sudo: alice.user.id }).Users.showCurrentUser(), 401)
    })
  })
})
