// A project's webhooks and integrations pages (web/projects/settings-integrations.ts): for
// Maintainers only (a Developer, an outsider and an anonymous visitor get the 404 page), webhooks
// added, edited, tested against a real receiver and deleted, integrations saved and cleared, each
// effect checked through the API; secrets never echoed, hostile values escaped, the services'
// refusals shown with 422, CSRF.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, MAINTAINER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

describe('Web integrations settings', () => {
  let t: TestApp
  let owner: TestUser
  let maintainer: TestUser
  let developer: TestUser
  let outsider: TestUser
  let project: ProjectRow
  let base: string
  let receiver: HookReceiver
  let browser: Browser

  before(async () => {
    t = await buildTestApp()
    ;[owner, maintainer, developer, outsider] = await Promise.all([makeUser(t), makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'private' })
    await makeMember(t, { type: 'project', id: project.id }, maintainer, MAINTAINER)
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await commitFiles(t, project.id, { 'a.txt': 'a\n' })
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    base = `/${owner.user.username}/${project.path}`
    receiver = await startHookReceiver()
    const res = await t.api('PUT', '/application/settings', { body: { allow_local_requests_from_hooks_and_services: true } })
    assert.equal(res.status, 200, res.text)
    browser = await signedInBrowser(t, maintainer.user.username)
  })
  after(async () => {
    await receiver.close()
    await t.close()
  })

  const hooks = async () => (await t.api('GET', `/projects/${project.id}/hooks`, { token: owner.token })).body as Array<Record<string, unknown>>

  it('is the 404 page for Developers, outsiders and anonymous visitors', async () => {
    for (const path of [`${base}/-/settings/integrations`, `${base}/-/services/emails-on-push/edit`]) {
      assert.equal((await new Browser(t).get(path)).status, 404, path)
      assert.equal((await (await signedInBrowser(t, developer.user.username)).get(path)).status, 404, path)
      assert.equal((await (await signedInBrowser(t, outsider.user.username)).get(path)).status, 404, path)
    }
    const dev = await signedInBrowser(t, developer.user.username)
    const refused = await dev.post(`${base}/hooks`, { authenticity_token: await dev.csrfTokenFrom('/profile/personal_access_tokens'), 'hook[url]': `${receiver.url}/x` })
    assert.equal(refused.status, 404)
    assert.equal((await browser.get(`${base}/-/settings/nothing`)).status, 404)
    assert.deepEqual(await hooks(), [])
  })

  it('adds a webhook with its token, events and SSL verification; refuses a bad URL with 422 and no CSRF token', async () => {
    const page = await browser.get(`${base}/-/settings/integrations`)
    assert.equal(page.status, 200, page.text)
    assert.match(page.text, /Emails on push/)
    const token = formToken(page.text)
    const bad = await browser.post(`${base}/hooks`, { authenticity_token: token, 'hook[url]': 'ftp://"><b>x' })
    assert.equal(bad.status, 422)
    assert.match(bad.text, /Invalid url given/)
    assert.ok(!bad.text.includes('"><b>x'), 'the sent value is escaped')
    assert.equal((await browser.post(`${base}/hooks`, { 'hook[url]': `${receiver.url}/forged` })).status, 422)
    const res = await browser.post(`${base}/hooks`, {
      authenticity_token: token, 'hook[url]': `${receiver.url}/first?a=<i>`, 'hook[token]': 'hook-secret',
      'hook[issues_events]': '1', 'hook[push_events]': '1',
    })
    assert.equal(res.status, 302, res.text)
    const [hook] = await hooks()
    assert.equal(hook!.url, `${receiver.url}/first?a=<i>`)
    assert.equal(hook!.issues_events, true)
    assert.equal(hook!.push_events, true)
    assert.equal(hook!.tag_push_events, false)
    assert.equal(hook!.enable_ssl_verification, false)
    const listed = await browser.get(`${base}/-/settings/integrations`)
    assert.ok(listed.text.includes('/first?a=&lt;i&gt;'))
    assert.ok(!listed.text.includes('hook-secret'), 'the token is never shown')
  })

  it('edits a webhook, keeping the token when left blank, and tests it with a push sample', async () => {
    const [hook] = await hooks()
    const edit = await browser.get(`${base}/hooks/${hook!.id}/edit`)
    assert.equal(edit.status, 200, edit.text)
    assert.ok(!edit.text.includes('hook-secret'))
    const saved = await browser.post(`${base}/hooks/${hook!.id}`, {
      authenticity_token: formToken(edit.text), _method: 'put', 'hook[url]': `${receiver.url}/second`, 'hook[token]': '',
      'hook[push_events]': '1', 'hook[enable_ssl_verification]': '1',
    })
    assert.equal(saved.status, 302, saved.text)
    const [changed] = await hooks()
    assert.equal(changed!.url, `${receiver.url}/second`)
    assert.equal(changed!.issues_events, false)
    assert.equal(changed!.enable_ssl_verification, true)
    const badEdit = await browser.post(`${base}/hooks/${hook!.id}`, { authenticity_token: formToken(edit.text), _method: 'put', 'hook[url]': 'nope' })
    assert.equal(badEdit.status, 422)

    receiver.clear()
    const tested = await browser.post(`${base}/hooks/${hook!.id}/test`, { authenticity_token: formToken(edit.text), trigger: 'push_events' })
    assert.equal(tested.status, 200, tested.text)
    assert.match(tested.text, /Hook executed successfully/)
    assert.equal(receiver.received.length, 1)
    assert.equal(receiver.received[0]!.headers['x-gitlab-event'], 'Push Hook')
    assert.equal(receiver.received[0]!.headers['x-gitlab-token'], 'hook-secret', 'a blank token field kept the token')
    assert.equal(receiver.received[0]!.body.object_kind, 'push')
    receiver.answers.push(500)
    const failed = await browser.post(`${base}/hooks/${hook!.id}/test`, { authenticity_token: formToken(edit.text), trigger: 'push_events' })
    assert.equal(failed.status, 422)
    assert.match(failed.text, /returned HTTP 500/)
  })

  it('deletes a webhook', async () => {
    const [hook] = await hooks()
    const page = await browser.get(`${base}/-/settings/integrations`)
    const res = await browser.post(`${base}/hooks/${hook!.id}`, { authenticity_token: formToken(page.text), _method: 'delete' })
    assert.equal(res.status, 302)
    assert.deepEqual(await hooks(), [])
    assert.equal((await browser.post(`${base}/hooks/${hook!.id}`, { authenticity_token: formToken(page.text), _method: 'delete' })).status, 404)
  })

  it('saves an integration through the services form, never echoing its secret, and clears it', async () => {
    const path = `${base}/-/services/issue-tracker-workflow`
    const form = await browser.get(`${path}/edit`)
    assert.equal(form.status, 200, form.text)
    const token = formToken(form.text)
    const missing = await browser.post(path, { authenticity_token: token, _method: 'put', 'service[url]': 'https://203.0.113.9/jira' })
    assert.equal(missing.status, 422, 'the required settings are missing')
    assert.match(missing.text, /error_explanation/)
    const res = await browser.post(path, {
      authenticity_token: token, _method: 'put', 'service[url]': 'https://203.0.113.9/jira', 'service[project_key]': '<PRJ>',
      'service[username]': 'bot', 'service[password]': 'jira-password', 'service[merge_requests_events]': '1',
    })
    assert.equal(res.status, 302, res.text)
    const api = (await t.api('GET', `/projects/${project.id}/services/issue-tracker-workflow`, { token: owner.token })).body
    assert.equal(api.active, true)
    assert.equal(api.properties.project_key, '<PRJ>')
    const again = await browser.get(`${path}/edit`)
    assert.ok(!again.text.includes('jira-password'), 'the secret is never echoed')
    assert.ok(again.text.includes('&lt;PRJ&gt;'))
    // A blank password keeps the saved one: the required setting is still there.
    const kept = await browser.post(path, {
      authenticity_token: token, _method: 'put', 'service[url]': 'https://203.0.113.9/jira', 'service[project_key]': 'PRJ2', 'service[username]': 'bot', 'service[password]': '',
    })
    assert.equal(kept.status, 302, kept.text)
    const list = await browser.get(`${base}/-/settings/integrations`)
    assert.match(list.text, /Issue tracker with workflow<\/a><\/td><td>Active/)
    const cleared = await browser.post(path, { authenticity_token: token, _method: 'delete' })
    assert.equal(cleared.status, 302)
    assert.equal((await t.api('GET', `/projects/${project.id}/services/issue-tracker-workflow`, { token: owner.token })).body.active, false)
    assert.equal((await browser.get(`${base}/-/services/container-cluster/edit`)).status, 404, 'the deprecated kind while inactive')
    assert.equal((await browser.get(`${base}/-/services/no-such-kind/edit`)).status, 404)
  })
})
