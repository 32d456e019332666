// A group's settings (web/groups/settings.ts) and new groups: who may open them (a group's
// Maintainer, outsiders and anonymous visitors get the 404 page or the sign-in redirect; a user who
// may not create groups gets the 404 page at /groups/new), the forms' effects checked through the
// API, the services' refusals shown with 422, CSRF, hostile values escaped, and deletion only after
// typing the group's path.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_PASSWORD, buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import type { NamespaceRow } from '../../src/db/schema.js'
import { MAINTAINER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

const HOSTILE = '<img src=x onerror=alert(1)>'

describe('Web group settings and new groups', () => {
  let t: TestApp
  let owner: TestUser
  let maintainer: TestUser
  let outsider: TestUser
  let group: NamespaceRow
  before(async () => {
    t = await buildTestApp()
    ;[owner, maintainer, outsider] = await Promise.all([makeUser(t), makeUser(t), makeUser(t, { can_create_group: false })])
    group = await makeGroup(t, { visibility: 'private' }, owner)
    await makeMember(t, { type: 'group', id: group.id }, maintainer, MAINTAINER)
  })
  after(async () => { await t.close() })

  const apiGroup = async (id: number) => (await t.api('GET', `/groups/${id}`, { token: owner.token }))

  it('keeps the settings to the group\'s Owners and administrators', async () => {
    const edit = `/groups/${group.path}/-/edit`
    const missing = await new Browser(t).get('/groups/no-such-group/-/edit')
    assert.equal(missing.status, 404)
    for (const login of [maintainer.user.username, outsider.user.username]) {
      const browser = await signedInBrowser(t, login)
      const res = await browser.get(edit)
      assert.equal(res.status, 404, login)
      assert.equal(res.text, missing.text)
    }
    const groupMaintainer = await signedInBrowser(t, maintainer.user.username)
    const token = formToken((await groupMaintainer.get('/profile/personal_access_tokens')).text)
    assert.equal((await groupMaintainer.post(edit, { authenticity_token: token, _method: 'put', 'group[name]': 'Taken over' })).status, 404)
    assert.equal((await groupMaintainer.post(edit, { authenticity_token: token, action: 'delete', confirm_path: group.path })).status, 404)
    assert.equal((await new Browser(t).get(edit)).status, 404)
    assert.equal((await new Browser(t).post(edit, { action: 'delete', confirm_path: group.path })).status, 302, 'sent to sign in')
    const admin = await signedInBrowser(t, 'root', ROOT_PASSWORD)
    assert.equal((await admin.get(edit)).status, 200)
    assert.equal((await apiGroup(group.id)).body.name, group.name)
  })

  it('saves an Owner\'s changes through the API\'s update service and shows its refusals', async () => {
    const browser = await signedInBrowser(t, owner.user.username)
    const overview = await browser.get(`/groups/${group.path}`)
    assert.ok(overview.text.includes(`href="/groups/${group.path}/-/edit"`), 'a Settings tab')
    const form = await browser.get(`/groups/${group.path}/-/edit`)
    assert.equal(form.status, 200, form.text)
    const token = formToken(form.text)
    const newPath = `${group.path}-renamed`
    const saved = await browser.post(`/groups/${group.path}/-/edit`, {
      authenticity_token: token, _method: 'put', 'group[name]': `Renamed ${HOSTILE}`, 'group[path]': newPath,
      'group[description]': 'About <b>us</b>', 'group[visibility]': 'internal', 'group[request_access_enabled]': '1',
    })
    assert.equal(saved.status, 302, saved.text)
    assert.equal(saved.headers.location, `/groups/${newPath}/-/edit`)
    const api = (await apiGroup(group.id)).body
    assert.deepEqual([api.name, api.path, api.description, api.visibility, api.request_access_enabled, api.lfs_enabled],
      [`Renamed ${HOSTILE}`, newPath, 'About <b>us</b>', 'internal', true, false])
    const shown = await browser.get(`/groups/${newPath}/-/edit`)
    assert.ok(shown.text.includes('Renamed &lt;img src=x onerror=alert(1)&gt;') && !shown.text.includes(HOSTILE))

    // A project more visible than the group forbids lowering the group's visibility.
    const renamed = await t.ctx.db.selectFrom('namespaces').selectAll().where('id', '=', group.id).executeTakeFirstOrThrow()
    await makeProject(t, owner, { visibility: 'internal', namespace: renamed })
    const lowered = await browser.post(`/groups/${newPath}/-/edit`, { authenticity_token: token, _method: 'put', 'group[name]': 'Kept', 'group[path]': newPath, 'group[visibility]': 'private' })
    assert.equal(lowered.status, 422)
    assert.ok(lowered.text.includes('private is not allowed since this group contains projects with higher visibility.'))
    assert.ok(lowered.text.includes('value="Kept"'), 'the values sent are kept')
    const blank = await browser.post(`/groups/${newPath}/-/edit`, { authenticity_token: token, _method: 'put', 'group[name]': ' ', 'group[path]': newPath })
    assert.equal(blank.status, 422)
    assert.ok(blank.text.includes('Name can&#39;t be blank'))
    const forged = await browser.post(`/groups/${newPath}/-/edit`, { _method: 'put', 'group[name]': 'Forged' })
    assert.equal(forged.status, 422)
    assert.equal((await apiGroup(group.id)).body.name, `Renamed ${HOSTILE}`)
    group = renamed
  })

  it('deletes the group only once its Owner types its path', async () => {
    const doomed = await makeGroup(t, { visibility: 'private' }, owner)
    const project = await makeProject(t, owner, { visibility: 'private', namespace: doomed })
    const edit = `/groups/${doomed.path}/-/edit`
    const browser = await signedInBrowser(t, owner.user.username)
    const token = formToken((await browser.get(edit)).text)
    const wrong = await browser.post(edit, { authenticity_token: token, action: 'delete', confirm_path: 'nope' })
    assert.equal(wrong.status, 422)
    assert.equal((await apiGroup(doomed.id)).status, 200)
    const forged = await browser.post(edit, { action: 'delete', confirm_path: doomed.path })
    assert.equal(forged.status, 422, 'no CSRF token')
    const deleted = await browser.post(edit, { authenticity_token: token, action: 'delete', confirm_path: doomed.path })
    assert.equal(deleted.status, 302)
    assert.equal(deleted.headers.location, '/dashboard/groups')
    assert.equal((await apiGroup(doomed.id)).status, 404)
    assert.equal((await t.api('GET', `/projects/${project.id}`, { token: owner.token })).status, 404, 'its projects went with it')
  })

  it('creates groups and subgroups for those the API lets create them', async () => {
    assert.equal((await new Browser(t).get('/groups/new')).status, 302, 'sent to sign in')
    const refused = await signedInBrowser(t, outsider.user.username)
    assert.equal((await refused.get('/groups/new')).status, 404, 'this user may not create groups')
    assert.ok(!(await refused.get('/dashboard/groups')).text.includes('href="/groups/new"'))
    assert.equal((await refused.get(`/groups/new?parent_id=${group.id}`)).status, 404, 'nor subgroups of a group they cannot see')
    const outsiderToken = formToken((await refused.get('/profile/personal_access_tokens')).text)
    assert.equal((await refused.post('/groups', { authenticity_token: outsiderToken, 'group[name]': 'Nope', 'group[path]': 'nope-group' })).status, 404)

    const browser = await signedInBrowser(t, owner.user.username)
    assert.ok((await browser.get('/dashboard/groups')).text.includes('href="/groups/new"'))
    const form = await browser.get('/groups/new')
    assert.equal(form.status, 200, form.text)
    const token = formToken(form.text)
    const created = await browser.post('/groups', { authenticity_token: token, 'group[name]': `Fresh ${HOSTILE}`, 'group[path]': 'fresh-group', 'group[visibility]': 'public', 'group[lfs_enabled]': '1' })
    assert.equal(created.status, 302, created.text)
    assert.equal(created.headers.location, '/groups/fresh-group')
    const api = (await t.api('GET', '/groups/fresh-group', { token: owner.token })).body
    assert.deepEqual([api.name, api.visibility, api.lfs_enabled, api.parent_id], [`Fresh ${HOSTILE}`, 'public', true, null])
    const members = (await t.api('GET', `/groups/${api.id}/members`, { token: owner.token })).body as { username: string; access_level: number }[]
    assert.deepEqual(members.map((m) => [m.username, m.access_level]), [[owner.user.username, 50]], 'its creator is its Owner')
    const taken = await browser.post('/groups', { authenticity_token: token, 'group[name]': 'Again', 'group[path]': 'fresh-group' })
    assert.equal(taken.status, 422)
    assert.ok(taken.text.includes('Path has already been taken'))
    assert.ok(taken.text.includes('value="Again"'))

    const overview = await browser.get('/groups/fresh-group')
    assert.ok(overview.text.includes(`href="/groups/new?parent_id=${api.id}"`), 'a New subgroup link for its Owner')
    const subForm = await browser.get(`/groups/new?parent_id=${api.id}`)
    assert.equal(subForm.status, 200)
    assert.ok(subForm.text.includes('/fresh-group/'))
    const sub = await browser.post('/groups', { authenticity_token: token, 'group[parent_id]': String(api.id), 'group[name]': 'Inner', 'group[path]': 'inner', 'group[visibility]': 'public' })
    assert.equal(sub.status, 302, sub.text)
    assert.equal(sub.headers.location, '/groups/fresh-group/inner')
    assert.equal((await t.api('GET', `/groups/${encodeURIComponent('fresh-group/inner')}`, { token: owner.token })).body.parent_id, api.id)
    const groupMaintainer = await signedInBrowser(t, maintainer.user.username)
    assert.equal((await groupMaintainer.get(`/groups/new?parent_id=${group.id}`)).status, 404, 'a Maintainer creates no subgroups')
  })
})
