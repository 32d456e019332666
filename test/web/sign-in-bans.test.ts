// Bans after failed password sign-ins (the original's git basic-auth ban, INGOT_SIGN_IN_BAN_*):
// the web form and git's Basic credentials count failures per address and per account; maxretry
// failures within findtime ban the address (every request: 403 Forbidden) and the account (its
// password refused) for bantime; a success forgets the failures; the whitelist is never banned;
// and a login naming nobody costs a password check, as a wrong password does.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser } from '../helpers/factories.js'
import { ConfigError, loadConfig } from '../../src/config.js'
import { Browser } from './browser.js'

const INVALID_LOGIN = 'Invalid Login or password.'

/** Signs in through the form from `address`; the page's alert, or null when signed in. */
async function trySignIn(t: TestApp, address: string, login: string, password: string): Promise<string | null> {
  const browser = new Browser(t, address)
  const token = await browser.csrfTokenFrom('/users/sign_in')
  const res = await browser.post('/users/sign_in', { authenticity_token: token, 'user[login]': login, 'user[password]': password })
  if (res.status === 302) return null
  assert.equal(res.status, 200, res.text)
  return /Invalid Login or password\./.test(res.text) ? INVALID_LOGIN : res.text
}

const requestFrom = (t: TestApp, address: string, url = '/api/v4/projects') => t.app.inject({ method: 'GET', url, remoteAddress: address })

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`

describe('Sign-in bans', () => {
  describe('configuration', () => {
    it("defaults to the original's: on, 127.0.0.1 trusted, 10 failures in 60 s ban for an hour", () => {
      assert.deepEqual(loadConfig({}).signInBan, { enabled: true, ipWhitelist: ['127.0.0.1'], maxRetry: 10, findTimeSeconds: 60, banTimeSeconds: 3600 })
    })

    it('takes every part from the environment, `none` for an empty whitelist, and refuses bad values', () => {
      assert.deepEqual(loadConfig({
        INGOT_SIGN_IN_BAN_ENABLED: 'false', INGOT_SIGN_IN_BAN_IP_WHITELIST: '10.0.0.0/8, ::1', INGOT_SIGN_IN_BAN_MAXRETRY: '5',
        INGOT_SIGN_IN_BAN_FINDTIME: '30', INGOT_SIGN_IN_BAN_BANTIME: '600',
      }).signInBan, { enabled: false, ipWhitelist: ['10.0.0.0/8', '::1'], maxRetry: 5, findTimeSeconds: 30, banTimeSeconds: 600 })
      assert.deepEqual(loadConfig({ INGOT_SIGN_IN_BAN_IP_WHITELIST: 'none' }).signInBan.ipWhitelist, [])
      for (const [name, value] of [
        ['INGOT_SIGN_IN_BAN_MAXRETRY', '0'], ['INGOT_SIGN_IN_BAN_FINDTIME', 'soon'], ['INGOT_SIGN_IN_BAN_IP_WHITELIST', 'localhost'],
        ['INGOT_SIGN_IN_BAN_ENABLED', 'maybe'],
      ]) {
        assert.throws(() => loadConfig({ [name as string]: value }), (err: Error) => err instanceof ConfigError && err.message.startsWith(name as string))
      }
    })
  })

  describe('with 3 failures in a day banning', () => {
    let t: TestApp
    before(async () => {
      // Windows are aligned to whole days here: with the default minute, a test's failures could
      // fall on both sides of a minute's end and never reach the limit in one window.
      t = await buildTestApp({ env: { INGOT_SIGN_IN_BAN_MAXRETRY: '3', INGOT_SIGN_IN_BAN_FINDTIME: '86400', INGOT_SIGN_IN_BAN_IP_WHITELIST: '10.9.0.0/16' } })
      await makeUser(t, { username: 'alice' })
      await makeUser(t, { username: 'bob' })
      await makeUser(t, { username: 'carol' })
      await makeUser(t, { username: 'dave' })
      await makeUser(t, { username: 'erin' })
    })
    after(async () => { await t.close() })

    it('bans an address after failed web sign-ins: every request from it gets 403 Forbidden', async () => {
      for (const login of ['alice', 'nobody', 'bob']) assert.equal(await trySignIn(t, '10.1.0.1', login, 'wrong-password'), INVALID_LOGIN)
      const banned = await requestFrom(t, '10.1.0.1')
      assert.equal(banned.statusCode, 403)
      assert.equal(banned.body, 'Forbidden\n')
      assert.match(String(banned.headers['content-type']), /^text\/plain/)
      assert.equal((await requestFrom(t, '10.1.0.1', '/users/sign_in')).statusCode, 403)
      assert.equal((await requestFrom(t, '10.1.0.2')).statusCode, 200, 'another address is not banned')
      assert.equal(await trySignIn(t, '10.1.0.2', 'bob', 'password1234'), null, 'nor are the accounts tried, once each')
    })

    it('bans an account after failures from many addresses: its right password is refused', async () => {
      for (const address of ['10.2.0.1', '10.2.0.2', '10.2.0.3']) assert.equal(await trySignIn(t, address, 'carol', 'wrong-password'), INVALID_LOGIN)
      assert.equal(await trySignIn(t, '10.2.0.4', 'carol', 'password1234'), INVALID_LOGIN)
      assert.equal(await trySignIn(t, '10.2.0.4', 'CAROL@example.com', 'password1234'), INVALID_LOGIN, 'by email too: the account is banned')
      assert.equal((await requestFrom(t, '10.2.0.4')).statusCode, 200, 'the addresses are not banned')
    })

    it('forgets the failures of an address and an account on a success', async () => {
      for (let round = 0; round < 2; round += 1) {
        for (let i = 0; i < 2; i += 1) assert.equal(await trySignIn(t, '10.3.0.1', 'dave', 'wrong-password'), INVALID_LOGIN)
        assert.equal(await trySignIn(t, '10.3.0.1', 'dave', 'password1234'), null)
      }
      assert.equal((await requestFrom(t, '10.3.0.1')).statusCode, 200)
    })

    it('bans an address after failed git Basic credentials, counting tokens and passwords alike', async () => {
      const git = (authorization: string) => t.app.inject({
        method: 'GET', url: '/alice/project.git/info/refs?service=git-upload-pack', remoteAddress: '10.4.0.1', headers: { authorization },
      })
      assert.equal((await git(basic('alice', 'wrong-password'))).statusCode, 401)
      assert.equal((await git(basic('nobody', 'wrong-password'))).statusCode, 401)
      assert.equal((await git(basic('oauth2', 'not-a-token'))).statusCode, 401)
      const banned = await git(basic('alice', 'password1234'))
      assert.equal(banned.statusCode, 403)
      assert.equal(banned.body, 'Forbidden\n')
    })

    it("counts a wrong current password on the password page: a stolen session cannot guess the account's password", async () => {
      const session = new Browser(t, '10.6.0.1')
      await session.signIn('erin')
      const change = (current: string) => session.submit('/profile/password/edit', '/profile/password', {
        _method: 'put', 'user[current_password]': current, 'user[password]': 'a-new-password-5678', 'user[password_confirmation]': 'a-new-password-5678',
      })
      for (let i = 0; i < 3; i += 1) {
        const res = await change('wrong-password')
        assert.equal(res.status, 200)
        assert.match(res.text, /You must provide a valid current password/)
      }
      assert.equal((await requestFrom(t, '10.6.0.1')).statusCode, 403, 'the address is banned')
      assert.equal(await trySignIn(t, '10.6.0.2', 'erin', 'password1234'), INVALID_LOGIN, 'and the account')
    })

    it('never bans a whitelisted address', async () => {
      for (let i = 0; i < 4; i += 1) assert.equal(await trySignIn(t, '10.9.1.1', 'bob', 'wrong-password'), INVALID_LOGIN)
      assert.equal((await requestFrom(t, '10.9.1.1')).statusCode, 200)
      assert.equal(await trySignIn(t, '10.9.1.1', 'bob', 'password1234'), null, 'nor counts against accounts from it')
    })

    it('checks a password for a login that names nobody, so that it takes as long as a wrong password', async () => {
      // CPU time of the whole process (argon2's threads included), which a loaded machine inflates
      // far less than wall time: a password check is most of a refusal's work.
      const cpuOf = async (login: string) => {
        let total = 0
        for (let i = 0; i < 3; i += 1) {
          const started = process.cpuUsage()
          assert.equal(await trySignIn(t, '10.9.2.1', login, 'wrong-password'), INVALID_LOGIN)
          const used = process.cpuUsage(started)
          total += (used.user + used.system) / 1000
        }
        return total
      }
      // (Warmed up first: the decoy hash is made on first use.)
      for (const login of ['alice', 'nobody-at-all']) assert.equal(await trySignIn(t, '10.9.2.1', login, 'wrong-password'), INVALID_LOGIN)
      const known = await cpuOf('alice')
      const unknown = await cpuOf('nobody-at-all')
      assert.ok(unknown >= known * 0.5, `unknown login ${unknown.toFixed(1)} ms of CPU, wrong password ${known.toFixed(1)} ms`)
    })
  })

  describe('switched off', () => {
    let t: TestApp
    before(async () => {
      t = await buildTestApp({ env: { INGOT_SIGN_IN_BAN_ENABLED: 'false', INGOT_SIGN_IN_BAN_MAXRETRY: '2' } })
      await makeUser(t, { username: 'alice' })
    })
    after(async () => { await t.close() })

    it('bans nobody', async () => {
      for (let i = 0; i < 3; i += 1) assert.equal(await trySignIn(t, '10.5.0.1', 'alice', 'wrong-password'), INVALID_LOGIN)
      assert.equal((await requestFrom(t, '10.5.0.1')).statusCode, 200)
      assert.equal(await trySignIn(t, '10.5.0.1', 'alice', 'password1234'), null)
    })
  })

  describe('behind a reverse proxy (INGOT_TRUSTED_PROXIES)', () => {
    let t: TestApp
    before(async () => {
      t = await buildTestApp({ env: { INGOT_SIGN_IN_BAN_MAXRETRY: '3', INGOT_SIGN_IN_BAN_FINDTIME: '86400', INGOT_TRUSTED_PROXIES: '10.20.0.1' } })
      await makeUser(t, { username: 'alice' })
    })
    after(async () => { await t.close() })

    it('reads the setting: none by default, a comma list of addresses and ranges, bad values refused', () => {
      assert.deepEqual(loadConfig({}).trustedProxies, [])
      assert.deepEqual(loadConfig({ INGOT_TRUSTED_PROXIES: '10.0.0.0/8, ::1' }).trustedProxies, ['10.0.0.0/8', '::1'])
      assert.throws(() => loadConfig({ INGOT_TRUSTED_PROXIES: 'proxy.example.com' }), (err: Error) => err instanceof ConfigError && err.message.startsWith('INGOT_TRUSTED_PROXIES'))
    })

    it("bans the client the proxy names, not the proxy, and believes nobody else's X-Forwarded-For", async () => {
      const request = (from: string, forwardedFor?: string, authorization?: string) => t.app.inject({
        method: 'GET', url: '/alice/project.git/info/refs?service=git-upload-pack', remoteAddress: from,
        headers: { ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }), ...(authorization === undefined ? {} : { authorization }) },
      })
      for (let i = 0; i < 3; i += 1) assert.equal((await request('10.20.0.1', '10.21.0.5', basic('alice', 'wrong-password'))).statusCode, 401)
      assert.equal((await request('10.20.0.1', '10.21.0.5')).statusCode, 403, 'the client is banned through the proxy')
      assert.equal((await request('10.21.0.5')).statusCode, 403, 'and when it comes directly')
      assert.notEqual((await request('10.20.0.1', '10.21.0.6')).statusCode, 403, 'other clients of the proxy are not')
      assert.notEqual((await request('10.20.0.1')).statusCode, 403, 'nor is the proxy itself')
      assert.notEqual((await request('10.22.0.1', '10.21.0.5')).statusCode, 403, 'an address that is no proxy cannot borrow another identity')
    })
  })
})
