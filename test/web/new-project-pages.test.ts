// The new project page (web/new-project.ts): signed-in users only (anonymous visitors are sent to
// sign in), the namespaces offered (their own and the groups where they are Maintainer), a blank
// project created through the API's creation service (checked through the API: namespace,
// description, visibility, the README commit), the service's refusals as 422, hostile values
// escaped, CSRF; and the dashboard's "New project" link.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeUser, type TestUser } from '../helpers/factories.js'
import type { NamespaceRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

describe('Web new project page', () => {
  let t: TestApp
  let user: TestUser
  let maintained: NamespaceRow
  let developed: NamespaceRow
  let browser: Browser

  before(async () => {
    t = await buildTestApp()
    user = await makeUser(t)
    ;[maintained, developed] = await Promise.all([makeGroup(t, { visibility: 'internal' }), makeGroup(t)])
    await makeMember(t, { type: 'group', id: maintained.id }, user, MAINTAINER)
    await makeMember(t, { type: 'group', id: developed.id }, user, DEVELOPER)
    browser = await signedInBrowser(t, user.user.username)
  })
  after(async () => { await t.close() })

  it('sends anonymous visitors to sign in, and links to it from the dashboard', async () => {
    const anonymous = await new Browser(t).get('/projects/new')
    assert.equal(anonymous.status, 302)
    assert.equal(anonymous.headers.location, '/users/sign_in')
    const dashboard = await browser.get('/dashboard/projects')
    assert.match(dashboard.text, /<a class="button" href="\/projects\/new">New project<\/a>/)
  })

  it('offers the user\'s own namespace and the groups they maintain, not those they only develop in', async () => {
    const page = await browser.get('/projects/new')
    assert.equal(page.status, 200, page.text)
    assert.ok(page.text.includes(`<option value="${maintained.id}">${maintained.full_path}</option>`))
    assert.ok(!page.text.includes(`>${developed.full_path}</option>`))
    assert.ok(page.text.includes(`>${user.user.username}</option>`))
  })

  it('creates a blank project in a group with its description, visibility and README, then shows it', async () => {
    const token = formToken((await browser.get('/projects/new')).text)
    const res = await browser.post('/projects', {
      authenticity_token: token, 'project[name]': 'Web Made', 'project[path]': 'web-made', 'project[namespace_id]': String(maintained.id),
      'project[description]': 'About <script>', 'project[visibility]': 'internal', 'project[initialize_with_readme]': '1',
    })
    assert.equal(res.status, 302, res.text)
    assert.equal(res.headers.location, `/${maintained.full_path}/web-made`)
    const api = await t.api('GET', `/projects/${encodeURIComponent(`${maintained.full_path}/web-made`)}`, { token: user.token })
    assert.equal(api.status, 200, api.text)
    assert.equal(api.body.description, 'About <script>')
    assert.equal(api.body.visibility, 'internal')
    assert.equal(api.body.default_branch, 'master', 'the README commit made the default branch')
    const readme = await t.api('GET', `/projects/${api.body.id}/repository/files/README.md/raw`, { token: user.token, query: { ref: 'master' } })
    assert.equal(readme.text, '# Web Made\n\nAbout <script>')
    const shown = await browser.get(res.headers.location as string)
    assert.equal(shown.status, 200)
    assert.ok(shown.text.includes('About &lt;script&gt;'))
  })

  it('creates in the user\'s own namespace, and refuses a taken path, a closed namespace and a missing CSRF token', async () => {
    const token = formToken((await browser.get('/projects/new')).text)
    const own = await browser.post('/projects', { authenticity_token: token, 'project[name]': 'Mine', 'project[visibility]': 'private' })
    assert.equal(own.status, 302, own.text)
    assert.equal(own.headers.location, `/${user.user.username}/mine`)
    const taken = await browser.post('/projects', { authenticity_token: token, 'project[name]': 'Mine"><b>', 'project[path]': 'mine' })
    assert.equal(taken.status, 422)
    assert.match(taken.text, /error_explanation/)
    assert.match(taken.text, /has already been taken/)
    assert.ok(taken.text.includes('value="Mine&quot;&gt;&lt;b&gt;"'), 'the sent name is escaped')
    const closed = await browser.post('/projects', { authenticity_token: token, 'project[name]': 'Nope', 'project[namespace_id]': String(developed.id) })
    assert.equal(closed.status, 422)
    assert.match(closed.text, /Namespace is not valid/)
    assert.equal((await t.api('GET', `/projects/${encodeURIComponent(`${developed.full_path}/nope`)}`)).status, 404)
    const blank = await browser.post('/projects', { authenticity_token: token, 'project[name]': ' ' })
    assert.equal(blank.status, 422)
    const forged = await browser.post('/projects', { 'project[name]': 'Forged' })
    assert.equal(forged.status, 422)
    assert.equal((await t.api('GET', `/projects/${encodeURIComponent(`${user.user.username}/forged`)}`, { token: user.token })).status, 404)
  })
})
