// A project's wiki pages (web/projects/wikis.ts): a page rendered with wiki links and escaping, the
// list, a missing page offering to be written, writing, editing and deleting through the forms with
// the API's permissions (Developers write, Maintainers delete), attachments served raw, and a
// private project's wiki as the 404 page.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

describe('Web wiki pages', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let reporter: TestUser
  let project: ProjectRow
  let base: string
  before(async () => {
    t = await buildTestApp()
    ;[owner, developer, reporter] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    const created = await t.api('POST', `/projects/${project.id}/wikis`, {
      token: owner.token, body: { title: 'home', content: '# Welcome\n\nSee [the guide](guides/setup) <script>alert(1)</script>' },
    })
    assert.equal(created.status, 201, created.text)
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  const signedIn = (user: TestUser) => signedInBrowser(t, user.user.username)

  it('shows a page rendered, its wiki links resolved and its HTML sanitized; the list; a missing page', async () => {
    const root = await new Browser(t).get(`${base}/wikis`)
    assert.equal(root.status, 302)
    assert.equal(root.headers.location, `${base}/wikis/home`)
    const home = await new Browser(t).get(`${base}/wikis/home`)
    assert.equal(home.status, 200, home.text)
    assert.ok(home.text.includes('Welcome') && !home.text.includes('<script>alert'))
    assert.ok(home.text.includes(`href="${base}/wikis/guides/setup"`), home.text)
    assert.ok(!home.text.includes('>Edit</a>'), 'anonymous visitors do not edit')
    const list = await new Browser(t).get(`${base}/wikis/pages`)
    assert.ok(list.text.includes(`href="${base}/wikis/home"`))
    const missing = await new Browser(t).get(`${base}/wikis/guides/setup`)
    assert.equal(missing.status, 404)
    assert.ok(missing.text.includes('does not exist yet') && !missing.text.includes('Write it'))
  })

  it('writes a new page and edits it as a Developer; a Reporter may not', async () => {
    const developerBrowser = await signedIn(developer)
    const missing = await developerBrowser.get(`${base}/wikis/guides/setup`)
    assert.ok(missing.text.includes(`href="${base}/wikis/guides/setup/edit"`))
    const form = await developerBrowser.get(`${base}/wikis/guides/setup/edit`)
    assert.equal(form.status, 200)
    const created = await developerBrowser.post(`${base}/wikis`, {
      authenticity_token: formToken(form.text), 'wiki[title]': 'guides/setup', 'wiki[format]': 'markdown', 'wiki[content]': 'Step **one**',
    })
    assert.equal(created.status, 302, created.text)
    assert.equal(created.headers.location, `${base}/wikis/guides/setup`)
    assert.ok((await developerBrowser.get(`${base}/wikis/guides/setup`)).text.includes('<strong>one</strong>'))
    const edit = await developerBrowser.get(`${base}/wikis/guides/setup/edit`)
    assert.ok(edit.text.includes('Step **one**'))
    const saved = await developerBrowser.post(`${base}/wikis/guides/setup`, {
      authenticity_token: formToken(edit.text), _method: 'put', 'wiki[title]': 'guides/setup', 'wiki[format]': 'markdown', 'wiki[content]': 'Step two',
    })
    assert.equal(saved.status, 302)
    const api = await t.api('GET', `/projects/${project.id}/wikis/guides%2Fsetup`, { token: owner.token })
    assert.equal(api.body.content, 'Step two')

    const reporterBrowser = await signedIn(reporter)
    assert.equal((await reporterBrowser.get(`${base}/wikis/home/edit`)).status, 404)
    const refused = await reporterBrowser.post(`${base}/wikis`, {
      authenticity_token: await reporterBrowser.csrfTokenFrom('/profile/personal_access_tokens'), 'wiki[title]': 'sneaky', 'wiki[content]': 'x',
    })
    assert.equal(refused.status, 404)
  })

  it('deletes a page for a Maintainer only', async () => {
    const developerBrowser = await signedIn(developer)
    const token = await developerBrowser.csrfTokenFrom('/profile/personal_access_tokens')
    assert.equal((await developerBrowser.post(`${base}/wikis/guides/setup`, { authenticity_token: token, _method: 'delete' })).status, 404)
    const ownerBrowser = await signedIn(owner)
    const page = await ownerBrowser.get(`${base}/wikis/guides/setup`)
    assert.ok(page.text.includes('Delete this page'))
    const deleted = await ownerBrowser.post(`${base}/wikis/guides/setup`, { authenticity_token: formToken(page.text), _method: 'delete' })
    assert.equal(deleted.status, 302)
    assert.equal((await t.api('GET', `/projects/${project.id}/wikis/guides%2Fsetup`, { token: owner.token })).status, 404)
  })

  it('serves the wiki\'s attachments raw, and a private project\'s wiki as the 404 page', async () => {
    const form = new FormData()
    form.append('file', new Blob([Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')]), 'pic.svg')
    const uploaded = await t.app.inject({ method: 'POST', url: `/api/v4/projects/${project.id}/wikis/attachments`, headers: { 'private-token': owner.token }, payload: form })
    assert.equal(uploaded.statusCode, 201, uploaded.body)
    const { file_path: filePath } = uploaded.json() as { file_path: string }
    const raw = await new Browser(t).get(`${base}/wikis/${filePath}`)
    assert.equal(raw.status, 200)
    assert.equal(raw.headers['content-type'], 'image/svg+xml')
    assert.match(String(raw.headers['content-security-policy']), /sandbox/)

    const secret = await makeProject(t, owner, { visibility: 'private' })
    assert.equal((await new Browser(t).get(`/${owner.user.username}/${secret.path}/wikis/home`)).status, 404)
    assert.equal((await (await signedIn(reporter)).get(`/${owner.user.username}/${secret.path}/wikis/home`)).status, 404)
  })
})
