// What issue, merge request and note writes tell the activity listeners (webhooks, integrations,
// email), driven through the API: one activity per change, after it committed, with the changes.
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeBranches, makeMergeRequest } from '../helpers/merge-requests.js'
import type { Activity } from '../../src/services/activity/activity.js'
import type { ProjectRow } from '../../src/db/schema.js'

describe('Activity published by issue, merge request and note writes', () => {
  let t: TestApp
  let project: ProjectRow
  let other: ProjectRow
  let assignee: TestUser
  const seen: Activity[] = []

  before(async () => {
    t = await buildTestApp()
    project = await makeProject(t, null, { visibility: 'private' })
    other = await makeProject(t, null, { visibility: 'private' })
    assignee = await makeUser(t)
    await t.api('POST', `/projects/${project.id}/members`, { body: { user_id: assignee.user.id, access_level: 30 } })
    t.ctx.activity.add(async (activity) => {
      // Published after the commit: what it names is already there to read.
      if (activity.kind === 'issue') assert.ok(await t.ctx.db.selectFrom('issues').select('id').where('id', '=', activity.issueId).executeTakeFirst())
      seen.push(activity)
    })
  })
  beforeEach(() => { seen.length = 0 })
  after(async () => { await t.close() })

  it('issues: open, update with the changed fields, close, reopen; nothing for a change that changes nothing', async () => {
    const created = await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'First', labels: 'bug' } })
    assert.equal(created.status, 201)
    assert.deepEqual(seen, [{ kind: 'issue', action: 'open', projectId: project.id, issueId: created.body.id, userId: t.root.user.id, changes: {} }])

    seen.length = 0
    const path = `/projects/${project.id}/issues/${created.body.iid}`
    assert.equal((await t.api('PUT', path, { body: { title: 'Renamed', labels: 'bug,ui', assignee_ids: [assignee.user.id] } })).status, 200)
    assert.equal(seen.length, 1)
    const update = seen[0]!
    assert.ok(update.kind === 'issue' && update.action === 'update')
    assert.deepEqual(update.changes.title, { previous: 'First', current: 'Renamed' })
    assert.deepEqual(update.changes.labels, { previous: ['bug'], current: ['bug', 'ui'] })
    assert.deepEqual(update.changes.assignees, { previous: [], current: [assignee.user.id] })
    assert.ok(update.changes.updated_at !== undefined)
    assert.equal(update.changes.description, undefined)

    seen.length = 0
    assert.equal((await t.api('PUT', path, { body: { title: 'Renamed' } })).status, 200)
    assert.equal(seen.length, 0)

    await t.api('PUT', path, { body: { state_event: 'close' } })
    await t.api('PUT', path, { body: { state_event: 'reopen' } })
    assert.deepEqual(seen.map((a) => a.kind === 'issue' && [a.action, a.changes.state]), [
      ['close', { previous: 'opened', current: 'closed' }],
      ['reopen', { previous: 'closed', current: 'opened' }],
    ])
  })

  it('time tracking publishes an update with the time that changed; no change, no activity', async () => {
    const created = await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Timed' } })
    const path = `/projects/${project.id}/issues/${created.body.iid}`
    seen.length = 0
    assert.equal((await t.api('POST', `${path}/time_estimate`, { body: { duration: '1h' } })).status, 200)
    assert.equal((await t.api('POST', `${path}/add_spent_time`, { body: { duration: '30m' } })).status, 201)
    assert.equal((await t.api('POST', `${path}/time_estimate`, { body: { duration: '1h' } })).status, 200)
    assert.deepEqual(seen.map((a) => a.kind === 'issue' && [a.action, a.changes.time_estimate, a.changes.total_time_spent]), [
      ['update', { previous: 0, current: 3600 }, undefined],
      ['update', undefined, { previous: 0, current: 1800 }],
    ])
    assert.ok(seen.every((a) => a.kind === 'issue' && a.issueId === created.body.id && a.changes.updated_at !== undefined))
  })

  it('a moved issue opens in the target and closes in the source', async () => {
    const created = await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Moving' } })
    seen.length = 0
    const moved = await t.api('POST', `/projects/${project.id}/issues/${created.body.iid}/move`, { body: { to_project_id: other.id } })
    assert.equal(moved.status, 201)
    assert.deepEqual(seen.map((a) => a.kind === 'issue' && [a.action, a.projectId, a.issueId]), [
      ['open', other.id, moved.body.id],
      ['close', project.id, created.body.id],
    ])
  })

  it('notes and discussion replies are published; emoji awards and refused notes are not', async () => {
    const issue = await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Talked about' } })
    const base = `/projects/${project.id}/issues/${issue.body.iid}`
    seen.length = 0
    const note = await t.api('POST', `${base}/notes`, { body: { body: 'A comment' } })
    const discussion = await t.api('POST', `${base}/discussions`, { body: { body: 'A thread' } })
    const reply = await t.api('POST', `${base}/discussions/${discussion.body.id}/notes`, { body: { body: 'A reply' } })
    await t.api('POST', `${base}/notes`, { body: { body: ':thumbsup:' } })
    await t.api('POST', `${base}/notes`, { body: { body: '' } })
    assert.deepEqual(seen, [note.body.id, discussion.body.notes[0].id, reply.body.id].map((noteId) => (
      { kind: 'note', projectId: project.id, noteId, userId: t.root.user.id })))
  })

  it('merge requests: open, update, close, and merge by the API', async () => {
    await makeBranches(t, project.id, [])
    const mr = await makeMergeRequest(t, project, null, { title: 'Feature' })
    assert.deepEqual(seen.map((a) => a.kind === 'merge_request' && [a.action, a.mergeRequestId]), [['open', mr.id]])

    seen.length = 0
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`
    await t.api('PUT', path, { body: { title: 'Feature, renamed', labels: 'ready' } })
    const update = seen[0]
    assert.ok(update?.kind === 'merge_request' && update.action === 'update')
    assert.deepEqual(update.changes.title, { previous: 'Feature', current: 'Feature, renamed' })
    assert.deepEqual(update.changes.labels, { previous: [], current: ['ready'] })

    seen.length = 0
    const merged = await t.api('PUT', `${path}/merge`)
    assert.equal(merged.status, 200, merged.text)
    assert.deepEqual(seen.filter((a) => a.kind === 'merge_request').map((a) => a.kind === 'merge_request' && a.action), ['merge'])

    const closing = await makeMergeRequest(t, project, null)
    seen.length = 0
    await t.api('PUT', `/projects/${project.id}/merge_requests/${closing.iid}`, { body: { state_event: 'close' } })
    assert.deepEqual(seen.map((a) => a.kind === 'merge_request' && a.action), ['close'])
  })
})
