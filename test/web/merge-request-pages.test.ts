// A project's merge request pages (web/projects/merge-requests.ts): the list with its state tabs,
// one merge request with its commits and changes, and the forms: new merge request (also from a
// fork into its source project), comment,
// merge (through the API's merge service: who may, the sha check, its refusals), close and
// reopen; visibility, escaping and CSRF as everywhere.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { makeBranches, makeMergeRequest } from '../helpers/merge-requests.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { Browser, formToken } from './browser.js'

const HOSTILE = '<script>alert("mr")</script>'

describe('Web merge request pages', () => {
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
    await makeBranches(t, project.id, ['feature'])
    await t.ctx.db.updateTable('projects').set({ default_branch: 'master' }).where('id', '=', project.id).execute()
    base = `/${owner.user.username}/${project.path}`
    ownerBrowser = new Browser(t)
    await ownerBrowser.signIn(owner.user.username)
    reporterBrowser = new Browser(t)
    await reporterBrowser.signIn(reporter.user.username)
  })
  after(async () => { await t.close() })

  const anonymous = () => new Browser(t)

  it('creates a merge request from the form, choosing the branches, and shows it with its commits and changes', async () => {
    const form = await ownerBrowser.get(`${base}/merge_requests/new?merge_request%5Bsource_branch%5D=feature`)
    assert.equal(form.status, 200, form.text)
    assert.ok(form.text.includes('value="Feature"'), 'the title is made from the branch')
    const created = await ownerBrowser.post(`${base}/merge_requests`, {
      authenticity_token: formToken(form.text), 'merge_request[source_branch]': 'feature', 'merge_request[target_branch]': 'master',
      'merge_request[title]': `Ship ${HOSTILE}`, 'merge_request[description]': `Does **things** ${HOSTILE}`,
    })
    assert.equal(created.status, 302, created.text)
    const row = await t.ctx.db.selectFrom('merge_requests').selectAll().where('target_project_id', '=', project.id).executeTakeFirstOrThrow()
    assert.equal(created.headers.location, `${base}/merge_requests/${row.iid}`)

    const page = await anonymous().get(`${base}/merge_requests/${row.iid}`)
    assert.equal(page.status, 200, page.text)
    assert.ok(!page.text.includes('<script>alert'))
    assert.ok(page.text.includes('Ship &lt;script&gt;') && page.text.includes('<strong>things</strong>'))
    assert.ok(page.text.includes('Changes (1)'))
    const commits = await anonymous().get(`${base}/merge_requests/${row.iid}/commits`)
    assert.ok(commits.text.includes('Add feature') && commits.text.includes('1 commit'))
    const diffs = await anonymous().get(`${base}/merge_requests/${row.iid}/diffs`)
    assert.match(diffs.text, /<tr id="diff-0__1" class="add">.*feature/)

    const same = await ownerBrowser.post(`${base}/merge_requests`, {
      authenticity_token: formToken(form.text), 'merge_request[source_branch]': 'master', 'merge_request[target_branch]': 'master', 'merge_request[title]': 'Same',
    })
    assert.equal(same.status, 422)
    assert.ok(same.text.includes('You can not use same project/branch for source and target'))
    assert.equal((await reporterBrowser.get(`${base}/merge_requests/new`)).status, 404, 'a Reporter may not open merge requests from this project')
  })

  it('lists merge requests by state with their branches', async () => {
    const closed = await makeMergeRequest(t, project, owner, { title: 'Abandoned' })
    await t.ctx.db.updateTable('merge_requests').set({ state: 'closed' }).where('id', '=', closed.id).execute()
    const open = await anonymous().get(`${base}/merge_requests`)
    assert.equal(open.status, 200)
    assert.ok(open.text.includes('feature</span> → <span class="mono">master'))
    assert.ok(!open.text.includes('Abandoned'))
    const all = await anonymous().get(`${base}/merge_requests?state=closed`)
    assert.ok(all.text.includes('Abandoned'))
    assert.match(all.text, /Closed <span class="count">1<\/span>/)
  })

  it('merges from the merge box for those who may push to the target, moving the target branch', async () => {
    const mr = await makeMergeRequest(t, project, developer, { title: 'To merge' })
    const reporterPage = await reporterBrowser.get(`${base}/merge_requests/${mr.iid}`)
    assert.ok(!reporterPage.text.includes('action="' + `${base}/merge_requests/${mr.iid}/merge"`), 'no merge form for a Reporter')
    const refused = await reporterBrowser.post(`${base}/merge_requests/${mr.iid}/merge`, { authenticity_token: formToken(reporterPage.text) })
    assert.equal(refused.status, 404)

    const page = await ownerBrowser.get(`${base}/merge_requests/${mr.iid}`)
    const token = formToken(page.text)
    const stale = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/merge`, { authenticity_token: token, sha: '0'.repeat(40) })
    assert.equal(stale.status, 422)
    assert.ok(stale.text.includes('error_explanation'), 'a head other than the one shown is refused, with the service\'s message')
    const before = await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master')
    const merged = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/merge`, { authenticity_token: token, sha: mr.sha ?? '', should_remove_source_branch: '1' })
    assert.equal(merged.status, 302, merged.text)
    const row = await t.ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', mr.id).executeTakeFirstOrThrow()
    assert.equal(row.state, 'merged')
    const after = await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master')
    assert.notEqual(after, before)
    assert.equal(row.merge_commit_sha, after)
    assert.ok((await ownerBrowser.get(`${base}/merge_requests/${mr.iid}`)).text.includes('Merged'))
  })

  it('refuses to merge what the merge service refuses (a closed merge request), showing why', async () => {
    const mr = await makeMergeRequest(t, project, owner, { title: 'Closed before merging' })
    const page = await ownerBrowser.get(`${base}/merge_requests/${mr.iid}`)
    await t.ctx.db.updateTable('merge_requests').set({ state: 'closed' }).where('id', '=', mr.id).execute()
    const res = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/merge`, { authenticity_token: formToken(page.text), sha: mr.sha ?? '' })
    assert.equal(res.status, 422)
    assert.ok(res.text.includes('error_explanation'))
    assert.equal((await t.ctx.db.selectFrom('merge_requests').select('state').where('id', '=', mr.id).executeTakeFirstOrThrow()).state, 'closed')
  })

  it('closes and reopens, and takes comments with a preview; refuses forms without the CSRF token', async () => {
    const mr = await makeMergeRequest(t, project, owner, { title: 'Discuss me' })
    const page = await ownerBrowser.get(`${base}/merge_requests/${mr.iid}`)
    const token = formToken(page.text)
    const preview = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/notes`, { authenticity_token: token, 'note[note]': '_maybe_', preview: '1' })
    assert.ok(preview.text.includes('<em>maybe</em>'))
    const posted = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/notes`, { authenticity_token: token, 'note[note]': `LGTM ${HOSTILE}` })
    assert.equal(posted.status, 302)
    assert.match(String(posted.headers.location), /#note_\d+$/)
    assert.ok(!(await anonymous().get(`${base}/merge_requests/${mr.iid}`)).text.includes('<script>alert'))
    await ownerBrowser.post(`${base}/merge_requests/${mr.iid}`, { authenticity_token: token, _method: 'put', 'merge_request[state_event]': 'close' })
    assert.equal((await t.ctx.db.selectFrom('merge_requests').select('state').where('id', '=', mr.id).executeTakeFirstOrThrow()).state, 'closed')
    await ownerBrowser.post(`${base}/merge_requests/${mr.iid}`, { authenticity_token: token, _method: 'put', 'merge_request[state_event]': 'reopen' })
    assert.equal((await t.ctx.db.selectFrom('merge_requests').select('state').where('id', '=', mr.id).executeTakeFirstOrThrow()).state, 'opened')
    const forged = await ownerBrowser.post(`${base}/merge_requests/${mr.iid}/merge`, { sha: mr.sha ?? '' })
    assert.equal(forged.status, 422)
    assert.equal((await t.ctx.db.selectFrom('merge_requests').select('state').where('id', '=', mr.id).executeTakeFirstOrThrow()).state, 'opened')
  })

  it('opens a merge request from a fork into its source project: from the fork\'s page by default, or choosing the fork as source upstream', async () => {
    const forker = await makeUser(t)
    const forked = await t.api('POST', `/projects/${project.id}/fork`, { token: forker.token })
    assert.equal(forked.status, 201, forked.text)
    const master = await t.ctx.repositories.open(project.id).resolveCommit('refs/heads/master')
    await commitFiles(t, forked.body.id, { 'fix.txt': 'fix\n' }, { branch: 'fork-fix', parent: master! })
    const forkBase = `/${forker.user.username}/${project.path}`
    const browser = new Browser(t)
    await browser.signIn(forker.user.username)

    const fromFork = await browser.get(`${forkBase}/merge_requests/new?merge_request%5Bsource_branch%5D=fork-fix`)
    assert.equal(fromFork.status, 200, fromFork.text)
    assert.match(fromFork.text, new RegExp(`<select id="target_project_id"[^>]*><option value="${project.id}" selected>${owner.user.username}/${project.path}</option>`), 'the fork\'s source is the default target')
    assert.ok(fromFork.text.includes('<option selected>fork-fix</option>'))
    const created = await browser.post(`${forkBase}/merge_requests`, {
      authenticity_token: formToken(fromFork.text), 'merge_request[source_project_id]': String(forked.body.id), 'merge_request[target_project_id]': String(project.id),
      'merge_request[source_branch]': 'fork-fix', 'merge_request[target_branch]': 'master', 'merge_request[title]': `From the fork ${HOSTILE}`,
    })
    assert.equal(created.status, 302, created.text)
    const row = await t.ctx.db.selectFrom('merge_requests').selectAll().where('source_project_id', '=', forked.body.id).executeTakeFirstOrThrow()
    assert.equal(row.target_project_id, project.id)
    assert.equal(created.headers.location, `${base}/merge_requests/${row.iid}`)
    assert.equal((await t.api('GET', `/projects/${project.id}/merge_requests/${row.iid}`)).body.source_project_id, forked.body.id)

    // Upstream, the forker may pick their fork as the source (they may not push to the upstream itself).
    await makeMember(t, { type: 'project', id: project.id }, forker, REPORTER)
    const upstream = await browser.get(`${base}/merge_requests/new?merge_request%5Bsource_project_id%5D=${forked.body.id}`)
    assert.equal(upstream.status, 200, upstream.text)
    assert.ok(upstream.text.includes('<option selected>fork-fix</option>') || upstream.text.includes('<option>fork-fix</option>'), 'the fork\'s branches')
    const other = await browser.post(`${base}/merge_requests`, {
      authenticity_token: formToken(upstream.text), 'merge_request[source_project_id]': String(project.id), 'merge_request[target_project_id]': String(project.id),
      'merge_request[source_branch]': 'feature', 'merge_request[target_branch]': 'master', 'merge_request[title]': 'Not mine to push',
    })
    assert.equal(other.status, 404, 'a source project the visitor may not push to is not offered nor taken')
    const empty = await browser.post(`${base}/merge_requests`, {
      authenticity_token: formToken(upstream.text), 'merge_request[source_project_id]': String(forked.body.id), 'merge_request[target_project_id]': String(project.id),
      'merge_request[source_branch]': 'fork-fix', 'merge_request[target_branch]': 'master', 'merge_request[title]': ' ',
    })
    assert.equal(empty.status, 422)
    assert.ok(!empty.text.includes('<script>alert'))
  })

  it('answers a private project\'s merge requests with the 404 page', async () => {
    const secret = await makeProject(t, owner, { visibility: 'private' })
    await commitFiles(t, secret.id, { 'a.txt': 'a\n' })
    const mr = await makeMergeRequest(t, secret, owner, { title: 'Hidden' })
    const secretBase = `/${owner.user.username}/${secret.path}`
    for (const path of [`${secretBase}/merge_requests`, `${secretBase}/merge_requests/${mr.iid}`, `${secretBase}/merge_requests/${mr.iid}/diffs`]) {
      assert.equal((await anonymous().get(path)).status, 404, path)
      assert.equal((await reporterBrowser.get(path)).status, 404, path)
    }
    assert.equal((await ownerBrowser.get(`${secretBase}/merge_requests/${mr.iid}`)).status, 200)
  })
})
