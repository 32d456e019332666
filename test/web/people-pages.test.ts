// The pages outside a project (web/dashboard.ts, web/namespaces.ts, web/listings.ts): explore
// projects and groups, the dashboard's projects, groups, activity, issues and merge requests, a
// user's page and a group's (top-level, nested, members); each lists what the API would list for
// the visitor (public to anonymous visitors, internal once signed in, private to members), with
// names escaped.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeIssue } from '../helpers/issues.js'
import { makeMergeRequest } from '../helpers/merge-requests.js'
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'
import { Browser } from './browser.js'

const HOSTILE = '<img src=x onerror=alert(1)>'

describe('Web pages of users, groups, the dashboard and explore', () => {
  let t: TestApp
  let owner: TestUser
  let member: TestUser
  let outsider: TestUser
  let publicProject: ProjectRow
  let internalProject: ProjectRow
  let privateProject: ProjectRow
  let group: NamespaceRow
  let subgroup: NamespaceRow
  let privateGroup: NamespaceRow
  let memberBrowser: Browser
  let outsiderBrowser: Browser
  before(async () => {
    t = await buildTestApp()
    ;[owner, member, outsider] = await Promise.all([makeUser(t, { name: `Owner ${HOSTILE}` }), makeUser(t), makeUser(t)])
    group = await makeGroup(t, { visibility: 'public', name: `Group ${HOSTILE}` }, owner)
    subgroup = await makeGroup(t, { visibility: 'public', parent: group, path: 'sub' }, owner)
    privateGroup = await makeGroup(t, { visibility: 'private' }, owner)
    publicProject = await makeProject(t, owner, { visibility: 'public', namespace: subgroup, description: `Desc ${HOSTILE}` })
    internalProject = await makeProject(t, owner, { visibility: 'internal' })
    privateProject = await makeProject(t, owner, { visibility: 'private' })
    await makeMember(t, { type: 'project', id: privateProject.id }, member, DEVELOPER)
    await makeIssue(t, privateProject, owner, { title: 'Assigned to member', assigneeIds: [member.user.id] })
    await makeMergeRequest(t, privateProject, owner, { title: 'MR for member', assigneeId: member.user.id })
    memberBrowser = new Browser(t)
    await memberBrowser.signIn(member.user.username)
    outsiderBrowser = new Browser(t)
    await outsiderBrowser.signIn(outsider.user.username)
  })
  after(async () => { await t.close() })

  const anonymous = () => new Browser(t)

  it('explores projects as the API lists them: public to anonymous visitors, internal once signed in', async () => {
    const anon = await anonymous().get('/explore/projects')
    assert.equal(anon.status, 200, anon.text)
    assert.ok(anon.text.includes(publicProject.name) && !anon.text.includes(internalProject.name) && !anon.text.includes(privateProject.name))
    assert.ok(anon.text.includes('Desc &lt;img src=x onerror=alert(1)&gt;') && !anon.text.includes(HOSTILE))
    const signedIn = await outsiderBrowser.get('/explore/projects')
    assert.ok(signedIn.text.includes(internalProject.name) && !signedIn.text.includes(privateProject.name))
    const searched = await outsiderBrowser.get(`/explore/projects?search=${encodeURIComponent(internalProject.name)}`)
    assert.ok(searched.text.includes(internalProject.name) && !searched.text.includes(publicProject.name))
    assert.equal((await anonymous().get('/explore/projects/starred')).status, 200)
    const groups = await anonymous().get('/explore/groups')
    assert.ok(groups.text.includes('Group &lt;img') && !groups.text.includes(privateGroup.name))
  })

  it('shows the signed-in visitor\'s dashboard: their projects, and the issues and merge requests assigned to them', async () => {
    const root = await memberBrowser.get('/')
    assert.equal(root.status, 200)
    assert.ok(root.text.includes(privateProject.name) && !root.text.includes(publicProject.name), 'their projects only')
    const issues = await memberBrowser.get('/dashboard/issues')
    assert.ok(issues.text.includes('Assigned to member'))
    const mrs = await memberBrowser.get('/dashboard/merge_requests')
    assert.ok(mrs.text.includes('MR for member'))
    const outsiders = await outsiderBrowser.get('/dashboard/issues')
    assert.ok(!outsiders.text.includes('Assigned to member'))
    const owners = await (async () => { const b = new Browser(t); await b.signIn(owner.user.username); return b })()
    assert.ok((await owners.get('/dashboard/activity')).text.includes('opened'))
    assert.ok((await owners.get('/dashboard/groups')).text.includes('Group &lt;img'))
    const anon = await anonymous().get('/dashboard/projects')
    assert.equal(anon.status, 302)
    assert.equal(anon.headers.location, '/users/sign_in')
  })

  it('shows a user\'s page with the personal projects the visitor may see', async () => {
    const anon = await anonymous().get(`/${owner.user.username}`)
    assert.equal(anon.status, 200, anon.text)
    assert.ok(anon.text.includes('Owner &lt;img') && !anon.text.includes(HOSTILE))
    assert.ok(!anon.text.includes(internalProject.name) && !anon.text.includes(privateProject.name))
    const theirs = await memberBrowser.get(`/${owner.user.username}`)
    assert.ok(theirs.text.includes(privateProject.name), 'a member sees the private project they belong to')
    assert.equal((await anonymous().get('/no-such-user-here')).status, 404)
  })

  it('shows groups at /groups/:path, at /:group and nested, with their members; a private group is the 404 page', async () => {
    for (const path of [`/groups/${group.path}`, `/${group.path}`]) {
      const res = await anonymous().get(path)
      assert.equal(res.status, 200, path)
      assert.ok(res.text.includes(`href="/groups/${group.path}/sub"`), 'its subgroup')
    }
    for (const path of [`/groups/${group.path}/sub`, `/${group.path}/sub`]) {
      const res = await anonymous().get(path)
      assert.equal(res.status, 200, path)
      assert.ok(res.text.includes(publicProject.name))
    }
    const members = await anonymous().get(`/groups/${group.path}/-/group_members`)
    assert.equal(members.status, 200)
    assert.ok(members.text.includes(owner.user.username) && members.text.includes('Owner</td>'))
    const missing = await anonymous().get('/groups/no-such-group')
    assert.equal(missing.status, 404)
    for (const browser of [anonymous(), outsiderBrowser]) {
      const res = await browser.get(`/groups/${privateGroup.path}`)
      assert.equal(res.status, 404)
      assert.equal(res.text, missing.text)
      assert.equal((await browser.get(`/${privateGroup.path}`)).status, 404)
    }
  })
})
