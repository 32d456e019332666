// What an OAuth token's scopes allow, wherever tokens are checked: the API (api everything,
// read_user the user endpoints, openid and read_repository nothing: 403 insufficient_scope; sudo
// for an administrator's token), and git over HTTP as `oauth2` (api pulls and pushes,
// read_repository pulls, the others nothing), on a real server with the git command line.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { ROOT_PASSWORD, buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startGitClient, type GitClient } from '../helpers/git-server.js'
import { projectFullPath } from '../helpers/projects.js'
import { tokenRequest } from '../helpers/oauth.js'

describe('OAuth token scopes', () => {
  let t: TestApp
  let alice: TestUser
  let client: GitClient
  let fullPath: string
  let counter = 0
  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t, { username: 'alice' })
    const project = await makeProject(t, alice, { visibility: 'private' })
    await commitFiles(t, project.id, { 'README.md': 'hello\n' })
    fullPath = await projectFullPath(t, project)
    client = await startGitClient(t)
  })
  after(async () => {
    await client.close()
    await t.close()
  })

  const tokenWith = async (scope: string, username = 'alice', password = 'password1234') => {
    const res = await tokenRequest(t, { grant_type: 'password', username, password, scope })
    assert.equal(res.status, 200, res.text)
    return String(res.body.access_token)
  }
  const get = (token: string, url: string, headers: Record<string, string> = {}) =>
    t.api('GET', url, { token: null, headers: { authorization: `Bearer ${token}`, ...headers } })

  it('api reaches the whole API', async () => {
    const token = await tokenWith('api')
    assert.equal((await get(token, '/projects')).status, 200)
    assert.equal((await get(token, '/user')).status, 200)
    assert.equal((await t.api('POST', '/projects', { token: null, query: { access_token: token }, body: { name: 'made-by-oauth' } })).status, 201)
  })

  it('read_user reads users only; openid and read_repository reach no API route (403 insufficient_scope)', async () => {
    const readUser = await tokenWith('read_user')
    assert.equal((await get(readUser, '/user')).status, 200)
    for (const scope of ['read_user', 'openid', 'read_repository']) {
      const token = await tokenWith(scope)
      const res = await get(token, '/projects')
      assert.equal(res.status, 403, scope)
      assert.equal(res.body.error, 'insufficient_scope')
      assert.match(String(res.headers['www-authenticate']), /error="insufficient_scope"/)
    }
    assert.equal((await get(await tokenWith('openid'), '/user')).status, 403)
  })

  it('sudo lets an administrator\'s token act as another user, only with the sudo scope', async () => {
    const withSudo = await tokenWith('api sudo', 'root', ROOT_PASSWORD)
    const res = await get(withSudo, '/user', { sudo: 'alice' })
    assert.equal(res.status, 200)
    assert.equal(res.body.username, 'alice')
    const withoutSudo = await tokenWith('api', 'root', ROOT_PASSWORD)
    assert.equal((await get(withoutSudo, '/user', { sudo: 'alice' })).status, 403)
  })

  describe('git over HTTP as oauth2', () => {
    const cloneWith = async (token: string) => {
      const dir = path.join(client.dir, `clone${(counter += 1)}`)
      const result = await client.git(['clone', client.url(fullPath, { username: 'oauth2', password: token }), dir])
      return { dir, result }
    }
    const pushFrom = async (dir: string) => {
      await client.ok(['commit', '--allow-empty', '-m', `change ${counter}`], { cwd: dir })
      return client.git(['push', 'origin', 'HEAD'], { cwd: dir })
    }

    it('api pulls and pushes', async () => {
      const { dir, result } = await cloneWith(await tokenWith('api'))
      assert.equal(result.code, 0, result.stderr)
      const pushed = await pushFrom(dir)
      assert.equal(pushed.code, 0, pushed.stderr)
    })

    it('read_repository pulls but does not push', async () => {
      const { dir, result } = await cloneWith(await tokenWith('read_repository'))
      assert.equal(result.code, 0, result.stderr)
      const pushed = await pushFrom(dir)
      assert.notEqual(pushed.code, 0)
    })

    it('read_user and openid neither pull nor push; nor an OAuth token under another login', async () => {
      for (const scope of ['read_user', 'openid']) {
        const { result } = await cloneWith(await tokenWith(scope))
        assert.notEqual(result.code, 0, scope)
      }
      const token = await tokenWith('api')
      const dir = path.join(client.dir, `clone${(counter += 1)}`)
      const result = await client.git(['clone', client.url(fullPath, { username: 'alice', password: token }), dir])
      assert.notEqual(result.code, 0)
    })

    it('a revoked token stops working for git at once', async () => {
      const token = await tokenWith('api')
      const revoked = await t.api('POST', '/oauth/revoke', { token: null, form: `token=${token}` })
      assert.equal(revoked.status, 200)
      const { result } = await cloneWith(token)
      assert.notEqual(result.code, 0)
    })
  })
})
