// User avatars: sent as a multipart file on POST and PUT /users, checked before anything is
// written, served at the avatar_url the user entity shows, and removed with the user.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, EXTERNAL_URL, ROOT_TOKEN, type TestApp } from '../helpers/app.js'

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

async function multipart(fields: Record<string, string>, file?: { name: string; data: Buffer }) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  if (file !== undefined) form.append('avatar', new Blob([file.data], { type: 'image/png' }), file.name)
  const request = new Request('http://ingot.test', { method: 'POST', body: form })
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type') ?? '' }
}

describe('user avatars', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const send = async (method: 'POST' | 'PUT', url: string, fields: Record<string, string>, file?: { name: string; data: Buffer }) => {
    const { payload, contentType } = await multipart(fields, file)
    return t.app.inject({ method, url: `/api/v4${url}`, payload, headers: { 'private-token': ROOT_TOKEN, 'content-type': contentType } })
  }
  const fetchAvatar = (avatarUrl: string) => t.app.inject({ method: 'GET', url: avatarUrl.slice(EXTERNAL_URL.length) })
  const newUser = (username: string) => ({ username, name: username, email: `${username}@example.com`, password: 'password1234' })

  it('stores an avatar sent on create and serves it at avatar_url', async () => {
    const res = await send('POST', '/users', newUser('with-avatar'), { name: 'me.png', data: PNG })
    assert.equal(res.statusCode, 201, res.body)
    const { id, avatar_url: avatarUrl } = res.json()
    assert.equal(avatarUrl, `${EXTERNAL_URL}/uploads/-/system/user/avatar/${id}/me.png`)
    const image = await fetchAvatar(avatarUrl)
    assert.equal(image.statusCode, 200)
    assert.equal(image.headers['content-type'], 'image/png')
    assert.deepEqual(image.rawPayload, PNG)
  })

  it('replaces the avatar on update, and removes it with the user', async () => {
    const created = (await send('POST', '/users', newUser('replace-avatar'), { name: 'first.png', data: PNG })).json()
    const updated = await send('PUT', `/users/${created.id}`, {}, { name: 'second.png', data: PNG })
    assert.equal(updated.statusCode, 200, updated.body)
    assert.match(updated.json().avatar_url, /\/second\.png$/)
    assert.equal((await fetchAvatar(created.avatar_url)).statusCode, 404)
    assert.equal((await fetchAvatar(updated.json().avatar_url)).statusCode, 200)
    assert.equal((await t.api('DELETE', `/users/${created.id}`)).status, 204)
    assert.equal((await fetchAvatar(updated.json().avatar_url)).statusCode, 404)
  })

  it('refuses a file that is not an image, or too big, before creating the user', async () => {
    const text = await send('POST', '/users', newUser('not-an-image'), { name: 'notes.txt', data: Buffer.from('hello') })
    assert.equal(text.statusCode, 400)
    assert.match(text.json().message.avatar[0], /file format is not supported/)
    const big = await send('POST', '/users', newUser('too-big'), { name: 'big.png', data: Buffer.alloc(200 * 1024 + 1) })
    assert.deepEqual(big.json(), { message: { avatar: ['is too big (should be at most 200 KB)'] } })
    const users = await t.ctx.db.selectFrom('users').select('username').where('username', 'in', ['not-an-image', 'too-big']).execute()
    assert.deepEqual(users, [])
  })

  it('answers 400 for an avatar that is not a file', async () => {
    const res = await t.api('POST', '/users', { body: { ...newUser('json-avatar'), avatar: 'me.png' } })
    assert.deepEqual([res.status, res.body], [400, { error: 'avatar is invalid' }])
  })

  it('serves nothing but current avatars', async () => {
    for (const url of ['/uploads/-/system/user/avatar/1/none.png', '/uploads/-/system/user/avatar/99999999999/a.png', '/uploads/../ingot.sqlite3']) {
      assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 404, url)
    }
  })
})
