// A merge request's edit form (web/projects/merge-request-edit.ts): who sees the Edit link and the
// form, the changes saved through the API's update service (checked through the API), the fields
// only administrators get, the WIP prefix, escaping, the 422 for refused input and the CSRF refusal.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeBranches, makeMergeRequest, makeMilestone } from '../helpers/merge-requests.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { Browser, formToken } from './browser.js'

const HOSTILE = '<script>alert("edit")</script>'

describe('Web merge request edit form', () => {
  let t: TestApp
  let owner: TestUser
  let developer: TestUser
  let reporter: TestUser
  let project: ProjectRow
  let base: string
  let ownerBrowser: Browser
  let reporterBrowser: Browser
  before(async () => {
    t = await buildTestApp()
    ;[owner, developer, reporter] = await Promise.all([makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await makeBranches(t, project.id, ['stable'])
    base = `/${owner.user.username}/${project.path}`
    ownerBrowser = new Browser(t)
    await ownerBrowser.signIn(owner.user.username)
    reporterBrowser = new Browser(t)
    await reporterBrowser.signIn(reporter.user.username)
  })
  after(async () => { await t.close() })

  const apiView = async (iid: number) => (await t.api('GET', `/projects/${project.id}/merge_requests/${iid}`)).body

  it('saves every field through the update service and shows them escaped', async () => {
    const mr = await makeMergeRequest(t, project, developer, { title: 'Before' })
    const milestone = await makeMilestone(t, { projectId: project.id }, 'v1.0')
    const show = await ownerBrowser.get(`${base}/merge_requests/${mr.iid}`)
    assert.ok(show.text.includes(`href="${base}/merge_requests/${mr.iid}/edit"`), 'the Edit link for those who may edit')
    const form = await ownerBrowser.get(`${base}/merge_requests/${mr.iid}/edit`)
    assert.equal(form.status, 200, form.text)
    assert.ok(form.text.includes('value="Before"') && form.text.includes('name="merge_request[assignee_username]"'))
    const saved = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}`, {
      authenticity_token: formToken(form.text), _method: 'put',
      'merge_request[title]': `After ${HOSTILE}`, 'merge_request[wip]': '1', 'merge_request[description]': `Now **bold** ${HOSTILE}`,
      'merge_request[target_branch]': 'stable', 'merge_request[assignee_username]': developer.user.username,
      'merge_request[milestone_id]': String(milestone.id), 'merge_request[label_names]': 'backend, <b>ui</b>',
      'merge_request[force_remove_source_branch]': '1', 'merge_request[squash]': '1',
    })
    assert.equal(saved.status, 302, saved.text)
    assert.equal(saved.headers.location, `${base}/merge_requests/${mr.iid}`)
    const view = await apiView(mr.iid)
    assert.equal(view.title, `WIP: After ${HOSTILE}`)
    assert.equal(view.work_in_progress, true)
    assert.equal(view.target_branch, 'stable')
    assert.equal(view.assignee.username, developer.user.username)
    assert.equal(view.milestone.id, milestone.id)
    assert.deepEqual([...view.labels].sort(), ['<b>ui</b>', 'backend'])
    assert.equal(view.force_remove_source_branch, true)
    assert.equal(view.squash, true)
    const page = await new Browser(t).get(`${base}/merge_requests/${mr.iid}`)
    assert.ok(!page.text.includes('<script>alert') && !page.text.includes('<b>ui</b>'))
    assert.ok(page.text.includes('<strong>bold</strong>'))

    const again = await ownerBrowser.get(`${base}/merge_requests/${mr.iid}/edit`)
    assert.ok(again.text.includes(`value="After &lt;script&gt;`), 'the title is shown without its WIP prefix')
    assert.match(again.text, /name="merge_request\[wip\]" value="1" checked/)
    const unwip = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}`, {
      authenticity_token: formToken(again.text), _method: 'put', 'merge_request[title]': 'After', 'merge_request[target_branch]': 'stable',
    })
    assert.equal(unwip.status, 302, unwip.text)
    const cleared = await apiView(mr.iid)
    assert.equal(cleared.title, 'After')
    assert.equal(cleared.assignee, null, 'an empty assignee unassigns')
    assert.equal(cleared.squash, false)
  })

  it('lets the author edit the text but not the fields for administrators', async () => {
    const author = await makeUser(t)
    const mr = await makeMergeRequest(t, project, author, { title: 'Mine' })
    const browser = new Browser(t)
    await browser.signIn(author.user.username)
    const form = await browser.get(`${base}/merge_requests/${mr.iid}/edit`)
    assert.equal(form.status, 200, form.text)
    assert.ok(!form.text.includes('merge_request[label_names]'))
    const saved = await browser.post(`${base}/merge_requests/${mr.iid}`, {
      authenticity_token: formToken(form.text), _method: 'put', 'merge_request[title]': 'Mine, edited', 'merge_request[target_branch]': 'master',
      'merge_request[label_names]': 'sneaky',
    })
    assert.equal(saved.status, 302, saved.text)
    const view = await apiView(mr.iid)
    assert.equal(view.title, 'Mine, edited')
    assert.deepEqual(view.labels, [], 'labels from someone who may not administer are ignored, as by the API')
  })

  it('answers those who may not edit with the 404 page, and anonymous visitors with the sign-in page', async () => {
    const mr = await makeMergeRequest(t, project, owner, { title: 'Not yours' })
    assert.ok(!(await reporterBrowser.get(`${base}/merge_requests/${mr.iid}`)).text.includes(`/merge_requests/${mr.iid}/edit"`))
    assert.equal((await reporterBrowser.get(`${base}/merge_requests/${mr.iid}/edit`)).status, 404)
    const page = await reporterBrowser.get(`${base}/merge_requests/${mr.iid}`)
    const refused = await reporterBrowser.post(`${base}/merge_requests/${mr.iid}`, {
      authenticity_token: formToken(page.text), _method: 'put', 'merge_request[title]': 'Taken over',
    })
    assert.equal(refused.status, 404)
    const anonymous = await new Browser(t).get(`${base}/merge_requests/${mr.iid}/edit`)
    assert.equal(anonymous.status, 302)
    assert.match(String(anonymous.headers.location), /sign_in/)
    assert.equal((await apiView(mr.iid)).title, 'Not yours')
  })

  it('re-renders the form with 422 for refused input and refuses a form without the CSRF token', async () => {
    const mr = await makeMergeRequest(t, project, owner, { title: 'Keep' })
    const form = await ownerBrowser.get(`${base}/merge_requests/${mr.iid}/edit`)
    const token = formToken(form.text)
    const blank = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}`, { authenticity_token: token, _method: 'put', 'merge_request[title]': ' ', 'merge_request[wip]': '1' })
    assert.equal(blank.status, 422)
    assert.ok(blank.text.includes('error_explanation') && blank.text.includes('Title can'))
    const missing = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}`, {
      authenticity_token: token, _method: 'put', 'merge_request[title]': 'Keep', 'merge_request[target_branch]': `gone ${HOSTILE}`,
    })
    assert.equal(missing.status, 422)
    assert.ok(missing.text.includes('does not exist') && !missing.text.includes('<script>alert'))
    const nobody = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}`, {
      authenticity_token: token, _method: 'put', 'merge_request[title]': 'Keep', 'merge_request[assignee_username]': 'no-such-user',
    })
    assert.equal(nobody.status, 422)
    assert.ok(nobody.text.includes('Assignee @no-such-user is not a user'))
    const forged = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}`, { _method: 'put', 'merge_request[title]': 'Forged' })
    assert.equal(forged.status, 422)
    assert.equal((await apiView(mr.iid)).title, 'Keep')
  })
})
