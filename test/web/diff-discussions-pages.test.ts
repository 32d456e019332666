// Discussions on a merge request's diff lines (web/projects/diff-discussions.ts): a comment form
// under the line a number links to, the discussion then drawn under its line (new or old side)
// with its replies, replying, resolving and unresolving through the API's note services, the
// API's `position` on a new discussion read by the same page; visibility, escaping, CSRF and 422.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { makeBranches, makeMergeRequest } from '../helpers/merge-requests.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { REPORTER } from '../../src/policies/access-levels.js'
import { Browser, formToken } from './browser.js'

const HOSTILE = '<script>alert("line")</script>'

describe('Web diff discussions', () => {
  let t: TestApp
  let owner: TestUser
  let reporter: TestUser
  let project: ProjectRow
  let base: string
  let ownerBrowser: Browser
  let reporterBrowser: Browser
  before(async () => {
    t = await buildTestApp()
    ;[owner, reporter] = await Promise.all([makeUser(t), makeUser(t)])
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await makeBranches(t, project.id, [])
    base = `/${owner.user.username}/${project.path}`
    ownerBrowser = new Browser(t)
    await ownerBrowser.signIn(owner.user.username)
    reporterBrowser = new Browser(t)
    await reporterBrowser.signIn(reporter.user.username)
  })
  after(async () => { await t.close() })

  const diffNotes = (mergeRequestId: number) => t.ctx.db.selectFrom('notes').selectAll()
    .where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', mergeRequestId).orderBy('id').execute()

  it('starts a discussion on a line from the form its number opens, shows it under the line, replies, resolves and unresolves', async () => {
    const mr = await makeMergeRequest(t, project, reporter, { title: 'Lines' })
    const diffs = `${base}/merge_requests/${mr.iid}/diffs`
    const plain = await ownerBrowser.get(diffs)
    assert.equal(plain.status, 200, plain.text)
    assert.ok(plain.text.includes('href="?line_code=diff-0__1#diff-0__1"'), 'line numbers open the comment form')
    const opened = await ownerBrowser.get(`${diffs}?line_code=diff-0__1`)
    assert.match(opened.text, /<tr id="diff-0__1" class="add">.*?<tr class="line-discussion"><td colspan="3">.*?<label for="diff_note">/s)
    const posted = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/discussions`, {
      authenticity_token: formToken(opened.text), line_code: 'diff-0__1', new_path: `${mr.source_branch}.txt`, 'note[note]': `Why ${HOSTILE}?`,
    })
    assert.equal(posted.status, 302, posted.text)
    const [note] = await diffNotes(mr.id)
    assert.equal(posted.headers.location, `${diffs}#note_${note!.id}`)
    assert.equal(note!.type, 'DiffNote')
    assert.deepEqual([note!.path, note!.line, note!.line_type, note!.resolvable], [`${mr.source_branch}.txt`, 1, 'new', 1])

    const shown = await new Browser(t).get(diffs)
    assert.match(shown.text, /<tr id="diff-0__1" class="add">.*?<tr class="line-discussion"><td colspan="3"><section class="diff-discussion"/s)
    assert.ok(shown.text.includes('Why ') && !shown.text.includes('<script>alert'))
    assert.ok(!shown.text.includes('Reply</button>') && !shown.text.includes('?line_code='), 'no forms for an anonymous visitor')

    const page = await reporterBrowser.get(diffs)
    assert.ok(page.text.includes('Resolve discussion'), 'the merge request\'s author may resolve')
    const replied = await reporterBrowser.post(`${base}/merge_requests/${mr.iid}/discussions/${note!.discussion_id}/notes`, {
      authenticity_token: formToken(page.text), 'note[note]': 'Because.',
    })
    assert.equal(replied.status, 302, replied.text)
    const notes = await diffNotes(mr.id)
    assert.equal(notes.length, 2)
    assert.equal(notes[1]!.discussion_id, note!.discussion_id)
    assert.equal(notes[1]!.line, 1)
    const blank = await reporterBrowser.post(`${base}/merge_requests/${mr.iid}/discussions/${note!.discussion_id}/notes`, {
      authenticity_token: formToken(page.text), 'note[note]': ' ',
    })
    assert.equal(blank.status, 422)
    assert.ok(blank.text.includes('error_explanation'))

    const resolve = (browser: Browser, token: string, resolved: string) => browser.post(`${base}/merge_requests/${mr.iid}/discussions/${note!.discussion_id}`, {
      authenticity_token: token, _method: 'put', resolved,
    })
    assert.equal((await resolve(reporterBrowser, formToken(page.text), 'true')).status, 302)
    assert.ok((await diffNotes(mr.id)).every((row) => row.resolved_at !== null && row.resolved_by_id === reporter.user.id))
    const resolvedPage = await ownerBrowser.get(diffs)
    assert.ok(resolvedPage.text.includes('Resolved by') && resolvedPage.text.includes('Unresolve discussion'))
    assert.equal((await resolve(ownerBrowser, formToken(resolvedPage.text), 'false')).status, 302)
    assert.ok((await diffNotes(mr.id)).every((row) => row.resolved_at === null))

    const outsider = await makeUser(t)
    const outsiderBrowser = new Browser(t)
    await outsiderBrowser.signIn(outsider.user.username)
    const outsiderPage = await outsiderBrowser.get(diffs)
    assert.ok(!outsiderPage.text.includes('Resolve discussion'))
    assert.equal((await resolve(outsiderBrowser, formToken(outsiderPage.text), 'true')).status, 404, 'someone else may not resolve')
    assert.ok((await diffNotes(mr.id)).every((row) => row.resolved_at === null))
  })

  it('shows a discussion the API started on a removed line under that old line', async () => {
    const master = await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master')
    await commitFiles(t, project.id, { 'README.md': '# changed\n' }, { branch: 'rewrite', parent: master!, message: 'Rewrite' })
    const mr = await makeMergeRequest(t, project, owner, { sourceBranch: 'rewrite', title: 'Rewrite' })
    const res = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`, {
      body: { body: 'Keep the old title', position: { position_type: 'text', base_sha: mr.target_sha, start_sha: mr.target_sha, head_sha: mr.sha, old_path: 'README.md', new_path: 'README.md', old_line: 1 } },
    })
    assert.equal(res.status, 201, res.text)
    assert.equal(res.body.notes[0].type, 'DiffNote')
    const page = await new Browser(t).get(`${base}/merge_requests/${mr.iid}/diffs`)
    assert.match(page.text, /<tr id="diff-0_1_" class="remove">.*?<tr class="line-discussion">.*?Keep the old title/s)
    assert.doesNotMatch(page.text, /<tr id="diff-0__1" class="add">[^]*?line-discussion/, 'not under the new line')
    const invalid = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { body: { body: 'Nowhere', position: { new_path: 'README.md' } } })
    assert.equal(invalid.status, 400)
    const issue = await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'An issue' } })
    const onIssue = await t.api('POST', `/projects/${project.id}/issues/${issue.body.iid}/discussions`, { body: { body: 'Plain', position: { new_path: 'README.md', new_line: 1 } } })
    assert.equal(onIssue.status, 201)
    assert.equal(onIssue.body.notes[0].type, 'DiscussionNote', 'an issue\'s discussion takes no position')
  })

  it('refuses a blank comment with 422 keeping the form on its line, a stale line, a form without CSRF, and a private project\'s outsiders', async () => {
    const mr = await makeMergeRequest(t, project, owner, { title: 'Refusals' })
    const diffs = `${base}/merge_requests/${mr.iid}/diffs`
    const token = formToken((await ownerBrowser.get(`${diffs}?line_code=diff-0__1`)).text)
    const path = `${mr.source_branch}.txt`
    const blank = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/discussions`, { authenticity_token: token, line_code: 'diff-0__1', new_path: path, 'note[note]': '' })
    assert.equal(blank.status, 422)
    assert.match(blank.text, /<tr id="diff-0__1" class="add">.*?error_explanation.*?<label for="diff_note">/s)
    const stale = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/discussions`, { authenticity_token: token, line_code: 'diff-0__1', new_path: `other ${HOSTILE}`, 'note[note]': 'Hm' })
    assert.equal(stale.status, 422)
    assert.ok(stale.text.includes('comment again on the line') && !stale.text.includes('<script>alert'))
    const forged = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/discussions`, { line_code: 'diff-0__1', new_path: path, 'note[note]': 'Forged' })
    assert.equal(forged.status, 422)
    assert.equal((await diffNotes(mr.id)).length, 0)

    const secret = await makeProject(t, owner, { visibility: 'private' })
    await commitFiles(t, secret.id, { 'a.txt': 'a\n' })
    const hidden = await makeMergeRequest(t, secret, owner, { title: 'Hidden' })
    const secretDiffs = `/${owner.user.username}/${secret.path}/merge_requests/${hidden.iid}`
    const outsider = await reporterBrowser.post(`${secretDiffs}/discussions`, {
      authenticity_token: formToken((await reporterBrowser.get(`${base}/merge_requests/${mr.iid}`)).text), line_code: 'diff-0__1', new_path: `${hidden.source_branch}.txt`, 'note[note]': 'Peek',
    })
    assert.equal(outsider.status, 404)
    assert.equal((await diffNotes(hidden.id)).length, 0)
  })
})
