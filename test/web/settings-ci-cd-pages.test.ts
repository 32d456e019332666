// A project's CI/CD settings page (web/projects/settings-ci-cd.ts): Maintainers only; the general
// pipeline settings saved through the project update service (refusals 422); CI/CD variables with
// their values hidden until asked, added, changed and removed (and gone with the project's jobs);
// runners enabled and disabled with the API's rules, paused and resumed; the registration token
// reset; each checked through the API or the database; hostile values escaped; the CSRF check.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import { groupRunnersToken, instanceRunnersToken } from '../../src/services/ci/runners/registration-tokens.js'
import { Browser, signedInBrowser, type PageResponse } from './browser.js'

describe('Web CI/CD settings page', () => {
  let t: TestApp
  let owner: TestUser
  let maintainer: TestUser
  let developer: TestUser
  let project: ProjectRow
  let page: string
  const signedIn = (user: TestUser) => signedInBrowser(t, user.user.username)
  before(async () => {
    t = await buildTestApp()
    ;[owner, maintainer, developer] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    page = `/${owner.user.username}/${project.path}/-/settings/ci_cd`
  })
  after(async () => { await t.close() })

  const post = async (browser: Browser, path: string, fields: Record<string, string> | readonly [string, string][]): Promise<PageResponse> => {
    const pairs = Array.isArray(fields) ? fields : Object.entries(fields)
    return browser.post(`${page}${path}`, [['authenticity_token', await browser.csrfTokenFrom(page)], ...pairs])
  }
  async function register(token: string, body: Record<string, unknown> = {}): Promise<number> {
    const res = await t.api('POST', '/runners', { token: null, body: { token, ...body } })
    assert.equal(res.status, 201, res.text)
    return res.body.id
  }
  const projectRunnerIds = async (projectId: number) =>
    ((await t.api('GET', `/projects/${projectId}/runners?scope=project_type`, { token: maintainer.token })).body as { id: number }[]).map((runner) => runner.id)

  it('is for Maintainers: others get the 404 page', async () => {
    assert.equal((await new Browser(t).get(page)).status, 404)
    assert.equal((await (await signedIn(developer)).get(page)).status, 404)
    const developerBrowser = await signedIn(developer)
    const token = await developerBrowser.csrfTokenFrom('/profile/personal_access_tokens')
    assert.equal((await developerBrowser.post(`${page}/variables`, { authenticity_token: token, key: 'X', value: 'y' })).status, 404)
    const res = await (await signedIn(maintainer)).get(page)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.text.includes('aria-current="page">CI/CD') && res.text.includes(project.runners_token))
  })

  it('saves the general pipeline settings through the project update service, and refuses bad ones with 422', async () => {
    const browser = await signedIn(maintainer)
    const saved = await post(browser, '', [['_method', 'put'], ['project[ci_config_path]', 'ci/"><b>.yml'], ['project[build_timeout_minutes]', '30'], ['project[shared_runners_enabled]', '1']])
    assert.equal(saved.status, 302, saved.text)
    const api = await t.api('GET', `/projects/${project.id}`, { token: owner.token })
    assert.deepEqual([api.body.ci_config_path, api.body.public_jobs, api.body.shared_runners_enabled], ['ci/"><b>.yml', false, true])
    const row = await t.ctx.db.selectFrom('projects').select('build_timeout').where('id', '=', project.id).executeTakeFirstOrThrow()
    assert.equal(row.build_timeout, 1800)
    const shown = await browser.get(page)
    assert.ok(shown.text.includes('value="ci/&quot;&gt;&lt;b&gt;.yml"') && !shown.text.includes('"><b>'))
    const refusals: [string, string][] = [['project[ci_config_path]', '../x.yml'], ['project[build_timeout_minutes]', '5'], ['project[build_timeout_minutes]', 'soon']]
    for (const bad of refusals) {
      const refused = await post(browser, '', [['_method', 'put'], bad])
      assert.equal(refused.status, 422, refused.text)
      assert.ok(refused.text.includes('error_explanation'))
    }
    const after = await t.api('GET', `/projects/${project.id}`, { token: owner.token })
    assert.equal(after.body.ci_config_path, 'ci/"><b>.yml')
  })

  it('lists variables with values hidden until asked; adds, changes and removes them', async () => {
    const browser = await signedIn(maintainer)
    assert.equal((await post(browser, '/variables', { key: 'SECRET', value: 'se<cr>et', protected: '1' })).status, 302)
    const api = async () => (await t.api('GET', `/projects/${project.id}/variables`, { token: owner.token })).body as { key: string; value: string; protected: boolean }[]
    assert.deepEqual(await api(), [{ key: 'SECRET', value: 'se<cr>et', protected: true }])
    const hidden = await browser.get(page)
    assert.ok(hidden.text.includes('SECRET') && !hidden.text.includes('se&lt;cr&gt;et'))
    const revealed = await browser.get(`${page}?reveal=1`)
    assert.ok(revealed.text.includes('se&lt;cr&gt;et') && !revealed.text.includes('se<cr>et'))

    const duplicate = await post(browser, '/variables', { key: 'SECRET', value: 'x' })
    assert.equal(duplicate.status, 422)
    assert.ok(duplicate.text.includes('has already been taken'))
    assert.equal((await post(browser, '/variables', { key: 'bad key!', value: 'x' })).status, 422)

    assert.equal((await post(browser, '/variables/SECRET', { _method: 'put', value: '' })).status, 302)
    assert.deepEqual(await api(), [{ key: 'SECRET', value: 'se<cr>et', protected: false }], 'an empty value keeps it; the box unchecked unprotects')
    assert.equal((await post(browser, '/variables/SECRET', { _method: 'put', value: 'new', protected: '1' })).status, 302)
    assert.deepEqual(await api(), [{ key: 'SECRET', value: 'new', protected: true }])
    assert.equal((await post(browser, '/variables/SECRET', { _method: 'delete' })).status, 302)
    assert.deepEqual(await api(), [])
    assert.equal((await post(browser, '/variables/SECRET', { _method: 'delete' })).status, 404)
  })

  it('offers no variables while the project\'s jobs are disabled, as their API', async () => {
    const quiet = await makeProject(t, maintainer, { jobs_enabled: false })
    const browser = await signedIn(maintainer)
    const quietPage = `/${maintainer.user.username}/${quiet.path}/-/settings/ci_cd`
    const res = await browser.get(quietPage)
    assert.equal(res.status, 200)
    assert.ok(!res.text.includes('Add variable'))
    const refused = await browser.post(`${quietPage}/variables`, { authenticity_token: await browser.csrfTokenFrom(quietPage), key: 'X', value: 'y' })
    assert.equal(refused.status, 404)
  })

  it('enables and disables runners with the API\'s rules, pauses and resumes them, and lists group and shared runners', async () => {
    const browser = await signedIn(maintainer)
    const own = await register(project.runners_token, { description: 'Own <runner>' })
    const other = await makeProject(t, maintainer)
    const theirs = await register(other.runners_token, { description: 'Theirs' })
    const locked = await register(other.runners_token, { description: 'Locked', locked: true })
    const shared = await register(await instanceRunnersToken(t.ctx.db), { description: 'Shared one' })
    const shown = await browser.get(page)
    assert.ok(shown.text.includes('Own &lt;runner&gt;') && !shown.text.includes('Own <runner>'))
    assert.ok(shown.text.includes(`/runners/${theirs}/enable`) && !shown.text.includes(`/runners/${locked}/enable`), 'a locked runner is not offered')
    assert.ok(shown.text.includes('Shared one') && !shown.text.includes(`/runners/${shared}/enable`))

    assert.equal((await post(browser, `/runners/${theirs}/enable`, {})).status, 302)
    assert.deepEqual((await projectRunnerIds(project.id)).sort(), [own, theirs].sort())
    const lockedRefused = await post(browser, `/runners/${locked}/enable`, {})
    assert.equal(lockedRefused.status, 422)
    assert.ok(lockedRefused.text.includes('Runner is locked'))
    const onlyProject = await post(browser, `/runners/${own}/disable`, {})
    assert.equal(onlyProject.status, 422)
    assert.ok(onlyProject.text.includes('Only one project associated with the runner'))
    assert.equal((await post(browser, `/runners/${theirs}/disable`, {})).status, 302)
    assert.deepEqual(await projectRunnerIds(project.id), [own])
    assert.deepEqual(await projectRunnerIds(other.id), [theirs, locked])

    assert.equal((await post(browser, `/runners/${own}/pause`, {})).status, 302)
    assert.equal((await t.api('GET', `/runners/${own}`, { token: owner.token })).body.active, false)
    assert.equal((await post(browser, `/runners/${own}/resume`, {})).status, 302)
    assert.equal((await t.api('GET', `/runners/${own}`, { token: owner.token })).body.active, true)
    assert.equal((await post(browser, `/runners/${shared}/pause`, {})).status, 404, 'only runners of the project')
    assert.equal((await post(browser, '/runners/999999/enable', {})).status, 404)

    const group = await makeGroup(t, {}, maintainer)
    const grouped = await makeProject(t, maintainer, { namespace: group })
    const groupRunner = await register((await groupRunnersToken(t.ctx.db, group.id))!, { description: 'Group <one>' })
    const groupedPage = `/${group.full_path}/${grouped.path}/-/settings/ci_cd`
    const listed = await browser.get(groupedPage)
    assert.ok(listed.text.includes('Group &lt;one&gt;') && !listed.text.includes(`/runners/${groupRunner}/enable`))
    const refused = await browser.post(`${groupedPage}/runners/${groupRunner}/enable`, { authenticity_token: await browser.csrfTokenFrom(groupedPage) })
    assert.equal(refused.status, 422)
    assert.ok(refused.text.includes('Runner is a group runner'))
  })

  it('resets the registration token: the old one registers no more', async () => {
    const browser = await signedIn(maintainer)
    const old = project.runners_token
    assert.equal((await post(browser, '/reset_registration_token', {})).status, 302)
    const row = await t.ctx.db.selectFrom('projects').select('runners_token').where('id', '=', project.id).executeTakeFirstOrThrow()
    assert.notEqual(row.runners_token, old)
    assert.equal((await t.api('POST', '/runners', { token: null, body: { token: old } })).status, 403)
    await register(row.runners_token)
    assert.ok((await browser.get(page)).text.includes(row.runners_token))
  })

  it('refuses a form without the CSRF token', async () => {
    const browser = await signedIn(maintainer)
    const res = await browser.post(`${page}/variables`, { authenticity_token: 'forged', key: 'FORGED', value: 'x' })
    assert.equal(res.status, 422)
    assert.deepEqual((await t.api('GET', `/projects/${project.id}/variables`, { token: owner.token })).body, [])
  })
})
