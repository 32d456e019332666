// Writing files in the browser (web/projects/edit-file.ts): edit a file and add one as commits on
// the branch, or on a new branch that leads to a new merge request; a file changed meanwhile is
// refused rather than overwritten; only those who may push see the forms, protected branches
// hold, and a path cannot leave the tree.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { Browser, formToken } from './browser.js'

describe('Web file editing pages', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let reporter: TestUser
  let project: ProjectRow
  let base: string
  let ownerBrowser: Browser
  const show = async (ref: string, path: string) => {
    const repo = t.ctx.repositories.open(project.id)
    const object = await repo.read(`${ref}:${path}`)
    return object?.data.toString('utf8') ?? null
  }
  before(async () => {
    t = await buildTestApp()
    ;[owner, developer, reporter] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await commitFiles(t, project.id, { 'README.md': '# Title\n', 'docs/guide.md': 'Guide\n' })
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    base = `/${owner.user.username}/${project.path}`
    ownerBrowser = new Browser(t)
    await ownerBrowser.signIn(owner.user.username)
  })
  after(async () => { await t.close() })

  it('edits a file as a commit on its branch, linked from the file page', async () => {
    const blob = await ownerBrowser.get(`${base}/blob/master/README.md`)
    assert.ok(blob.text.includes(`href="${base}/edit/master/README.md">Edit</a>`))
    const form = await ownerBrowser.get(`${base}/edit/master/README.md`)
    assert.equal(form.status, 200, form.text)
    assert.ok(form.text.includes('# Title'))
    const res = await ownerBrowser.post(`${base}/edit/master/README.md`, {
      authenticity_token: formToken(form.text), content: '# Title\r\n\r\nMore <b>text</b>.\r\n', commit_message: 'Say more', branch_name: 'master',
      last_commit_sha: /name="last_commit_sha" value="([0-9a-f]{40})"/.exec(form.text)?.[1] ?? '',
    })
    assert.equal(res.status, 302, res.text)
    assert.equal(res.headers.location, `${base}/blob/master/README.md`)
    assert.equal(await show('master', 'README.md'), '# Title\n\nMore <b>text</b>.\n')
    const head = await t.ctx.repositories.open(project.id).readCommit((await t.ctx.repositories.open(project.id).resolveCommit('master'))!)
    assert.equal(head?.message.trim(), 'Say more')
    assert.equal(head?.author.email, owner.user.email)
  })

  it('refuses an edit of a file changed since the form was shown', async () => {
    const form = await ownerBrowser.get(`${base}/edit/master/docs/guide.md`)
    const seen = /name="last_commit_sha" value="([0-9a-f]{40})"/.exec(form.text)?.[1] ?? ''
    await commitFiles(t, project.id, { 'docs/guide.md': 'Changed meanwhile\n' })
    const res = await ownerBrowser.post(`${base}/edit/master/docs/guide.md`, {
      authenticity_token: formToken(form.text), content: 'Mine\n', commit_message: 'Overwrite', branch_name: 'master', last_commit_sha: seen,
    })
    assert.equal(res.status, 422)
    assert.ok(res.text.includes('error_explanation') && res.text.includes('Mine'), 'the refusal, with the text kept')
    assert.equal(await show('master', 'docs/guide.md'), 'Changed meanwhile\n')
  })

  it('adds a file on a new branch and goes on to a merge request from it', async () => {
    const developerBrowser = new Browser(t)
    await developerBrowser.signIn(developer.user.username)
    const tree = await developerBrowser.get(`${base}/tree/master/docs`)
    assert.ok(tree.text.includes(`href="${base}/new/master/docs">New file</a>`))
    const form = await developerBrowser.get(`${base}/new/master/docs`)
    assert.equal(form.status, 200, form.text)
    const res = await developerBrowser.post(`${base}/new/master/docs`, {
      authenticity_token: formToken(form.text), file_name: 'howto.md', content: 'How to\n', commit_message: 'Add a how-to', branch_name: 'add-howto',
    })
    assert.equal(res.status, 302, res.text)
    assert.match(String(res.headers.location), /\/merge_requests\/new\?merge_request%5Bsource_branch%5D=add-howto&merge_request%5Btarget_branch%5D=master$/)
    assert.equal(await show('add-howto', 'docs/howto.md'), 'How to\n')
    assert.equal(await show('master', 'docs/howto.md'), null)
    const escape = await developerBrowser.post(`${base}/new/master/docs`, {
      authenticity_token: formToken(form.text), file_name: '../../../etc/passwd', content: 'x', commit_message: 'Escape', branch_name: 'master',
    })
    assert.equal(escape.status, 422)
  })

  it('shows the forms to those who may push only; a protected branch refuses a Developer', async () => {
    const reporterBrowser = new Browser(t)
    await reporterBrowser.signIn(reporter.user.username)
    assert.ok(!(await reporterBrowser.get(`${base}/blob/master/README.md`)).text.includes('>Edit</a>'))
    assert.equal((await reporterBrowser.get(`${base}/edit/master/README.md`)).status, 404)
    const anonymous = await new Browser(t).get(`${base}/edit/master/README.md`)
    assert.equal(anonymous.status, 302)
    assert.equal(anonymous.headers.location, '/users/sign_in')
    assert.equal((await ownerBrowser.get(`${base}/edit/${'a'.repeat(40)}/README.md`)).status, 404, 'only at a branch')

    const protect = await t.api('POST', `/projects/${project.id}/protected_branches`, { token: owner.token, body: { name: 'master', push_access_level: 40 } })
    assert.equal(protect.status, 201, protect.text)
    const developerBrowser = new Browser(t)
    await developerBrowser.signIn(developer.user.username)
    const form = await developerBrowser.get(`${base}/edit/master/README.md`)
    const before = await t.ctx.repositories.open(project.id).resolveCommit('master')
    const refused = await developerBrowser.post(`${base}/edit/master/README.md`, {
      authenticity_token: formToken(form.text), content: 'Nope\n', commit_message: 'Push to protected', branch_name: 'master',
    })
    assert.equal(refused.status, 422)
    assert.equal(await t.ctx.repositories.open(project.id).resolveCommit('master'), before)
  })
})
