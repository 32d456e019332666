// A milestone's issues and merge requests (spec: Milestones, GET /:milestone_id/issues and
// /:milestone_id/merge_requests) for project and group milestones: only that milestone's, newest
// first, paginated, a group milestone's across the group's projects, visibility (confidential
// issues, private projects) as every list applies it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type ApiResponse, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser } from '../helpers/factories.js'
import { groupOwner, makeIssue, makeMergeRequest, makeMilestone, projectOwner } from '../helpers/collaboration-fixtures.js'
import { GUEST } from '../../src/policies/access-levels.js'

const iidsOf = (res: ApiResponse) => (res.body as { iid: number }[]).map((item) => item.iid)

describe('milestone issues and merge requests', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  it("lists a project milestone's issues and merge requests, newest first, paginated", async () => {
    const project = await makeProject(t, null)
    const milestone = await makeMilestone(t, projectOwner(project.id), 'v1')
    const other = await makeMilestone(t, projectOwner(project.id), 'v2')
    const authorId = t.root.user.id
    for (let i = 0; i < 3; i++) await makeIssue(t, project.id, { authorId, milestoneId: milestone.id })
    await makeIssue(t, project.id, { authorId, milestoneId: other.id })
    await makeIssue(t, project.id, { authorId })
    await makeMergeRequest(t, project.id, { authorId, milestoneId: milestone.id })
    await makeMergeRequest(t, project.id, { authorId, milestoneId: other.id })

    const issues = await t.api('GET', `/projects/${project.id}/milestones/${milestone.id}/issues`, { query: { per_page: 2 } })
    assert.equal(issues.status, 200, issues.text)
    assert.deepEqual(iidsOf(issues), [3, 2])
    assert.equal(issues.headers['x-total'], '3')
    assert.equal(issues.body[0].milestone.id, milestone.id)
    const mergeRequests = await t.api('GET', `/projects/${project.id}/milestones/${milestone.id}/merge_requests`)
    assert.equal(mergeRequests.status, 200, mergeRequests.text)
    assert.deepEqual(iidsOf(mergeRequests), [1])
    assert.equal(mergeRequests.body[0].milestone.id, milestone.id)
  })

  it("lists a group milestone's issues and merge requests across the group's projects and subgroups", async () => {
    const group = await makeGroup(t)
    const subgroup = await makeGroup(t, { parent: group })
    const first = await makeProject(t, null, { namespace: group })
    const second = await makeProject(t, null, { namespace: subgroup })
    const elsewhere = await makeProject(t, null)
    const milestone = await makeMilestone(t, groupOwner(group.id), 'Q1')
    const authorId = t.root.user.id
    const a = await makeIssue(t, first.id, { authorId, milestoneId: milestone.id })
    const b = await makeIssue(t, second.id, { authorId, milestoneId: milestone.id })
    await makeIssue(t, elsewhere.id, { authorId })
    await makeMergeRequest(t, second.id, { authorId, milestoneId: milestone.id })

    const issues = await t.api('GET', `/groups/${group.id}/milestones/${milestone.id}/issues`)
    assert.equal(issues.status, 200, issues.text)
    assert.deepEqual((issues.body as { id: number }[]).map((issue) => issue.id), [b.id, a.id])
    const mergeRequests = await t.api('GET', `/groups/${group.id}/milestones/${milestone.id}/merge_requests`)
    assert.deepEqual((mergeRequests.body as { project_id: number }[]).map((mr) => mr.project_id), [second.id])
  })

  it('hides what the caller may not see and answers 404 for unknown milestones and private projects', async () => {
    const project = await makeProject(t, null)
    const milestone = await makeMilestone(t, projectOwner(project.id), 'v1')
    const authorId = t.root.user.id
    await makeIssue(t, project.id, { authorId, milestoneId: milestone.id })
    await makeIssue(t, project.id, { authorId, milestoneId: milestone.id, confidential: true })
    await makeMergeRequest(t, project.id, { authorId, milestoneId: milestone.id })
    const guest = await makeUser(t)
    await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
    const guestToken = guest.token
    const issues = await t.api('GET', `/projects/${project.id}/milestones/${milestone.id}/issues`, { token: guestToken })
    assert.deepEqual(iidsOf(issues), [1], 'a Guest does not see the confidential issue')
    assert.equal(issues.headers['x-total'], '1')
    const mergeRequests = await t.api('GET', `/projects/${project.id}/milestones/${milestone.id}/merge_requests`, { token: guestToken })
    assert.equal(mergeRequests.status, 403, 'a Guest of a private project does not read its merge requests')

    const outsider = await makeUser(t)
    const hidden = await t.api('GET', `/projects/${project.id}/milestones/${milestone.id}/issues`, { token: outsider.token })
    assert.equal(hidden.status, 404)
    const unknown = await t.api('GET', `/projects/${project.id}/milestones/999999/issues`)
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.message, '404 Milestone Not Found')
    const anonymous = await t.api('GET', `/projects/${project.id}/milestones/${milestone.id}/merge_requests`, { token: null })
    assert.equal(anonymous.status, 401)
  })
})
