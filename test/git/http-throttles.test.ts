// Throttles and sign-in bans as the real `git` command line meets them over HTTP: wrong passwords
// ban the address, after which git is refused with `Forbidden`; over the unauthenticated throttle
// git is refused with `Retry later`, and git shows both to its user.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { projectFullPath } from '../helpers/projects.js'

describe('git over HTTP: throttles and sign-in bans', () => {
  let t: TestApp
  let client: GitClient
  let alice: TestUser
  let publicPath: string
  /** Git sends credentials only when asked (a 401): to a private project's. */
  let privatePath: string
  before(async () => {
    // The client connects from 127.0.0.1: nothing is whitelisted here. Day-long windows, so the
    // failures of a test all fall in one (windows are aligned).
    t = await buildTestApp({ env: { INGOT_SIGN_IN_BAN_IP_WHITELIST: 'none', INGOT_SIGN_IN_BAN_MAXRETRY: '3', INGOT_SIGN_IN_BAN_FINDTIME: '86400' } })
    client = await startGitClient(t)
    alice = await makeUser(t, { username: 'alice' })
    publicPath = await projectFullPath(t, await makeProject(t, alice, { visibility: 'public' }))
    privatePath = await projectFullPath(t, await makeProject(t, alice, { visibility: 'private' }))
  })
  after(async () => {
    await client.close()
    await t.close()
  })

  const lsRemote = (password?: string) => password === undefined
    ? client.git(['ls-remote', client.url(publicPath)])
    : client.git(['ls-remote', client.url(privatePath, { username: 'alice', password })])

  it('answers git with Retry later over the unauthenticated throttle, and forgets it when the throttle is off', async () => {
    const settings = (body: Record<string, unknown>) => t.api('PUT', '/application/settings', { body })
    await settings({ throttle_unauthenticated_enabled: true, throttle_unauthenticated_requests_per_period: 2, throttle_unauthenticated_period_in_seconds: 86400 })
    try {
      let refused = await lsRemote()
      for (let i = 0; i < 3 && refused.code === 0; i += 1) refused = await lsRemote()
      assert.notEqual(refused.code, 0)
      assert.match(refused.stderr, /429|Retry later/)
    } finally {
      assert.equal((await settings({ throttle_unauthenticated_enabled: false })).status, 200)
    }
    assert.equal((await lsRemote()).code, 0)
  })

  it('bans the address after wrong passwords: then even the right one gets Forbidden', async () => {
    assert.equal((await lsRemote('password1234')).code, 0)
    for (let i = 0; i < 3; i += 1) {
      const wrong = await lsRemote('wrong-password')
      assert.notEqual(wrong.code, 0)
      assert.match(wrong.stderr, /Authentication failed|Access denied/)
    }
    const banned = await lsRemote('password1234')
    assert.notEqual(banned.code, 0)
    assert.match(banned.stderr, /403/)
    assert.equal((await lsRemote()).code === 0, false, 'every request of the address is refused')
    // The API tells the same to the address (127.0.0.1 here).
    const api = await t.app.inject({ method: 'GET', url: '/api/v4/projects' })
    assert.equal(api.statusCode, 403)
    assert.equal(api.body, 'Forbidden\n')
  })
})
