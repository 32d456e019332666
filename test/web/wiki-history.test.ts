// A wiki page's history (web/projects/wikis.ts `/wikis/:slug/history`) and the write form's commit
// message: the message given is the commit's (escaped on the page), a blank one leaves the wiki
// service's own; the history is as visible as the page.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'
import { Browser } from './browser.js'

describe('Web wiki history and commit messages', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let project: ProjectRow
  let secret: ProjectRow
  let base: string
  let developerBrowser: Browser
  before(async () => {
    t = await buildTestApp()
    ;[owner, developer] = await Promise.all([makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    secret = await makeProject(t, owner, { visibility: 'private' })
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    base = `/${owner.user.username}/${project.path}`
    developerBrowser = new Browser(t)
    await developerBrowser.signIn(developer.user.username)
  })
  after(async () => { await t.close() })

  it('writes with the given commit message and lists the page\'s commits, newest first', async () => {
    const created = await developerBrowser.submit(`${base}/wikis/notes/edit`, `${base}/wikis`, {
      'wiki[title]': 'notes', 'wiki[content]': 'First', 'wiki[format]': 'markdown', 'wiki[message]': '',
    })
    assert.equal(created.status, 302, created.text)
    const updated = await developerBrowser.submit(`${base}/wikis/notes/edit`, `${base}/wikis/notes`, {
      _method: 'put', 'wiki[title]': 'notes', 'wiki[content]': 'Second', 'wiki[format]': 'markdown', 'wiki[message]': 'Say <more>',
    })
    assert.equal(updated.status, 302, updated.text)
    const history = await new Browser(t).get(`${base}/wikis/notes/history`)
    assert.equal(history.status, 200, history.text)
    const given = history.text.indexOf('Say &lt;more&gt;')
    const original = history.text.indexOf(`${developer.user.username} created page: notes`)
    assert.ok(given !== -1, 'the given message, escaped')
    assert.ok(original !== -1, 'a blank message leaves the service\'s own')
    assert.ok(given < original, 'newest first')
    assert.ok((await new Browser(t).get(`${base}/wikis/notes`)).text.includes(`href="${base}/wikis/notes/history"`))
    assert.equal((await new Browser(t).get(`${base}/wikis/nowhere/history`)).status, 404)
    assert.ok(!(await new Browser(t).get(`${base}/wikis/notes/history?page=2`)).text.includes('Say &lt;more&gt;'), 'the second page is past the history')
  })

  it('hides a private project\'s page history as the page', async () => {
    assert.equal((await t.api('POST', `/projects/${secret.id}/wikis`, { token: owner.token, body: { title: 'home', content: 'x' } })).status, 201)
    assert.equal((await new Browser(t).get(`/${owner.user.username}/${secret.path}/wikis/home/history`)).status, 404)
  })
})
