// A project's settings page (web/projects/settings.ts) and the admin area (web/admin/): who may
// open them (a Developer, and anyone but an administrator, gets the 404 page), the forms' effects
// checked through the API, the services' refusals shown, CSRF, and deletion only after typing the
// project's path.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_PASSWORD, ROOT_TOKEN, buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

describe('Web project settings and admin area', () => {
  let t: TestApp
  let owner: TestUser
  let maintainer: TestUser
  let developer: TestUser
  let project: ProjectRow
  let base: string
  const signedIn = (login: string) => signedInBrowser(t, login, login === 'root' ? ROOT_PASSWORD : undefined)
  before(async () => {
    t = await buildTestApp()
    ;[owner, maintainer, developer] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'private' })
    await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await commitFiles(t, project.id, { 'a.txt': 'a\n' })
    await commitFiles(t, project.id, { 'b.txt': 'b\n' }, { branch: 'develop' })
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  it('lets a Maintainer change the description, features, merge method and default branch; not the name or visibility', async () => {
    assert.equal((await (await signedIn(developer.user.username)).get(`${base}/edit`)).status, 404)
    const browser = await signedIn(maintainer.user.username)
    const form = await browser.get(`${base}/edit`)
    assert.equal(form.status, 200, form.text)
    assert.ok(!form.text.includes('Delete the project'), 'deleting is for Owners')
    const res = await browser.post(`${base}/edit`, [
      ['authenticity_token', formToken(form.text)], ['_method', 'put'], ['project[name]', 'Renamed'], ['project[description]', 'New <b>words</b>'],
      ['project[visibility]', 'public'], ['project[default_branch]', 'develop'], ['project[issues_enabled]', '1'], ['project[merge_method]', 'ff'],
    ])
    assert.equal(res.status, 302, res.text)
    const api = (await t.api('GET', `/projects/${project.id}`, { token: owner.token })).body
    assert.equal(api.description, 'New <b>words</b>')
    assert.equal(api.default_branch, 'develop')
    assert.equal(api.merge_method, 'ff')
    assert.equal(api.merge_requests_enabled, false, 'an unticked feature is turned off')
    assert.equal(api.issues_enabled, true)
    assert.equal(api.name, project.name, 'only Owners rename')
    assert.equal(api.visibility, 'private', 'only Owners change the visibility')
    const bad = await browser.post(`${base}/edit`, [['authenticity_token', formToken(form.text)], ['_method', 'put'], ['project[default_branch]', 'no-such-branch']])
    assert.equal(bad.status, 422)
    assert.ok(bad.text.includes('error_explanation'))
  })

  it('archives, and deletes only once the Owner types the project\'s path', async () => {
    const browser = await signedIn(owner.user.username)
    const form = await browser.get(`${base}/edit`)
    const token = formToken(form.text)
    await browser.post(`${base}/edit`, { authenticity_token: token, action: 'archive' })
    assert.equal((await t.api('GET', `/projects/${project.id}`, { token: owner.token })).body.archived, true)
    await browser.post(`${base}/edit`, { authenticity_token: token, action: 'unarchive' })
    const wrong = await browser.post(`${base}/edit`, { authenticity_token: token, action: 'delete', confirm_path: 'nope' })
    assert.equal(wrong.status, 422)
    assert.equal((await t.api('GET', `/projects/${project.id}`, { token: owner.token })).status, 200)
    const forged = await browser.post(`${base}/edit`, { action: 'delete', confirm_path: project.path })
    assert.equal(forged.status, 422, 'no CSRF token')
    const deleted = await browser.post(`${base}/edit`, { authenticity_token: token, action: 'delete', confirm_path: project.path })
    assert.equal(deleted.status, 302)
    assert.equal((await t.api('GET', `/projects/${project.id}`, { token: owner.token })).status, 404)
  })

  it('keeps the admin area to administrators', async () => {
    const user = await signedIn(owner.user.username)
    for (const path of ['/admin', '/admin/users', '/admin/application_settings', '/admin/projects']) {
      assert.equal((await user.get(path)).status, 404, path)
    }
    const refused = await user.post('/admin/application_settings', { authenticity_token: await user.csrfTokenFrom('/profile/personal_access_tokens'), 'application_setting[signup_enabled]': '' })
    assert.equal(refused.status, 404)
    const anonymous = await new Browser(t).get('/admin/users')
    assert.equal(anonymous.status, 302)
  })

  it('lets an administrator create, block and unblock users, and change the application settings', async () => {
    const admin = await signedIn('root')
    const overview = await admin.get('/admin')
    assert.equal(overview.status, 200)
    const form = await admin.get('/admin/users/new')
    const token = formToken(form.text)
    const created = await admin.post('/admin/users', { authenticity_token: token, 'user[name]': 'New <Person>', 'user[username]': 'newperson', 'user[email]': 'new@example.com' })
    assert.equal(created.status, 302, created.text)
    const row = await t.ctx.db.selectFrom('users').selectAll().where('username', '=', 'newperson').executeTakeFirstOrThrow()
    const list = await admin.get('/admin/users?search=newperson')
    assert.ok(list.text.includes('New &lt;Person&gt;'))
    const taken = await admin.post('/admin/users', { authenticity_token: token, 'user[name]': 'Again', 'user[username]': 'newperson', 'user[email]': 'other@example.com' })
    assert.equal(taken.status, 422)
    await admin.post(`/admin/users/${row.username}/block`, { authenticity_token: token })
    assert.equal((await t.ctx.db.selectFrom('users').select('state').where('id', '=', row.id).executeTakeFirstOrThrow()).state, 'blocked')
    await admin.post(`/admin/users/${row.username}/unblock`, { authenticity_token: token })
    assert.equal((await t.ctx.db.selectFrom('users').select('state').where('id', '=', row.id).executeTakeFirstOrThrow()).state, 'active')

    const settings = await admin.get('/admin/application_settings')
    const saved = await admin.post('/admin/application_settings', {
      authenticity_token: formToken(settings.text), 'application_setting[default_project_visibility]': 'internal', 'application_setting[default_projects_limit]': '7',
      'application_setting[sign_in_text]': 'Welcome <b>in</b>',
    })
    assert.equal(saved.status, 302, saved.text)
    const api = (await t.api('GET', '/application/settings', { token: ROOT_TOKEN })).body
    assert.deepEqual([api.signup_enabled, api.default_project_visibility, api.default_projects_limit, api.sign_in_text], [false, 'internal', 7, 'Welcome <b>in</b>'])
  })
})
