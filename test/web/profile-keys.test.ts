// The SSH keys page (/profile/keys): listing, adding with the API's validation (key restrictions,
// fingerprint uniqueness), removing own keys only, CSRF, anonymous visitors, escaping.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import sshpk from 'sshpk'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { Browser } from './browser.js'

const PAGE = '/profile/keys'

function makeKey(): string {
  const pem = generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } }).publicKey
  return sshpk.parseKey(pem, 'pem').toString('ssh')
}

describe('Web SSH keys', () => {
  let t: TestApp
  let alice: TestUser
  let b: Browser
  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t)
    b = new Browser(t)
    await b.signIn(alice.user.username)
  })
  after(async () => { await t.close() })

  const add = (key: string, title: string) => b.submit(PAGE, PAGE, { 'key[key]': key, 'key[title]': title })
  const keysOf = (userId: number) => t.ctx.db.selectFrom('ssh_keys').selectAll().where('user_id', '=', userId).execute()

  it('sends an anonymous visitor to sign in', async () => {
    const anonymous = new Browser(t)
    for (const res of [await anonymous.get(PAGE), await anonymous.post(PAGE, {}), await anonymous.post(`${PAGE}/1`, { _method: 'delete' })]) {
      assert.equal(res.status, 302)
      assert.equal(res.headers.location, '/users/sign_in')
    }
  })

  it('adds a key, listed with its title, fingerprint and date, as the API sees it', async () => {
    const key = makeKey()
    const res = await add(key, '<b>laptop</b>')
    assert.equal(res.status, 200, res.text)
    const [row] = await keysOf(alice.user.id)
    assert.ok(row)
    assert.match(res.text, /<td>&lt;b&gt;laptop&lt;\/b&gt;<\/td>/)
    assert.ok(res.text.includes(`<code>${row.fingerprint}</code>`))
    const api = await t.api('GET', '/user/keys', { token: alice.token })
    assert.deepEqual(api.body.map((k: { title: string }) => k.title), ['<b>laptop</b>'])
  })

  it("refuses what the API refuses, with the service's messages, and keeps what was sent", async () => {
    const blank = await add('', '')
    assert.match(blank.text, /<li>Title can&#39;t be blank<\/li><li>Key can&#39;t be blank<\/li>/)
    const invalid = await add('ssh-rsa not-a-key', 'kept title')
    assert.match(invalid.text, /<li>Key is invalid<\/li>/)
    assert.match(invalid.text, /value="kept title"/)
    assert.match(invalid.text, />ssh-rsa not-a-key<\/textarea>/)
    const key = makeKey()
    assert.equal((await add(key, 'first')).status, 200)
    assert.match((await add(key, 'again')).text, /<li>Fingerprint has already been taken<\/li>/)
    const settings = await t.api('PUT', '/application/settings', { body: { ed25519_key_restriction: -1 } })
    assert.equal(settings.status, 200)
    try {
      assert.match((await add(makeKey(), 'forbidden')).text, /<li>Key type is forbidden\. Must be /)
    } finally {
      await t.api('PUT', '/application/settings', { body: { ed25519_key_restriction: 0 } })
    }
  })

  it('removes one of the user\'s keys; another user\'s, a bad id and a POST without _method=delete are 404', async () => {
    await add(makeKey(), 'to remove')
    const row = (await keysOf(alice.user.id)).find((key) => key.title === 'to remove')
    assert.ok(row)
    const bob = await makeUser(t)
    const bobs = await t.api('POST', '/user/keys', { token: bob.token, body: { title: 'bob', key: makeKey() } })
    assert.equal(bobs.status, 201)
    for (const id of [bobs.body.id, 'x', '1e3', '99999999999999999999']) assert.equal((await b.submit(PAGE, `${PAGE}/${id}`, { _method: 'delete' })).status, 404)
    assert.equal((await b.submit(PAGE, `${PAGE}/${row.id}`, {})).status, 404)
    assert.equal((await keysOf(bob.user.id)).length, 1)
    const res = await b.submit(PAGE, `${PAGE}/${row.id}`, { _method: 'delete' })
    assert.equal(res.status, 302)
    assert.equal(res.headers.location, PAGE)
    assert.equal((await keysOf(alice.user.id)).some((key) => key.id === row.id), false)
  })

  it('refuses a form without the CSRF token with the 422 page', async () => {
    const before = (await keysOf(alice.user.id)).length
    const res = await b.post(PAGE, { 'key[key]': makeKey(), 'key[title]': 'csrf' })
    assert.equal(res.status, 422)
    assert.equal((await keysOf(alice.user.id)).length, before)
  })
})
