// Export → import round trip through the API: a project with branches, a tag, a wiki, labels, a
// milestone, issues with notes, labels, assignees and an attached file, a merge request with a
// comment, and a member, exported by its maintainer and imported by an administrator into a
// group; what the import holds equals the source (refs, wiki, issues, merge requests, milestones,
// members mapped, the upload served under the new path). Run on SQLite, and on PostgreSQL with
// INGOT_TEST_DATABASE_URL.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { projectFullPath } from '../helpers/projects.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { multipart } from '../helpers/multipart.js'

describe('project export and import round trip', () => {
  let t: TestApp
  let maintainer: TestUser
  let developer: TestUser
  let source: ProjectRow
  let attachment: { url: string; markdown: string }

  const runJobs = async () => { while (await t.ctx.jobs.runDue(Date.now() + 5_000) > 0) { /* until none is due */ } }
  const ok = async (method: string, path: string, body?: unknown, token = maintainer.token) => {
    const res = await t.api(method, path, { token, ...(body === undefined ? {} : { body }) })
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`)
    return res.body
  }

  before(async () => {
    t = await buildTestApp()
    maintainer = await makeUser(t)
    developer = await makeUser(t)
    source = await makeProject(t, maintainer)
    await makeMember(t, { type: 'project', id: source.id }, developer, 30)
    const first = await commitFiles(t, source.id, { 'README.md': '# Round trip\n' })
    await commitFiles(t, source.id, { 'feature.txt': 'feature\n' }, { branch: 'feature', parent: first })
    await ok('POST', `/projects/${source.id}/repository/tags`, { tag_name: 'v1.0', ref: 'master' })
    await ok('POST', `/projects/${source.id}/wikis`, { title: 'Home', content: 'Welcome to the **wiki**' })
    await ok('POST', `/projects/${source.id}/labels`, { name: 'bug', color: '#FF0000' })
    await ok('POST', `/projects/${source.id}/labels`, { name: 'feature', color: '#00FF00' })
    const milestone = await ok('POST', `/projects/${source.id}/milestones`, { title: 'v1' })
    const { payload, contentType } = await multipart({ file: { name: 'notes.txt', data: Buffer.from('attached file') } })
    const uploaded = await t.app.inject({
      method: 'POST', url: `/api/v4/projects/${source.id}/uploads`, payload, headers: { 'content-type': contentType, 'private-token': maintainer.token },
    })
    assert.equal(uploaded.statusCode, 201, uploaded.body)
    attachment = uploaded.json()
    const issue = await ok('POST', `/projects/${source.id}/issues`, {
      title: 'Crash on start', description: `It crashes. ${attachment.markdown}`, labels: 'bug', milestone_id: milestone.id, assignee_ids: [developer.user.id],
    })
    await ok('POST', `/projects/${source.id}/issues/${issue.iid}/notes`, { body: 'Seen it too' }, developer.token)
    await ok('POST', `/projects/${source.id}/issues/${issue.iid}/notes`, { body: 'Fixed on master' })
    const closed = await ok('POST', `/projects/${source.id}/issues`, { title: 'Old idea', labels: 'feature' })
    await ok('PUT', `/projects/${source.id}/issues/${closed.iid}`, { state_event: 'close' })
    const mr = await ok('POST', `/projects/${source.id}/merge_requests`, { source_branch: 'feature', target_branch: 'master', title: 'Add the feature', labels: 'feature' })
    await ok('POST', `/projects/${source.id}/merge_requests/${mr.iid}/notes`, { body: 'Looks good' }, developer.token)
  })
  after(async () => { await t.close() })

  /** What the two projects must share, read through the API. */
  async function contents(projectId: number) {
    const list = async (path: string) => ok('GET', `/projects/${projectId}${path}`, undefined, t.root.token) as Promise<any[]>
    const issues = await list('/issues?state=all&sort=asc&per_page=100')
    const mergeRequests = await list('/merge_requests?state=all&sort=asc&per_page=100')
    const userNotes = async (kind: string, iid: number) =>
      (await list(`/${kind}/${iid}/notes?sort=asc&per_page=100`)).filter((note) => !note.system).map((note) => [note.author.username, note.body])
    return {
      branches: (await list('/repository/branches')).map((branch) => [branch.name, branch.commit.id]).sort(),
      tags: (await list('/repository/tags')).map((tag) => [tag.name, tag.commit.id]),
      defaultBranch: (await ok('GET', `/projects/${projectId}`, undefined, t.root.token)).default_branch,
      wiki: (await list('/wikis?with_content=1')).map((page) => [page.slug, page.title, page.content]),
      labels: (await list('/labels')).map((label) => [label.name, label.color]).sort(),
      milestones: (await list('/milestones')).map((milestone) => [milestone.iid, milestone.title, milestone.state]),
      issues: await Promise.all(issues.map(async (issue) => ({
        iid: issue.iid, title: issue.title, state: issue.state, labels: issue.labels, milestone: issue.milestone?.title ?? null,
        author: issue.author.username, assignees: issue.assignees.map((user: { username: string }) => user.username),
        description: issue.description, notes: await userNotes('issues', issue.iid),
      }))),
      mergeRequests: await Promise.all(mergeRequests.map(async (mr) => ({
        iid: mr.iid, title: mr.title, state: mr.state, source: mr.source_branch, target: mr.target_branch, sha: mr.sha, labels: mr.labels,
        author: mr.author.username, notes: await userNotes('merge_requests', mr.iid),
      }))),
      members: (await list('/members')).map((member) => [member.username, member.access_level]).sort(),
    }
  }

  it('imports what it exported into another namespace, users mapped by an administrator', async () => {
    assert.equal((await t.api('POST', `/projects/${source.id}/export`, { token: maintainer.token })).status, 202)
    await runJobs()
    assert.equal((await ok('GET', `/projects/${source.id}/export`)).export_status, 'finished')
    const archive = await t.app.inject({ method: 'GET', url: `/api/v4/projects/${source.id}/export/download`, headers: { 'private-token': maintainer.token } })
    assert.equal(archive.statusCode, 200)

    const group = await makeGroup(t)
    const { payload, contentType } = await multipart({ path: 'round-trip', namespace: group.full_path, file: { name: 'export.tar.gz', data: archive.rawPayload } })
    const posted = await t.app.inject({ method: 'POST', url: '/api/v4/projects/import', payload, headers: { 'content-type': contentType, 'private-token': t.root.token } })
    assert.equal(posted.statusCode, 201, posted.body)
    assert.equal(posted.json().import_status, 'scheduled')
    await runJobs()
    const copy = posted.json().id as number
    const state = await ok('GET', `/projects/${copy}/import`, undefined, t.root.token)
    assert.equal(state.import_status, 'finished', state.import_error)

    const [expected, actual] = [await contents(source.id), await contents(copy)]
    assert.ok(expected.issues.length === 2 && expected.mergeRequests.length === 1 && expected.wiki.length === 1)
    const { members: sourceMembers, ...sourceRest } = expected
    const { members: copyMembers, ...copyRest } = actual
    assert.deepEqual(copyRest, sourceRest)
    // The members mapped by email or username; the importing administrator joins as Maintainer.
    assert.deepEqual(copyMembers, [...sourceMembers, [t.root.user.username, 40]].sort())

    // The attached file is served under the new path, at the same secret.
    const served = await t.app.inject({ method: 'GET', url: `/${group.full_path}/round-trip${attachment.url}`, headers: { 'private-token': t.root.token } })
    assert.equal(served.statusCode, 200)
    assert.equal(served.body, 'attached file')
    assert.notEqual(await projectFullPath(t, source), `${group.full_path}/round-trip`)
  })
})
