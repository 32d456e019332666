// The password page (/profile/password/edit, PUT /profile/password): the current password is
// required, the confirmation must match, the instance's rules apply; a change ends the user's
// other sessions and keeps this one; CSRF and anonymous visitors.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeUser, type TestUser } from '../helpers/factories.js'
import { passwordMatches } from '../../src/auth/secrets.js'
import { Browser } from './browser.js'

const EDIT = '/profile/password/edit'
const UPDATE = '/profile/password'

describe('Web password change', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const change = (b: Browser, current: string, password: string, confirmation = password) => b.submit(EDIT, UPDATE, {
    _method: 'put', 'user[current_password]': current, 'user[password]': password, 'user[password_confirmation]': confirmation,
  })
  const digestOf = async (user: TestUser) =>
    (await t.ctx.db.selectFrom('users').select('password_digest').where('id', '=', user.user.id).executeTakeFirstOrThrow()).password_digest

  it('sends an anonymous visitor to sign in', async () => {
    const anonymous = new Browser(t)
    for (const res of [await anonymous.get(EDIT), await anonymous.post(UPDATE, { _method: 'put' })]) {
      assert.equal(res.status, 302)
      assert.equal(res.headers.location, '/users/sign_in')
    }
  })

  it('shows the form: current password, new password, confirmation, as a PUT', async () => {
    const alice = await makeUser(t)
    const b = new Browser(t)
    await b.signIn(alice.user.username)
    const res = await b.get(EDIT)
    assert.equal(res.status, 200)
    assert.match(res.text, /<form method="post" action="\/profile\/password"/)
    assert.match(res.text, /name="_method" value="put"/)
    for (const field of ['current_password', 'password', 'password_confirmation']) assert.match(res.text, new RegExp(`name="user\\[${field}\\]"`))
  })

  it('changes the password: this session stays signed in, the others end, the new password signs in', async () => {
    const alice = await makeUser(t)
    const here = new Browser(t)
    const elsewhere = new Browser(t)
    await here.signIn(alice.user.username)
    await elsewhere.signIn(alice.user.username)
    const res = await change(here, 'password1234', 'a-new-password-5678')
    assert.equal(res.status, 200, res.text)
    assert.match(res.text, /class="notice">Password was successfully updated\.</)
    assert.ok(await passwordMatches(await digestOf(alice), 'a-new-password-5678'))
    assert.equal((await here.get(EDIT)).status, 200)
    const other = await elsewhere.get(EDIT)
    assert.equal(other.status, 302)
    assert.equal(other.headers.location, '/users/sign_in')
    // The user chose it: no forced change at the next sign-in.
    const row = await t.ctx.db.selectFrom('users').select('password_expires_at').where('id', '=', alice.user.id).executeTakeFirstOrThrow()
    assert.equal(row.password_expires_at, null)
    await new Browser(t).signIn(alice.user.username, 'a-new-password-5678')
  })

  it('refuses a wrong current password, a mismatched confirmation and a short password, and changes nothing', async () => {
    const alice = await makeUser(t)
    const b = new Browser(t)
    await b.signIn(alice.user.username)
    const before = await digestOf(alice)
    const wrong = await change(b, 'not-my-password', 'a-new-password-5678')
    assert.equal(wrong.status, 200)
    assert.match(wrong.text, /<li>You must provide a valid current password<\/li>/)
    const mismatch = await change(b, 'password1234', 'a-new-password-5678', 'something-else-5678')
    assert.match(mismatch.text, /<li>Password confirmation doesn&#39;t match Password<\/li>/)
    const short = await change(b, 'password1234', 'short')
    assert.match(short.text, /<li>Password is too short \(minimum is 8 characters\)<\/li>/)
    assert.equal(await digestOf(alice), before)
    assert.equal((await b.get(EDIT)).status, 200)
  })

  it('refuses a form without the CSRF token with the 422 page', async () => {
    const alice = await makeUser(t)
    const b = new Browser(t)
    await b.signIn(alice.user.username)
    const before = await digestOf(alice)
    const res = await b.post(UPDATE, {
      _method: 'put', 'user[current_password]': 'password1234', 'user[password]': 'csrf-password-1', 'user[password_confirmation]': 'csrf-password-1',
    })
    assert.equal(res.status, 422)
    assert.equal(await digestOf(alice), before)
  })

  it('answers 404 to a POST that is not a PUT', async () => {
    const alice = await makeUser(t)
    const b = new Browser(t)
    await b.signIn(alice.user.username)
    const res = await b.submit(EDIT, UPDATE, { 'user[current_password]': 'password1234', 'user[password]': 'x-password-123', 'user[password_confirmation]': 'x-password-123' })
    assert.equal(res.status, 404)
  })
})
