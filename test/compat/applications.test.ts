// @gitbeaker/rest against a real Ingot socket as an OAuth provider: an administrator registers,
// lists and removes an application (Applications), and a token the application gets from the
// password grant works as gitbeaker's oauthToken until the application is removed.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_PASSWORD } from '../helpers/app.js'
import { expectStatus, startCompatServer, type CompatServer } from './server.js'

describe('compat: OAuth applications', () => {
  let server: CompatServer
  before(async () => { server = await startCompatServer() })
  after(async () => { await server.close() })

  it('registers, lists and removes an application; its tokens work as oauthToken until then', async () => {
    const root = server.client()
    const application = await root.Applications.create('gitbeaker-client', 'https://client.example/callback', 'api read_user')
    assert.equal(application.application_name, 'gitbeaker-client')
    assert.match(application.secret, /^[0-9a-f]{64}$/)
    assert.ok((await root.Applications.all()).some((listed) => listed.id === application.id))

    const res = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'password', username: 'root', password: ROOT_PASSWORD, scope: 'api',
        client_id: application.application_id, client_secret: application.secret,
      }),
    })
    assert.equal(res.status, 200)
    const { access_token: accessToken } = await res.json() as { access_token: string }
    const oauth = server.client(accessToken, { bearer: true })
    assert.equal((await oauth.Users.showCurrentUser()).username, 'root')

    await root.Applications.remove(application.id)
    assert.ok(!(await root.Applications.all()).some((listed) => listed.id === application.id))
    await expectStatus(oauth.Users.showCurrentUser(), 401)
  })
})
