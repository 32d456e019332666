// A project's issue pages (web/projects/issues.ts): the list with its state tabs and filters, one
// issue with its sidebar (time tracking), related merge requests and discussion, and the forms: new issue, edit, close and reopen, comment
// with a preview; visibility as the API's (a confidential issue is the same 404 page as a missing
// one to those who may not see it), escaping of what users write, CSRF and permissions.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { insertMilestone, makeIssue } from '../helpers/issues.js'
import { makeBranches, makeMergeRequest } from '../helpers/merge-requests.js'
import type { IssueRow, ProjectRow } from '../../src/db/schema.js'
import { GUEST, REPORTER } from '../../src/policies/access-levels.js'
import { postNote } from '../../src/services/notes/create-note.js'
import { issueNoteable } from '../../src/services/notes/noteable.js'
import { Browser, formToken } from './browser.js'

const HOSTILE = '<script>alert("x")</script>'

describe('Web issue pages', () => {
  let t: TestApp
  let owner: TestUser
  let reporter: TestUser
  let guest: TestUser
  let outsider: TestUser
  let project: ProjectRow
  let secret: ProjectRow
  let bug: IssueRow
  let confidential: IssueRow
  let base: string
  let ownerBrowser: Browser
  let guestBrowser: Browser
  before(async () => {
    t = await buildTestApp()
    ;[owner, reporter, guest, outsider] = await Promise.all([makeUser(t), makeUser(t), makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    secret = await makeProject(t, owner, { visibility: 'private' })
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
    const milestone = await insertMilestone(t, { projectId: project.id }, 'v1.0')
    bug = await makeIssue(t, project, owner, {
      title: `Crash ${HOSTILE}`, description: `Steps:\n\n1. run\n2. ${HOSTILE}\n\nSee #2`, labels: ['bug', 'ui'], milestoneId: milestone.id,
      assigneeIds: [reporter.user.id], dueDate: '2027-01-15',
    })
    await makeIssue(t, project, owner, { title: 'Closed one', closed: true })
    confidential = await makeIssue(t, project, owner, { title: 'Security hole', confidential: true })
    await makeIssue(t, secret, owner, { title: 'Private project issue' })
    for (let i = 0; i < 3; i++) await postNote(t.ctx, { noteable: issueNoteable(bug), authorId: reporter.user.id, body: `Comment ${i} ${HOSTILE} **bold**` })
    base = `/${owner.user.username}/${project.path}`
    ownerBrowser = new Browser(t)
    await ownerBrowser.signIn(owner.user.username)
    guestBrowser = new Browser(t)
    await guestBrowser.signIn(guest.user.username)
  })
  after(async () => { await t.close() })

  const anonymous = () => new Browser(t)

  it('lists the open issues with their counts per state, labels and milestone, escaped', async () => {
    const res = await anonymous().get(`${base}/issues`)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.text.includes('Crash &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'))
    assert.ok(!res.text.includes('<script>'))
    assert.ok(!res.text.includes('Closed one'), 'open issues by default')
    assert.ok(!res.text.includes('Security hole'), 'confidential issues hidden from anonymous visitors')
    assert.match(res.text, /Open <span class="count">1<\/span>/)
    assert.match(res.text, /Closed <span class="count">1<\/span>/)
    assert.ok(res.text.includes('>bug</a>') || res.text.includes('> bug</a>'))
    assert.ok(res.text.includes('v1.0'))

    const owners = await ownerBrowser.get(`${base}/issues?state=all`)
    assert.ok(owners.text.includes('Security hole') && owners.text.includes('Closed one'))
    assert.match(owners.text, /All <span class="count">3<\/span>/)
  })

  it('filters by label, author, assignee, milestone and search as the API does', async () => {
    const byLabel = await ownerBrowser.get(`${base}/issues?state=all&label_name%5B%5D=bug`)
    assert.ok(byLabel.text.includes('Crash') && !byLabel.text.includes('Security hole'))
    const byAssignee = await ownerBrowser.get(`${base}/issues?state=all&assignee_username=${reporter.user.username}`)
    assert.ok(byAssignee.text.includes('Crash') && !byAssignee.text.includes('Closed one'))
    const nobody = await ownerBrowser.get(`${base}/issues?state=all&author_username=no-such-user`)
    assert.ok(nobody.text.includes('No issues.'))
    const bySearch = await ownerBrowser.get(`${base}/issues?state=all&search=hole`)
    assert.ok(bySearch.text.includes('Security hole') && !bySearch.text.includes('Crash'))
    const byMilestone = await ownerBrowser.get(`${base}/issues?state=all&milestone_title=v1.0`)
    assert.ok(byMilestone.text.includes('Crash') && !byMilestone.text.includes('Security hole'))
  })

  it('shows an issue: description and comments as Markdown, sanitized, with its sidebar', async () => {
    const res = await anonymous().get(`${base}/issues/${bug.iid}`)
    assert.equal(res.status, 200, res.text)
    assert.ok(!res.text.includes('<script>alert'))
    assert.ok(res.text.includes('<strong>bold</strong>'))
    assert.ok(res.text.includes(`href="${base}/issues/2"`), 'references are linked')
    assert.ok(res.text.includes(`href="/${reporter.user.username}"`), 'the assignee and commenters link to their pages')
    assert.ok(res.text.includes('2027-01-15'))
    assert.ok(res.text.includes('Sign in</a> to comment'))
    assert.equal((await anonymous().get(`${base}/issues/999`)).status, 404)
    assert.equal((await anonymous().get(`${base}/issues/abc`)).status, 404)
  })

  it('shows the merge requests that mention the issue, to those who may read them, and its time tracking', async () => {
    const tracked = await makeProject(t, owner, { visibility: 'public' })
    await makeBranches(t, tracked.id, [])
    const issue = await makeIssue(t, tracked, owner, { title: 'Tracked' })
    await t.ctx.db.updateTable('issues').set({ time_estimate: 7200, total_time_spent: 3600 }).where('id', '=', issue.id).execute()
    const fullPath = `${owner.user.username}/${tracked.path}`
    await makeMergeRequest(t, tracked, owner, { title: `Fix ${HOSTILE}`, description: `Closes #${issue.iid}.` })
    await makeMergeRequest(t, tracked, owner, { title: `Also ${fullPath}#${issue.iid}` })
    await makeMergeRequest(t, tracked, owner, { title: 'Unrelated', description: `See #${issue.iid}0 and other/project#${issue.iid}` })
    const page = `/${fullPath}/issues/${issue.iid}`
    const res = await anonymous().get(page)
    assert.equal(res.status, 200, res.text)
    assert.match(res.text, /Related merge requests <span class="count">2<\/span>/)
    assert.ok(res.text.includes('Fix &lt;script&gt;') && res.text.includes(`Also ${fullPath}#${issue.iid}`) && !res.text.includes('Unrelated'))
    assert.ok(!res.text.includes('<script>alert'))
    assert.ok(res.text.includes('Spent 1h of 2h'))
    await t.ctx.db.updateTable('projects').set({ merge_requests_enabled: 0 }).where('id', '=', tracked.id).execute()
    assert.ok(!(await anonymous().get(page)).text.includes('Related merge requests'), 'not while merge requests are disabled')
  })

  it('answers a confidential issue, and any issue of a private project, with the same 404 page to those who may not see it', async () => {
    const missing = await anonymous().get(`${base}/issues/999`)
    for (const browser of [anonymous(), guestBrowser]) {
      const res = await browser.get(`${base}/issues/${confidential.iid}`)
      assert.equal(res.status, 404)
      assert.equal(res.text, missing.text)
    }
    assert.equal((await ownerBrowser.get(`${base}/issues/${confidential.iid}`)).status, 200)
    const outsiderBrowser = new Browser(t)
    await outsiderBrowser.signIn(outsider.user.username)
    for (const path of [`/${owner.user.username}/${secret.path}/issues`, `/${owner.user.username}/${secret.path}/issues/1`]) {
      assert.equal((await outsiderBrowser.get(path)).status, 404)
      assert.equal((await anonymous().get(path)).status, 404)
    }
  })

  it('creates an issue from the form, and refuses a blank title with the service\'s message', async () => {
    const form = await guestBrowser.get(`${base}/issues/new`)
    assert.equal(form.status, 200, form.text)
    assert.ok(!form.text.includes('issue[label_names]'), 'a Guest may not set labels')
    const token = formToken(form.text)
    const refused = await guestBrowser.post(`${base}/issues`, { authenticity_token: token, 'issue[title]': '', 'issue[description]': 'kept' })
    assert.equal(refused.status, 422)
    assert.ok(refused.text.includes('error_explanation') && refused.text.includes('kept'))
    const created = await guestBrowser.post(`${base}/issues`, { authenticity_token: token, 'issue[title]': `New ${HOSTILE}`, 'issue[description]': 'Body' })
    assert.equal(created.status, 302, created.text)
    const row = await t.ctx.db.selectFrom('issues').selectAll().where('project_id', '=', project.id).where('title', '=', `New ${HOSTILE}`).executeTakeFirstOrThrow()
    assert.equal(created.headers.location, `${base}/issues/${row.iid}`)
    assert.equal(row.author_id, guest.user.id)
  })

  it('edits an issue with labels, assignees and milestone for a member who manages issues; a Guest may not edit another\'s issue', async () => {
    assert.equal((await guestBrowser.get(`${base}/issues/${bug.iid}/edit`)).status, 404)
    const reporterBrowser = new Browser(t)
    await reporterBrowser.signIn(reporter.user.username)
    const edit = await reporterBrowser.get(`${base}/issues/${bug.iid}/edit`)
    assert.equal(edit.status, 200, edit.text)
    assert.ok(edit.text.includes('value="bug, ui"'))
    const res = await reporterBrowser.post(`${base}/issues/${bug.iid}`, {
      authenticity_token: formToken(edit.text), _method: 'put', 'issue[title]': 'Crash on start', 'issue[description]': 'Updated',
      'issue[label_names]': 'bug, regression', 'issue[assignee_usernames]': `@${owner.user.username}`, 'issue[milestone_id]': '', 'issue[due_date]': '',
    })
    assert.equal(res.status, 302, res.text)
    const api = await t.app.inject({ url: `/api/v4/projects/${project.id}/issues/${bug.iid}`, headers: { 'private-token': owner.token } })
    const issue = api.json() as { title: string; labels: string[]; assignees: { username: string }[]; milestone: unknown; due_date: unknown }
    assert.equal(issue.title, 'Crash on start')
    assert.deepEqual(issue.labels, ['bug', 'regression'])
    assert.deepEqual(issue.assignees.map((a) => a.username), [owner.user.username])
    assert.equal(issue.milestone, null)
    assert.equal(issue.due_date, null)
    const unknown = await reporterBrowser.post(`${base}/issues/${bug.iid}`, {
      authenticity_token: formToken(edit.text), _method: 'put', 'issue[title]': 'x', 'issue[assignee_usernames]': 'nobody-here',
    })
    assert.equal(unknown.status, 422)
    assert.ok(unknown.text.includes('Assignee @nobody-here is not a user'))
  })

  it('closes and reopens an issue with its button, as the API\'s state_event does', async () => {
    const issue = await makeIssue(t, project, owner, { title: 'To close' })
    const page = await ownerBrowser.get(`${base}/issues/${issue.iid}`)
    const token = formToken(page.text)
    assert.ok(page.text.includes('Close issue'))
    const closed = await ownerBrowser.post(`${base}/issues/${issue.iid}`, { authenticity_token: token, _method: 'put', 'issue[state_event]': 'close' })
    assert.equal(closed.status, 302)
    assert.equal((await t.ctx.db.selectFrom('issues').select('state').where('id', '=', issue.id).executeTakeFirstOrThrow()).state, 'closed')
    assert.ok((await ownerBrowser.get(`${base}/issues/${issue.iid}`)).text.includes('Reopen issue'))
    await ownerBrowser.post(`${base}/issues/${issue.iid}`, { authenticity_token: token, _method: 'put', 'issue[state_event]': 'reopen' })
    assert.equal((await t.ctx.db.selectFrom('issues').select('state').where('id', '=', issue.id).executeTakeFirstOrThrow()).state, 'opened')
    const guestPage = await guestBrowser.get(`${base}/issues/${issue.iid}`)
    assert.ok(!guestPage.text.includes('Close issue'))
    const refused = await guestBrowser.post(`${base}/issues/${issue.iid}`, { authenticity_token: formToken(guestPage.text), _method: 'put', 'issue[state_event]': 'close' })
    assert.equal(refused.status, 404)
  })

  it('previews a comment without posting it, then posts it at its anchor', async () => {
    const page = await guestBrowser.get(`${base}/issues/${bug.iid}`)
    const token = formToken(page.text)
    const before = await t.ctx.db.selectFrom('notes').select('id').where('noteable_id', '=', bug.id).where('noteable_type', '=', 'Issue').execute()
    const preview = await guestBrowser.post(`${base}/issues/${bug.iid}/notes`, { authenticity_token: token, 'note[note]': `**Looks** ${HOSTILE}`, preview: '1' })
    assert.equal(preview.status, 200, preview.text)
    assert.ok(preview.text.includes('<strong>Looks</strong>'))
    assert.ok(preview.text.includes('**Looks** &lt;script&gt;'), 'the text is kept in the form, escaped')
    const after1 = await t.ctx.db.selectFrom('notes').select('id').where('noteable_id', '=', bug.id).where('noteable_type', '=', 'Issue').execute()
    assert.equal(after1.length, before.length, 'a preview posts nothing')
    const posted = await guestBrowser.post(`${base}/issues/${bug.iid}/notes`, { authenticity_token: token, 'note[note]': 'Confirmed' })
    assert.equal(posted.status, 302)
    const note = await t.ctx.db.selectFrom('notes').selectAll().where('noteable_id', '=', bug.id).where('body', '=', 'Confirmed').executeTakeFirstOrThrow()
    assert.equal(posted.headers.location, `${base}/issues/${bug.iid}#note_${note.id}`)
    const blank = await guestBrowser.post(`${base}/issues/${bug.iid}/notes`, { authenticity_token: token, 'note[note]': '  ' })
    assert.equal(blank.status, 422)
    assert.ok(blank.text.includes('error_explanation'))
  })

  it('refuses forms without the CSRF token, and sends anonymous visitors to sign in', async () => {
    const noToken = await guestBrowser.post(`${base}/issues`, { 'issue[title]': 'Forged' })
    assert.equal(noToken.status, 422)
    const wrong = await guestBrowser.post(`${base}/issues/${bug.iid}/notes`, { authenticity_token: 'forged', 'note[note]': 'Forged' })
    assert.equal(wrong.status, 422)
    assert.equal(await t.ctx.db.selectFrom('issues').select('id').where('title', '=', 'Forged').executeTakeFirst(), undefined)
    const anon = await anonymous().post(`${base}/issues`, { 'issue[title]': 'Forged' })
    assert.equal(anon.status, 302)
    assert.equal(anon.headers.location, '/users/sign_in')
    const newForm = await anonymous().get(`${base}/issues/new`)
    assert.equal(newForm.status, 302)
    assert.equal(newForm.headers.location, '/users/sign_in')
  })

  it('renders an issue with 200 comments, each once, in order', async () => {
    const issue = await makeIssue(t, project, owner, { title: 'Busy' })
    for (let i = 0; i < 200; i++) await postNote(t.ctx, { noteable: issueNoteable(issue), authorId: i % 2 === 0 ? owner.user.id : reporter.user.id, body: `Note number ${i}` })
    const res = await anonymous().get(`${base}/issues/${issue.iid}`)
    assert.equal(res.status, 200)
    const numbers = [...res.text.matchAll(/Note number (\d+)/g)].map((m) => Number(m[1]))
    assert.deepEqual(numbers, Array.from({ length: 200 }, (_, i) => i))
  })
})
