// A project's branches and tags pages (web/projects/refs.ts): the lists with their marks and
// release notes, escaping of hostile names, creating and deleting through the forms with the API's
// rules (Reporters may not push, the default and protected branches stay), and the 404 page for a
// private project.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { Browser, formToken, signedInBrowser } from './browser.js'

describe('Web branches and tags pages', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let reporter: TestUser
  let project: ProjectRow
  let base: string
  const signedIn = (user: TestUser) => signedInBrowser(t, user.user.username)
  before(async () => {
    t = await buildTestApp()
    ;[owner, developer, reporter] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    const first = await commitFiles(t, project.id, { 'a.txt': 'a\n' }, { message: 'First <b>commit</b>' })
    await commitFiles(t, project.id, { 'b.txt': 'b\n' }, { branch: 'feature/"><svg>', parent: first })
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    const tag = await t.api('POST', `/projects/${project.id}/repository/tags`, {
      token: owner.token, body: { tag_name: 'v1.0', ref: 'master', message: 'Version <one>', release_description: '**Notes** <script>x</script>' },
    })
    assert.equal(tag.status, 201, tag.text)
    base = `/${owner.user.username}/${project.path}`
  })
  after(async () => { await t.close() })

  it('lists branches with their marks and last commits, names escaped, and filters them', async () => {
    const res = await new Browser(t).get(`${base}/branches`)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.text.includes('feature/&quot;&gt;&lt;svg&gt;') && !res.text.includes('"><svg>'))
    assert.ok(res.text.includes('<span class="badge">default</span>'))
    assert.ok(res.text.includes('First &lt;b&gt;commit&lt;/b&gt;'))
    assert.ok(!res.text.includes('New branch'), 'anonymous visitors do not create branches')
    const filtered = await new Browser(t).get(`${base}/branches?search=feat`)
    assert.ok(filtered.text.includes('feature/') && !filtered.text.includes('>master</a>'))
  })

  it('lists tags with their messages and release notes rendered and sanitized; one tag\'s page', async () => {
    const res = await new Browser(t).get(`${base}/tags`)
    assert.equal(res.status, 200)
    assert.ok(res.text.includes('Version &lt;one&gt;') && res.text.includes('<strong>Notes</strong>') && !res.text.includes('<script>x'))
    const one = await new Browser(t).get(`${base}/tags/v1.0`)
    assert.equal(one.status, 200)
    assert.ok(one.text.includes('<strong>Notes</strong>'))
    assert.equal((await new Browser(t).get(`${base}/tags/nope`)).status, 404)
  })

  it('creates and deletes branches and tags for those who may push, keeping the default and protected branches', async () => {
    const developerBrowser = await signedIn(developer)
    const form = await developerBrowser.get(`${base}/branches/new`)
    assert.equal(form.status, 200)
    const token = formToken(form.text)
    const created = await developerBrowser.post(`${base}/branches`, { authenticity_token: token, branch_name: 'topic', ref: 'master' })
    assert.equal(created.status, 302, created.text)
    assert.ok(await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/topic'))
    const bad = await developerBrowser.post(`${base}/branches`, { authenticity_token: token, branch_name: 'x', ref: 'no-such-ref' })
    assert.equal(bad.status, 422)
    assert.ok(bad.text.includes('error_explanation'))
    const deleted = await developerBrowser.post(`${base}/branches/topic`, { authenticity_token: token, _method: 'delete' })
    assert.equal(deleted.status, 302)
    assert.equal(await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/topic'), null)
    const defaultBranch = await developerBrowser.post(`${base}/branches/master`, { authenticity_token: token, _method: 'delete' })
    assert.equal(defaultBranch.status, 422, 'the default branch stays')
    assert.ok(await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master'))

    const tag = await developerBrowser.post(`${base}/tags`, { authenticity_token: token, tag_name: 'v2.0', ref: 'master', message: '', release_description: 'Two' })
    assert.equal(tag.status, 302, tag.text)
    assert.equal(tag.headers.location, `${base}/tags/v2.0`)
    const api = await t.api('GET', `/projects/${project.id}/repository/tags/v2.0`, { token: owner.token })
    assert.equal(api.body.release?.description, 'Two')

    const reporterBrowser = await signedIn(reporter)
    assert.equal((await reporterBrowser.get(`${base}/branches/new`)).status, 404)
    const refused = await reporterBrowser.post(`${base}/branches`, { authenticity_token: await reporterBrowser.csrfTokenFrom('/profile/personal_access_tokens'), branch_name: 'r', ref: 'master' })
    assert.equal(refused.status, 404)
  })

  it('answers a private project\'s branches and tags with the 404 page', async () => {
    const secret = await makeProject(t, owner, { visibility: 'private' })
    await commitFiles(t, secret.id, { 'x.txt': 'x\n' })
    for (const path of ['branches', 'tags']) assert.equal((await new Browser(t).get(`/${owner.user.username}/${secret.path}/${path}`)).status, 404)
  })
})
