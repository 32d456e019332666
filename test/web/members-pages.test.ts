// The members pages of projects and groups (web/members.ts): the read-only table for those who may
// not manage members (a Developer, a group's Maintainer, outsiders of a private project: the 404
// page), and for Maintainers of a project and Owners of a group the forms that add a member,
// change one's access level and expiry date and remove one, each checked through the API; the
// services' refusals (a member already, the last Owner, a bad level or date) shown with 422, the
// CSRF refusal, and hostile names escaped.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER, OWNER, REPORTER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

const HOSTILE = '<img src=x onerror=alert(1)>'

/** The id of `user`'s direct membership, as the page's forms name it. */
async function membershipId(t: TestApp, source: { type: 'project' | 'group'; id: number }, user: TestUser): Promise<number> {
  const row = await t.ctx.db.selectFrom('members').select('id')
    .where('source_type', '=', source.type).where('source_id', '=', source.id).where('user_id', '=', user.user.id).executeTakeFirstOrThrow()
  return row.id
}

function futureDate(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

describe('Web members pages of projects and groups', () => {
  let t: TestApp
  let owner: TestUser
  let maintainer: TestUser
  let developer: TestUser
  let newcomer: TestUser
  let outsider: TestUser
  let group: NamespaceRow
  let project: ProjectRow
  let projectBase: string
  before(async () => {
    t = await buildTestApp()
    ;[owner, maintainer, developer, newcomer, outsider] = await Promise.all([
      makeUser(t), makeUser(t), makeUser(t), makeUser(t, { name: `New ${HOSTILE}` }), makeUser(t),
    ])
    group = await makeGroup(t, { visibility: 'private' }, owner)
    project = await makeProject(t, owner, { visibility: 'private', namespace: group })
    await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    projectBase = `/${group.path}/${project.path}/project_members`
  })
  after(async () => { await t.close() })

  const projectMembers = async () => (await t.api('GET', `/projects/${project.id}/members`, { token: owner.token })).body as { username: string; access_level: number; expires_at: string | null }[]

  it('shows the read-only table to a Developer and the 404 page to outsiders and anonymous visitors', async () => {
    const dev = await signedInBrowser(t, developer.user.username)
    const page = await dev.get(projectBase)
    assert.equal(page.status, 200, page.text)
    assert.ok(page.text.includes(maintainer.user.username) && page.text.includes('Maintainer</td>'))
    assert.ok(page.text.includes(owner.user.username), 'the group\'s Owner, through the group')
    assert.ok(!page.text.includes('Add a member') && !page.text.includes('name="_method"'), 'no forms')
    const missing = await new Browser(t).get(`/${group.path}/no-such-project/project_members`)
    for (const browser of [new Browser(t), await signedInBrowser(t, outsider.user.username)]) {
      const res = await browser.get(projectBase)
      assert.equal(res.status, 404)
      assert.equal(res.text, missing.text)
    }
    const refused = await dev.post(projectBase, { authenticity_token: formToken((await dev.get(`/${group.path}/${project.path}/issues/new`)).text), 'member[username]': newcomer.user.username, 'member[access_level]': '30' })
    assert.equal(refused.status, 404, 'a Developer may not add members')
    const anonymous = await new Browser(t).post(projectBase, { 'member[username]': newcomer.user.username })
    assert.equal(anonymous.status, 302, 'anonymous visitors are sent to sign in')
  })

  it('lets a project Maintainer add, change and remove members; hostile names are escaped', async () => {
    const browser = await signedInBrowser(t, maintainer.user.username)
    const page = await browser.get(projectBase)
    assert.equal(page.status, 200)
    assert.ok(page.text.includes('Add a member'))
    assert.ok(page.text.includes('Through a group'), 'the group\'s Owner is not changed here')
    const token = formToken(page.text)
    const expires = futureDate(30)
    const added = await browser.post(projectBase, { authenticity_token: token, 'member[username]': `@${newcomer.user.username}`, 'member[access_level]': String(REPORTER), 'member[expires_at]': expires })
    assert.equal(added.status, 302, added.text)
    assert.equal(added.headers.location, projectBase)
    let member = (await projectMembers()).find((m) => m.username === newcomer.user.username)
    assert.deepEqual([member?.access_level, member?.expires_at], [REPORTER, expires])
    const listed = await browser.get(projectBase)
    assert.ok(listed.text.includes('New &lt;img src=x onerror=alert(1)&gt;') && !listed.text.includes(HOSTILE))

    const again = await browser.post(projectBase, { authenticity_token: token, 'member[username]': newcomer.user.username, 'member[access_level]': String(DEVELOPER) })
    assert.equal(again.status, 422)
    assert.ok(again.text.includes('Member already exists'))
    const nobody = await browser.post(projectBase, { authenticity_token: token, 'member[username]': 'no-such-user', 'member[access_level]': String(DEVELOPER) })
    assert.equal(nobody.status, 422)
    assert.ok(nobody.text.includes('There is no user with the username no-such-user'))
    const ownerLevel = await browser.post(projectBase, { authenticity_token: token, 'member[username]': outsider.user.username, 'member[access_level]': String(OWNER) })
    assert.equal(ownerLevel.status, 422, 'a project takes no Owners')
    assert.ok(ownerLevel.text.includes('Access level is not included in the list'))
    const past = await browser.post(projectBase, { authenticity_token: token, 'member[username]': outsider.user.username, 'member[access_level]': String(DEVELOPER), 'member[expires_at]': '2001-01-01' })
    assert.equal(past.status, 422)
    assert.ok(past.text.includes('Expires at must be a date in the future'))
    const notADate = await browser.post(projectBase, { authenticity_token: token, 'member[username]': outsider.user.username, 'member[access_level]': String(DEVELOPER), 'member[expires_at]': 'soon' })
    assert.equal(notADate.status, 422)
    assert.ok(!(await projectMembers()).some((m) => m.username === outsider.user.username))

    const id = await membershipId(t, { type: 'project', id: project.id }, newcomer)
    const changed = await browser.post(`${projectBase}/${id}`, { authenticity_token: token, _method: 'put', 'member[access_level]': String(DEVELOPER), 'member[expires_at]': '' })
    assert.equal(changed.status, 302, changed.text)
    member = (await projectMembers()).find((m) => m.username === newcomer.user.username)
    assert.deepEqual([member?.access_level, member?.expires_at], [DEVELOPER, null])

    const forged = await browser.post(`${projectBase}/${id}`, { _method: 'delete' })
    assert.equal(forged.status, 422, 'no CSRF token')
    assert.ok((await projectMembers()).some((m) => m.username === newcomer.user.username))
    assert.equal((await browser.post(`${projectBase}/999999999`, { authenticity_token: token, _method: 'delete' })).status, 404)
    const removed = await browser.post(`${projectBase}/${id}`, { authenticity_token: token, _method: 'delete' })
    assert.equal(removed.status, 302)
    assert.ok(!(await projectMembers()).some((m) => m.username === newcomer.user.username))
  })

  it('refuses to change or remove the owner of a personal project, with the service\'s reason', async () => {
    const personal = await makeProject(t, owner, { visibility: 'private' })
    const base = `/${owner.user.username}/${personal.path}/project_members`
    const browser = await signedInBrowser(t, owner.user.username)
    const page = await browser.get(base)
    const token = formToken(page.text)
    const id = await membershipId(t, { type: 'project', id: personal.id }, owner)
    const removed = await browser.post(`${base}/${id}`, { authenticity_token: token, _method: 'delete' })
    assert.equal(removed.status, 422)
    assert.ok(removed.text.includes('The owner of a personal project cannot be changed or removed'))
  })

  it('lets group Owners manage the group\'s members (Owners included); its Maintainers only read them', async () => {
    const base = `/groups/${group.path}/-/group_members`
    const groupMembers = async () => (await t.api('GET', `/groups/${group.id}/members`, { token: owner.token })).body as { username: string; access_level: number }[]
    await makeMember(t, { type: 'group', id: group.id }, developer, MAINTAINER)
    const groupMaintainer = await signedInBrowser(t, developer.user.username)
    const readOnly = await groupMaintainer.get(base)
    assert.equal(readOnly.status, 200)
    assert.ok(!readOnly.text.includes('Add a member') && !readOnly.text.includes('/-/edit'), 'no forms, no Settings tab')
    const token = formToken((await groupMaintainer.get(`/${group.path}/${project.path}/issues/new`)).text)
    assert.equal((await groupMaintainer.post(base, { authenticity_token: token, 'member[username]': outsider.user.username, 'member[access_level]': String(OWNER) })).status, 404)
    assert.equal((await new Browser(t).get(base)).status, 404, 'a private group is the 404 page')

    const browser = await signedInBrowser(t, owner.user.username)
    const page = await browser.get(base)
    assert.ok(page.text.includes('Add a member') && page.text.includes('href="/groups/' + group.path + '/-/edit"'))
    const ownerToken = formToken(page.text)
    const added = await browser.post(base, { authenticity_token: ownerToken, 'member[username]': outsider.user.username, 'member[access_level]': String(OWNER) })
    assert.equal(added.status, 302, added.text)
    assert.equal((await groupMembers()).find((m) => m.username === outsider.user.username)?.access_level, OWNER)
    const outsiderId = await membershipId(t, { type: 'group', id: group.id }, outsider)
    assert.equal((await browser.post(`${base}/${outsiderId}`, { authenticity_token: ownerToken, _method: 'delete' })).status, 302)

    const ownerId = await membershipId(t, { type: 'group', id: group.id }, owner)
    const lastOwner = await browser.post(`${base}/${ownerId}`, { authenticity_token: ownerToken, _method: 'delete' })
    assert.equal(lastOwner.status, 422)
    assert.ok(lastOwner.text.includes('The last owner cannot be removed from the group'))
    const demoted = await browser.post(`${base}/${ownerId}`, { authenticity_token: ownerToken, _method: 'put', 'member[access_level]': String(DEVELOPER) })
    assert.equal(demoted.status, 422)
    assert.ok(demoted.text.includes('The last owner of the group cannot be demoted'))
    assert.equal((await groupMembers()).find((m) => m.username === owner.user.username)?.access_level, OWNER)
  })
})
