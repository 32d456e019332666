// The admin area (web/admin/): users (their page, edit, block, delete), impersonation and its
// refusals, runners, background jobs, system hooks and the application settings; every form's
// effect checked through the API or the database, hostile values escaped, CSRF and 422 refusals,
// and the 404 page for everyone but administrators, everywhere under /admin.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_PASSWORD, ROOT_TOKEN, buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js'
import { openTestQueue } from '../helpers/jobs.js'
import { makeRunner } from '../helpers/runners.js'
import { defineJobKind } from '../../src/jobs/kind.js'
import type { JobQueue } from '../../src/jobs/queue.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

const FAILING = defineJobKind<{ note: string }>({
  name: 'test_admin_pages.fail', attempts: 1, timeLimitMs: 5_000, retryDelayMs: 1_000, concurrency: 1,
  async run() {
    throw new Error('the receiver said <b>no</b>')
  },
})

describe('Web admin area', () => {
  let t: TestApp
  let queue: JobQueue
  let receiver: HookReceiver
  let user: TestUser
  let admin: Browser
  const root = () => signedInBrowser(t, 'root', ROOT_PASSWORD)

  before(async () => {
    t = await buildTestApp()
    queue = await openTestQueue(t, [FAILING])
    receiver = await startHookReceiver()
    user = await makeUser(t, { name: 'Mallory <script>alert(1)</script>' })
    await makeProject(t, user, { visibility: 'private' })
    admin = await root()
  })
  after(async () => {
    await queue.close()
    await receiver.close()
    await t.close()
  })

  it('gives everyone but administrators the 404 page everywhere under /admin', async () => {
    const runner = await makeRunner(t)
    const browser = await signedInBrowser(t, user.user.username)
    const token = await browser.csrfTokenFrom('/profile/personal_access_tokens')
    const pages = ['/admin', '/admin/users', `/admin/users/${user.user.username}`, `/admin/users/${user.user.username}/edit`, '/admin/projects', '/admin/groups',
      '/admin/runners', `/admin/runners/${runner.row.id}`, '/admin/background_jobs', '/admin/hooks', '/admin/application_settings']
    for (const path of pages) assert.equal((await browser.get(path)).status, 404, path)
    const forms = ['/admin/users', `/admin/users/root/impersonate`, `/admin/users/root`, '/admin/users/root/block', `/admin/runners/${runner.row.id}`,
      `/admin/runners/${runner.row.id}/pause`, '/admin/application_settings/reset_runners_token', '/admin/background_jobs/retry_all', '/admin/hooks',
      '/admin/application_settings', '/admin/impersonation']
    for (const path of forms) assert.equal((await browser.post(path, { authenticity_token: token, _method: 'delete' })).status, 404, path)
    assert.equal((await t.ctx.db.selectFrom('ci_runners').select('id').where('id', '=', runner.row.id).executeTakeFirst())?.id, runner.row.id)
    const anonymous = new Browser(t)
    for (const path of pages) assert.equal((await anonymous.get(path)).status, 302, path)
  })

  it('shows a user\'s page, edits them through the update service, blocks, unblocks and deletes them', async () => {
    const other = await makeUser(t)
    const path = `/admin/users/${other.user.username}`
    const shown = await admin.get(`/admin/users/${user.user.username}`)
    assert.equal(shown.status, 200, shown.text)
    assert.ok(shown.text.includes('Mallory &lt;script&gt;alert(1)&lt;/script&gt;'))
    assert.ok(!shown.text.includes('<script>alert(1)'))
    assert.equal((await admin.get('/admin/users/no-such-user')).status, 404)

    const form = await admin.get(`${path}/edit`)
    assert.equal(form.status, 200)
    const token = formToken(form.text)
    const edit = (fields: Record<string, string>) => admin.post(path, { authenticity_token: token, _method: 'patch', ...fields })
    const saved = await edit({ 'user[name]': 'Renamed', 'user[email]': 'renamed@example.com', 'user[projects_limit]': '3', 'user[can_create_group]': '1' })
    assert.equal(saved.status, 302, saved.text)
    const api = (await t.api('GET', `/users/${other.user.id}`, { token: ROOT_TOKEN })).body
    assert.deepEqual([api.name, api.email, api.projects_limit, api.can_create_group, api.external, api.is_admin], ['Renamed', 'renamed@example.com', 3, true, false, false])
    await edit({ 'user[name]': 'Renamed', 'user[email]': 'renamed@example.com', 'user[projects_limit]': '3', 'user[can_create_group]': '1', 'user[external]': '1' })
    const external = (await t.api('GET', `/users/${other.user.id}`, { token: ROOT_TOKEN })).body
    assert.deepEqual([external.external, external.projects_limit, external.can_create_group], [true, 0, false], 'the service takes an external user\'s rights')
    const taken = await edit({ 'user[name]': 'Renamed', 'user[email]': user.user.email, 'user[projects_limit]': '3' })
    assert.equal(taken.status, 422)
    assert.match(taken.text, /Email has already been taken/)
    const notNumber = await edit({ 'user[name]': 'Renamed', 'user[email]': 'renamed@example.com', 'user[projects_limit]': 'many' })
    assert.equal(notNumber.status, 422)
    assert.match(notNumber.text, /Projects limit is not a number/)
    assert.equal((await admin.post(path, { _method: 'patch', 'user[name]': 'Forged' })).status, 422, 'no CSRF token')
    assert.equal((await t.api('GET', `/users/${other.user.id}`, { token: ROOT_TOKEN })).body.name, 'Renamed')

    await admin.post(`${path}/block`, { authenticity_token: token })
    assert.equal((await t.api('GET', `/users/${other.user.id}`, { token: ROOT_TOKEN })).body.state, 'blocked')
    await admin.post(`${path}/unblock`, { authenticity_token: token })
    assert.equal((await t.api('GET', `/users/${other.user.id}`, { token: ROOT_TOKEN })).body.state, 'active')
    assert.equal((await admin.post('/admin/users/root/block', { authenticity_token: token })).status, 404, 'not yourself')
    assert.equal((await admin.post('/admin/users/root', { authenticity_token: token, _method: 'delete' })).status, 404, 'not yourself')
    const deleted = await admin.post(path, { authenticity_token: token, _method: 'delete' })
    assert.equal(deleted.status, 302)
    assert.equal((await t.api('GET', `/users/${other.user.id}`, { token: ROOT_TOKEN })).status, 404)
  })

  it('impersonates a user: their session everywhere, the API included, with a banner that gives the admin their session back', async () => {
    const browser = await root()
    const userPage = `/admin/users/${user.user.username}`
    const token = await browser.csrfTokenFrom(userPage)
    const adminCookie = browser.cookies.get('_service_session')
    const started = await browser.post(`${userPage}/impersonate`, { authenticity_token: token })
    assert.equal(started.status, 302, started.text)
    assert.equal(started.headers.location, '/')
    assert.notEqual(browser.cookies.get('_service_session'), adminCookie)
    // The administrator's own session is over, whoever holds its cookie.
    const stale = new Browser(t)
    stale.cookies.set('_service_session', adminCookie!)
    assert.equal((await stale.get('/admin')).status, 302)

    const page = await browser.get('/dashboard/projects')
    assert.equal(page.status, 200)
    assert.match(page.text, /You are impersonating <strong>@[^<]+<\/strong> \(you are @root\)/)
    assert.ok(page.text.includes('Stop impersonating'))
    assert.ok(page.text.includes('<li class="user"><a href="/' + user.user.username), 'the header is the user\'s')
    const api = await browser.get('/api/v4/user')
    assert.equal(JSON.parse(api.text).username, user.user.username, 'the API reads the cookie as the user')
    assert.equal((await browser.get('/admin')).status, 404, 'the user is no administrator')

    const stopped = await browser.post('/admin/impersonation', { authenticity_token: formToken(page.text), _method: 'delete' })
    assert.equal(stopped.status, 302, stopped.text)
    assert.equal(stopped.headers.location, userPage)
    const back = await browser.get(userPage)
    assert.equal(back.status, 200)
    assert.ok(!back.text.includes('Stop impersonating'))
    assert.equal(JSON.parse((await browser.get('/api/v4/user')).text).username, 'root')
    assert.equal((await browser.post('/admin/impersonation', { authenticity_token: formToken(back.text), _method: 'delete' })).status, 404, 'no impersonation to stop')
  })

  it('refuses to impersonate a blocked user or yourself, and ends an impersonation whose administrator is demoted', async () => {
    const blocked = await makeUser(t)
    const browser = await root()
    const token = await browser.csrfTokenFrom('/admin/users/new')
    await browser.post(`/admin/users/${blocked.user.username}/block`, { authenticity_token: token })
    const refused = await browser.post(`/admin/users/${blocked.user.username}/impersonate`, { authenticity_token: token })
    assert.equal(refused.status, 422)
    assert.match(refused.text, /You cannot impersonate a blocked user/)
    const yourself = await browser.post('/admin/users/root/impersonate', { authenticity_token: token })
    assert.equal(yourself.status, 422)
    assert.match(yourself.text, /You cannot impersonate yourself/)
    assert.equal((await browser.post(`/admin/users/${user.user.username}/impersonate`, { authenticity_token: 'forged' })).status, 422, 'no CSRF token')
    assert.equal(JSON.parse((await browser.get('/api/v4/user')).text).username, 'root', 'still the administrator')

    const deputy = await makeUser(t, { admin: true })
    const deputyBrowser = await signedInBrowser(t, deputy.user.username)
    const started = await deputyBrowser.post(`/admin/users/${user.user.username}/impersonate`, { authenticity_token: await deputyBrowser.csrfTokenFrom('/admin/users/new') })
    assert.equal(started.status, 302)
    assert.equal((await deputyBrowser.get('/dashboard/projects')).status, 200)
    await t.api('PUT', `/users/${deputy.user.id}`, { token: ROOT_TOKEN, body: { admin: false } })
    assert.equal((await deputyBrowser.get('/dashboard/projects')).status, 302, 'signed out: the impersonator is no administrator any more')
  })

  it('lists runners with search and filters, edits one through the runner service, pauses, resumes, deletes, and resets the token', async () => {
    const project = await makeProject(t, user)
    const mine = await makeRunner(t, { type: 'project_type', projectIds: [project.id], description: 'build <box>', tags: ['linux'] })
    const shared = await makeRunner(t, { description: 'shared one' })
    const list = await admin.get('/admin/runners?search=box')
    assert.equal(list.status, 200)
    assert.ok(list.text.includes('build &lt;box&gt;'))
    assert.ok(!list.text.includes('shared one'))
    const byType = await admin.get('/admin/runners?type=instance_type')
    assert.ok(byType.text.includes('shared one') && !byType.text.includes('build &lt;box&gt;'))
    const oldToken = /id="registration_token">([^<]+)</.exec(list.text)?.[1]
    assert.ok(oldToken)

    const path = `/admin/runners/${mine.row.id}`
    const page = await admin.get(path)
    assert.equal(page.status, 200)
    assert.ok(page.text.includes(project.name), 'its assigned project')
    const token = formToken(page.text)
    const saved = await admin.post(path, {
      authenticity_token: token, _method: 'patch', 'runner[description]': 'renamed', 'runner[tag_list]': 'linux, docker', 'runner[run_untagged]': '1',
      'runner[locked]': '1', 'runner[access_level]': 'ref_protected', 'runner[maximum_timeout]': '3600', 'runner[active]': '1',
    })
    assert.equal(saved.status, 302, saved.text)
    const api = (await t.api('GET', `/runners/${mine.row.id}`, { token: ROOT_TOKEN })).body
    assert.deepEqual([api.description, api.tag_list.sort(), api.run_untagged, api.locked, api.access_level, api.maximum_timeout, api.active],
      ['renamed', ['docker', 'linux'], true, true, 'ref_protected', 3600, true])
    const refused = await admin.post(path, { authenticity_token: token, _method: 'patch', 'runner[tag_list]': '', 'runner[maximum_timeout]': '60' })
    assert.equal(refused.status, 422)
    assert.match(refused.text, /can not be empty when runner is not allowed to pick untagged jobs/)
    assert.match(refused.text, /needs to be at least 10 minutes/)

    await admin.post(`${path}/pause`, { authenticity_token: token })
    assert.equal((await t.api('GET', `/runners/${mine.row.id}`, { token: ROOT_TOKEN })).body.active, false)
    await admin.post(`${path}/resume`, { authenticity_token: token })
    assert.equal((await t.api('GET', `/runners/${mine.row.id}`, { token: ROOT_TOKEN })).body.active, true)
    assert.equal((await admin.post(path, { authenticity_token: token, _method: 'delete' })).status, 302)
    assert.equal((await t.api('GET', `/runners/${mine.row.id}`, { token: ROOT_TOKEN })).status, 404)
    assert.equal((await admin.get(path)).status, 404)

    assert.equal((await admin.post('/admin/application_settings/reset_runners_token', { authenticity_token: token, _method: 'put' })).status, 302)
    const newToken = /id="registration_token">([^<]+)</.exec((await admin.get('/admin/runners')).text)?.[1]
    assert.ok(newToken && newToken !== oldToken)
    await t.ctx.db.deleteFrom('ci_runners').where('id', '=', shared.row.id).execute()
  })

  it('shows the job queue with its dead jobs and their errors, and retries and removes them', async () => {
    await queue.enqueue(FAILING, { note: 'first' })
    await queue.enqueue(FAILING, { note: 'second' })
    assert.equal(await queue.runDue(), 2)
    const [first, second] = await queue.list({ state: 'dead' })
    assert.ok(first && second)
    const page = await admin.get('/admin/background_jobs')
    assert.equal(page.status, 200)
    assert.match(page.text, /<th scope="row"><code>test_admin_pages\.fail<\/code><\/th><td>0<\/td><td>0<\/td><td>2<\/td>/)
    assert.ok(page.text.includes('the receiver said &lt;b&gt;no&lt;/b&gt;'))
    const token = formToken(page.text)
    assert.equal((await admin.post(`/admin/background_jobs/${first.id}/retry`, { authenticity_token: token })).status, 302)
    assert.deepEqual((await queue.list({ kind: FAILING.name })).map((job) => [job.id, job.state]).sort(), [[first.id, 'waiting'], [second.id, 'dead']].sort())
    assert.equal((await admin.post(`/admin/background_jobs/${second.id}`, { authenticity_token: token, _method: 'delete' })).status, 302)
    assert.deepEqual((await queue.list({ kind: FAILING.name })).map((job) => job.id), [first.id])
    assert.equal((await admin.post(`/admin/background_jobs/${second.id}/retry`, { authenticity_token: token })).status, 404, 'no such dead job')
    assert.equal((await admin.post(`/admin/background_jobs/${second.id}`, { authenticity_token: 'forged', _method: 'delete' })).status, 422)
    await queue.remove([first.id])
  })

  it('adds, edits, tests and deletes system hooks through their services', async () => {
    const page = await admin.get('/admin/hooks')
    assert.equal(page.status, 200)
    const token = formToken(page.text)
    const added = await admin.post('/admin/hooks', {
      authenticity_token: token, 'hook[url]': `${receiver.url}/system?a=<b>`, 'hook[token]': 'hook-secret', 'hook[push_events]': '1', 'hook[enable_ssl_verification]': '1',
    })
    assert.equal(added.status, 302, added.text)
    const [hook] = (await t.api('GET', '/hooks', { token: ROOT_TOKEN })).body
    assert.deepEqual([hook.url, hook.push_events, hook.repository_update_events, hook.enable_ssl_verification], [`${receiver.url}/system?a=<b>`, true, false, true])
    const listed = await admin.get('/admin/hooks')
    assert.ok(listed.text.includes('?a=&lt;b&gt;') && !listed.text.includes('hook-secret'))
    const bad = await admin.post('/admin/hooks', { authenticity_token: token, 'hook[url]': 'ftp://example.com/' })
    assert.equal(bad.status, 422)
    assert.ok(bad.text.includes('error_explanation'))

    const edit = await admin.get(`/admin/hooks/${hook.id}/edit`)
    assert.equal(edit.status, 200)
    const saved = await admin.post(`/admin/hooks/${hook.id}`, {
      authenticity_token: token, _method: 'patch', 'hook[url]': `${receiver.url}/edited`, 'hook[tag_push_events]': '1', 'hook[token]': '',
    })
    assert.equal(saved.status, 302, saved.text)
    const [edited] = (await t.api('GET', '/hooks', { token: ROOT_TOKEN })).body
    assert.deepEqual([edited.url, edited.push_events, edited.tag_push_events, edited.enable_ssl_verification], [`${receiver.url}/edited`, false, true, false])

    receiver.clear()
    const tested = await admin.post(`/admin/hooks/${hook.id}/test`, { authenticity_token: token })
    assert.equal(tested.status, 200)
    assert.equal(receiver.received.length, 1)
    assert.equal(receiver.received[0]?.body.event_name, 'project_create')
    assert.equal(receiver.received[0]?.headers['x-service-token'], 'hook-secret', 'a blank token kept the one set')

    assert.equal((await admin.post(`/admin/hooks/${hook.id}`, { authenticity_token: token, _method: 'delete' })).status, 302)
    assert.deepEqual((await t.api('GET', '/hooks', { token: ROOT_TOKEN })).body, [])
    assert.equal((await admin.get(`/admin/hooks/${hook.id}/edit`)).status, 404)
  })

  it('saves the application settings of every fieldset through the settings service, and shows its refusals', async () => {
    const page = await admin.get('/admin/application_settings')
    assert.equal(page.status, 200)
    for (const legend of ['Sign-up and sign-in', 'Visibility and access', 'Account limits', 'CI/CD', 'Import and export', 'Throttles']) {
      assert.ok(page.text.includes(`<legend>${legend}</legend>`), legend)
    }
    const token = formToken(page.text)
    const form = (extra: [string, string][]): [string, string][] => [['authenticity_token', token], ...extra]
    const saved = await admin.post('/admin/application_settings', form([
      ['application_setting[signup_enabled]', '1'], ['application_setting[domain_whitelist]', 'example.com\nexample.org'],
      ['application_setting[default_group_visibility]', 'internal'], ['application_setting[restricted_visibility_levels][]', 'public'],
      ['application_setting[enabled_git_access_protocol]', 'ssh'], ['application_setting[rsa_key_restriction]', '2048'],
      ['application_setting[max_attachment_size]', '20'], ['application_setting[default_artifacts_expire_in]', '7 days'],
      ['application_setting[import_sources][]', 'github'], ['application_setting[import_sources][]', 'git'], ['application_setting[project_export_enabled]', '1'],
      ['application_setting[throttle_authenticated_web_enabled]', '1'], ['application_setting[throttle_authenticated_web_requests_per_period]', '100'],
      ['application_setting[sign_in_text]', 'Hello <b>you</b>'],
    ]))
    assert.equal(saved.status, 302, saved.text)
    const api = (await t.api('GET', '/application/settings', { token: ROOT_TOKEN })).body
    assert.deepEqual([api.signup_enabled, api.domain_whitelist, api.default_group_visibility, api.restricted_visibility_levels, api.enabled_git_access_protocol,
      api.rsa_key_restriction, api.max_attachment_size, api.default_artifacts_expire_in, api.import_sources, api.project_export_enabled,
      api.throttle_authenticated_web_enabled, api.throttle_authenticated_web_requests_per_period, api.sign_in_text, api.password_authentication_enabled_for_web],
    [true, ['example.com', 'example.org'], 'internal', ['public'], 'ssh', 2048, 20, '7 days', ['github', 'git'], true, true, 100, 'Hello <b>you</b>', false])
    const shown = await admin.get('/admin/application_settings')
    assert.ok(shown.text.includes('Hello &lt;b&gt;you&lt;/b&gt;'))

    const zero = await admin.post('/admin/application_settings', form([['application_setting[throttle_unauthenticated_period_in_seconds]', '0']]))
    assert.equal(zero.status, 422)
    assert.match(zero.text, /must be a whole number from 1/)
    const blankTerms = await admin.post('/admin/application_settings', form([['application_setting[enforce_terms]', '1'], ['application_setting[terms]', '']]))
    assert.equal(blankTerms.status, 422)
    assert.match(blankTerms.text, /Terms can&#39;t be blank/)
    const badChoice = await admin.post('/admin/application_settings', form([['application_setting[default_project_visibility]', 'secret']]))
    assert.equal(badChoice.status, 422)
    assert.equal((await t.api('GET', '/application/settings', { token: ROOT_TOKEN })).body.enforce_terms, false)
    // Signing in with a password on the web again, for anything that follows.
    await t.api('PUT', '/application/settings', { token: ROOT_TOKEN, body: { password_authentication_enabled_for_web: true } })
  })
})
