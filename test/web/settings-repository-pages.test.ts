// A project's repository settings page (web/projects/settings-repository.ts): Maintainers only (a
// Developer, an outsider and an anonymous visitor get the 404 page, or the sign-in page for a
// form), protected branches and tags protected, changed and unprotected, deploy keys added,
// enabled and disabled, each checked through the API; hostile names escaped, refusals shown with
// 422, and the CSRF check.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeKey } from '../helpers/public-keys.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser, type PageResponse } from './browser.js'

describe('Web repository settings page', () => {
  let t: TestApp
  let owner: TestUser
  let maintainer: TestUser
  let developer: TestUser
  let outsider: TestUser
  let project: ProjectRow
  let other: ProjectRow
  let page: string
  const signedIn = (user: TestUser) => signedInBrowser(t, user.user.username)
  before(async () => {
    t = await buildTestApp()
    ;[owner, maintainer, developer, outsider] = await Promise.all([makeUser(t), makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    other = await makeProject(t, maintainer, { visibility: 'private' })
    await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    page = `/${owner.user.username}/${project.path}/-/settings/repository`
  })
  after(async () => { await t.close() })

  const post = async (browser: Browser, path: string, fields: Record<string, string>): Promise<PageResponse> =>
    browser.post(`${page}${path}`, { authenticity_token: await browser.csrfTokenFrom(page), ...fields })

  it('is for Maintainers: others get the 404 page, anonymous forms the sign-in page', async () => {
    assert.equal((await new Browser(t).get(page)).status, 404)
    assert.equal((await (await signedIn(outsider)).get(page)).status, 404)
    const developerBrowser = await signedIn(developer)
    assert.equal((await developerBrowser.get(page)).status, 404)
    const token = await developerBrowser.csrfTokenFrom('/profile/personal_access_tokens')
    assert.equal((await developerBrowser.post(`${page}/protected_branches`, { authenticity_token: token, name: 'x' })).status, 404)
    const anonymous = await new Browser(t).post(`${page}/protected_branches`, { name: 'x' })
    assert.equal(anonymous.status, 302)
    assert.equal((await new Browser(t).get(`/${owner.user.username}/${project.path}/-/settings/nope`)).status, 404)
    const res = await (await signedIn(maintainer)).get(page)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.text.includes('aria-label="Settings"') && res.text.includes('/-/settings/ci_cd') && res.text.includes('aria-current="page">Repository'))
  })

  it('protects a branch with its levels, changes them and unprotects it; names escaped, refusals 422', async () => {
    const browser = await signedIn(maintainer)
    const created = await post(browser, '/protected_branches', { name: 'release/*"><b>', push_access_level: '30', merge_access_level: '0' })
    assert.equal(created.status, 302, created.text)
    const api = () => t.api('GET', `/projects/${project.id}/protected_branches`, { token: owner.token })
    let rules = (await api()).body as { name: string; push_access_levels: { access_level: number }[]; merge_access_levels: { access_level: number }[] }[]
    assert.deepEqual(rules.map((rule) => [rule.name, rule.push_access_levels[0]?.access_level, rule.merge_access_levels[0]?.access_level]), [['release/*"><b>', 30, 0]])
    const shown = await browser.get(page)
    assert.ok(shown.text.includes('release/*&quot;&gt;&lt;b&gt;') && !shown.text.includes('"><b>'))

    const again = await post(browser, '/protected_branches', { name: 'release/*"><b>', push_access_level: '40', merge_access_level: '40' })
    assert.equal(again.status, 422)
    assert.ok(again.text.includes('error_explanation') && again.text.includes('already exists'))
    assert.equal((await post(browser, '/protected_branches', { name: '', push_access_level: '40', merge_access_level: '40' })).status, 422)

    const ruleUrl = `/protected_branches/${encodeURIComponent('release')}/${encodeURIComponent('*"><b>')}`
    const changed = await post(browser, ruleUrl, { _method: 'put', push_access_level: '40', merge_access_level: '30' })
    assert.equal(changed.status, 302, changed.text)
    rules = (await api()).body
    assert.deepEqual([rules[0]?.push_access_levels[0]?.access_level, rules[0]?.merge_access_levels[0]?.access_level], [40, 30])
    const removed = await post(browser, ruleUrl, { _method: 'delete' })
    assert.equal(removed.status, 302)
    assert.deepEqual((await api()).body, [])
    assert.equal((await post(browser, ruleUrl, { _method: 'delete' })).status, 404)
  })

  it('protects a tag with its create level and unprotects it', async () => {
    const browser = await signedIn(maintainer)
    assert.equal((await post(browser, '/protected_tags', { name: 'v*', create_access_level: '30' })).status, 302)
    const api = () => t.api('GET', `/projects/${project.id}/protected_tags`, { token: owner.token })
    assert.deepEqual(((await api()).body as { name: string; create_access_levels: { access_level: number }[] }[])
      .map((rule) => [rule.name, rule.create_access_levels[0]?.access_level]), [['v*', 30]])
    assert.ok((await browser.get(page)).text.includes('Allowed to create: Developers + Maintainers'))
    assert.equal((await post(browser, '/protected_tags/v*', { _method: 'delete' })).status, 302)
    assert.deepEqual((await api()).body, [])
  })

  it('adds a deploy key, refuses a bad one, disables it, and enables a key of another maintained project', async () => {
    const browser = await signedIn(maintainer)
    const added = await post(browser, '/deploy_keys', { title: 'CI <key>', key: makeKey(), can_push: '1' })
    assert.equal(added.status, 302, added.text)
    const keys = async () => (await t.api('GET', `/projects/${project.id}/deploy_keys`, { token: owner.token })).body as { id: number; title: string; can_push: boolean }[]
    const [key] = await keys()
    assert.deepEqual([key?.title, key?.can_push], ['CI <key>', true])
    const shown = await browser.get(page)
    assert.ok(shown.text.includes('CI &lt;key&gt;') && shown.text.includes('Write access allowed'))
    const bad = await post(browser, '/deploy_keys', { title: 'bad', key: 'not a key' })
    assert.equal(bad.status, 422)
    assert.ok(bad.text.includes('error_explanation'))

    assert.equal((await post(browser, `/deploy_keys/${key!.id}`, { _method: 'delete' })).status, 302)
    assert.deepEqual(await keys(), [])

    const elsewhere = await t.api('POST', `/projects/${other.id}/deploy_keys`, { token: maintainer.token, body: { title: 'Other key', key: makeKey() } })
    assert.equal(elsewhere.status, 201, elsewhere.text)
    const offered = await browser.get(page)
    assert.ok(offered.text.includes(`/deploy_keys/${elsewhere.body.id}/enable`), 'a key of a project the visitor maintains is offered')
    assert.ok(!(await (await signedIn(owner)).get(page)).text.includes(`/deploy_keys/${elsewhere.body.id}/enable`), 'not to one who does not maintain it')
    assert.equal((await post(browser, `/deploy_keys/${elsewhere.body.id}/enable`, {})).status, 302)
    assert.deepEqual((await keys()).map((held) => held.title), ['Other key'])
    const ownerBrowser = await signedIn(owner)
    assert.equal((await post(ownerBrowser, '/deploy_keys/999999/enable', {})).status, 404)
  })

  it('refuses a form without the CSRF token', async () => {
    const browser = await signedIn(maintainer)
    const res = await browser.post(`${page}/protected_tags`, { authenticity_token: 'forged', name: 'x*' })
    assert.equal(res.status, 422)
    assert.deepEqual((await t.api('GET', `/projects/${project.id}/protected_tags`, { token: owner.token })).body, [])
    assert.ok(formToken((await browser.get(page)).text))
  })
})
