// OpenID Connect over a real listening server: the discovery document, the published keys (key id
// = RFC 7638 thumbprint), an id_token from the code flow verified with jose against the JWKS the
// server publishes, /oauth/userinfo, and the signing key kept in the data directory (mode 0600)
// and the same after a restart.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { calculateJwkThumbprint, createRemoteJWKSet, jwtVerify, type JWK } from 'jose'
import { EXTERNAL_URL, buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { REDIRECT_URI, authorizeCode, clientFields, makeApplication, tokenRequest, type TestApplication } from '../helpers/oauth.js'
import { Browser } from '../web/browser.js'
import { SIGNING_KEY_FILE } from '../../src/services/oauth/signing-key.js'

describe('OpenID Connect', () => {
  let t: TestApp
  let baseUrl: string
  let alice: TestUser
  let client: TestApplication
  let browser: Browser
  before(async () => {
    t = await buildTestApp()
    baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 })
    alice = await makeUser(t, { username: 'alice', name: 'Alice A.' })
    await t.ctx.db.updateTable('users').set({ public_email: alice.user.email, website_url: 'https://alice.example' }).where('id', '=', alice.user.id).execute()
    client = await makeApplication(t)
    browser = new Browser(t)
    await browser.signIn('alice')
  })
  after(async () => { await t.close() })

  const codeTokens = async (params: Record<string, string>) => {
    const code = await authorizeCode(browser, client, params)
    const res = await fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...clientFields(client) }),
    })
    assert.equal(res.status, 200)
    return res.json() as Promise<Record<string, string>>
  }

  it('publishes the discovery document', async () => {
    const res = await fetch(`${baseUrl}/.well-known/openid-configuration`)
    assert.equal(res.status, 200)
    const doc = await res.json() as Record<string, unknown>
    assert.equal(doc.issuer, EXTERNAL_URL)
    assert.equal(doc.authorization_endpoint, `${EXTERNAL_URL}/oauth/authorize`)
    assert.equal(doc.token_endpoint, `${EXTERNAL_URL}/oauth/token`)
    assert.equal(doc.revocation_endpoint, `${EXTERNAL_URL}/oauth/revoke`)
    assert.equal(doc.introspection_endpoint, `${EXTERNAL_URL}/oauth/introspect`)
    assert.equal(doc.userinfo_endpoint, `${EXTERNAL_URL}/oauth/userinfo`)
    assert.equal(doc.jwks_uri, `${EXTERNAL_URL}/oauth/discovery/keys`)
    assert.deepEqual(doc.scopes_supported, ['api', 'read_user', 'read_repository', 'sudo', 'openid'])
    assert.deepEqual(doc.response_types_supported, ['code', 'token'])
    assert.deepEqual(doc.subject_types_supported, ['public'])
    assert.deepEqual(doc.id_token_signing_alg_values_supported, ['RS256'])
    assert.ok((doc.claims_supported as string[]).includes('nickname'))
    assert.ok((doc.grant_types_supported as string[]).includes('refresh_token'))
  })

  it('publishes one RSA key whose key id is its RFC 7638 thumbprint', async () => {
    const { keys } = await (await fetch(`${baseUrl}/oauth/discovery/keys`)).json() as { keys: JWK[] }
    assert.equal(keys.length, 1)
    const [key] = keys as [JWK]
    assert.equal(key.kty, 'RSA')
    assert.equal(key.alg, 'RS256')
    assert.equal(key.use, 'sig')
    assert.equal(key.d, undefined, 'never the private half')
    assert.equal(key.kid, await calculateJwkThumbprint({ kty: key.kty, n: key.n, e: key.e }, 'sha256'))
  })

  it('gives the code flow an id_token with the openid scope, verified against the published keys', async () => {
    const tokens = await codeTokens({ scope: 'openid read_user', nonce: 'nonce-42' })
    assert.equal(tokens.scope, 'openid read_user')
    const jwks = createRemoteJWKSet(new URL(`${baseUrl}/oauth/discovery/keys`))
    const { payload, protectedHeader } = await jwtVerify(String(tokens.id_token), jwks, { issuer: EXTERNAL_URL, audience: client.uid })
    assert.equal(protectedHeader.alg, 'RS256')
    assert.equal(payload.sub, String(alice.user.id))
    assert.equal(payload.nonce, 'nonce-42')
    assert.equal(payload.name, 'Alice A.')
    assert.equal(payload.nickname, 'alice')
    assert.equal(payload.email, alice.user.email)
    assert.equal(payload.email_verified, true)
    assert.equal(payload.website, 'https://alice.example')
    assert.equal(payload.profile, `${EXTERNAL_URL}/alice`)
    assert.equal(typeof payload.auth_time, 'number')
    assert.ok(Number(payload.exp) > Number(payload.iat))

    const withoutOpenid = await codeTokens({ scope: 'api' })
    assert.equal(withoutOpenid.id_token, undefined)
    const withoutNonce = await codeTokens({ scope: 'openid' })
    assert.equal((await jwtVerify(String(withoutNonce.id_token), jwks)).payload.nonce, undefined)
  })

  it('answers /oauth/userinfo for a token with the openid scope only', async () => {
    const tokens = await codeTokens({ scope: 'openid' })
    const res = await fetch(`${baseUrl}/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    assert.equal(res.status, 200)
    const claims = await res.json() as Record<string, unknown>
    assert.equal(claims.sub, String(alice.user.id))
    assert.equal(claims.nickname, 'alice')

    const apiOnly = await codeTokens({ scope: 'api' })
    const forbidden = await fetch(`${baseUrl}/oauth/userinfo`, { headers: { authorization: `Bearer ${apiOnly.access_token}` } })
    assert.equal(forbidden.status, 403)
    assert.match(String(forbidden.headers.get('www-authenticate')), /error="insufficient_scope"/)
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: `Bearer ${alice.token}` }] as Record<string, string>[]) {
      const refused = await fetch(`${baseUrl}/oauth/userinfo`, { headers })
      assert.equal(refused.status, 401)
      assert.match(String(refused.headers.get('www-authenticate')), /error="invalid_token"/)
    }
  })

  it('keeps the signing key in the data directory, readable by Ingot alone, and the same after a restart', async () => {
    const file = path.join(t.ctx.config.dataDir, SIGNING_KEY_FILE)
    const stat = await fs.stat(file)
    assert.equal(stat.mode & 0o777, 0o600)
    const { keys } = await (await fetch(`${baseUrl}/oauth/discovery/keys`)).json() as { keys: JWK[] }
    // A new process reads the same file.
    const script = `import('./src/services/oauth/signing-key.ts').then((m) => m.signingKey(${JSON.stringify(t.ctx.config.dataDir)})).then((k) => console.log(k.publicJwk.kid))`
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], { cwd: path.resolve(import.meta.dirname, '../..') })
    assert.equal(stdout.trim(), keys[0]?.kid)
  })

  it('a token from the password grant carries no id_token (only the code flow has one)', async () => {
    const res = await tokenRequest(t, { grant_type: 'password', username: 'alice', password: 'password1234', scope: 'openid', ...clientFields(client) })
    assert.equal(res.status, 200)
    assert.equal(res.body.id_token, undefined)
  })
})
