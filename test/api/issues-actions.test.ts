// What else is done to one issue: moving it to another project, time tracking and subscriptions —
// the answers, the rows each leaves (notes, events, counts) and who may do it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { insertMilestone, issueCountsOf, issueEventActions, makeIssue, systemNoteBodies } from '../helpers/issues.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import type { IssueRow, ProjectRow } from '../../src/db/schema.js'
import { REPORTER } from '../../src/policies/access-levels.js'

const keysOf = (value: object) => Object.keys(value).sort()

describe('Issue actions', () => {
  let t: TestApp
  let m: Matrix
  let path: (issue: IssueRow, project?: ProjectRow) => string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    path = (issue, project = m.project) => `/projects/${project.id}/issues/${issue.iid}`
  })
  after(async () => { await t.close() })

  describe('POST /projects/:id/issues/:issue_iid/move', () => {
    let target: ProjectRow
    let outsider: TestUser

    before(async () => {
      target = await makeProject(t, m.users.owner, { namespace: m.group, visibility: 'private' })
      await makeMember(t, { type: 'project', id: target.id }, m.users.maintainer, REPORTER)
      outsider = await makeUser(t)
    })

    it('makes the issue anew in the target, closes the original and links the two', async () => {
      const milestone = await insertMilestone(t, { projectId: m.project.id }, 'Shared title')
      const targetMilestone = await insertMilestone(t, { projectId: target.id }, 'Shared title')
      await t.ctx.db.insertInto('labels').values({
        project_id: target.id, group_id: null, title: 'bug', color: '#FF0000', description: null, priority: null, created_at: Date.now(), updated_at: Date.now(),
      }).execute()
      const made = await makeIssue(t, m.project, m.users.owner, {
        title: 'Moving', description: 'Along', labels: ['bug', 'only-here'], milestoneId: milestone.id, assigneeIds: [m.users.maintainer.user.id],
        confidential: true, dueDate: '2033-03-03',
      })
      await t.api('PUT', path(made), { token: m.tokens.owner, body: { title: 'Moving on' } })
      const existing = await makeIssue(t, target, m.users.owner, { title: 'Already there' })
      const sourceCounts = await issueCountsOf(t, m.project.id)
      const targetCounts = await issueCountsOf(t, target.id)

      const res = await t.api('POST', `${path(made)}/move`, { token: m.tokens.maintainer, body: { to_project_id: target.id } })
      assert.equal(res.status, 201, res.text)
      const moved = res.body
      assert.ok(keysOf(moved).includes('_links'))
      assert.equal(moved.project_id, target.id)
      assert.equal(moved.iid, existing.iid + 1)
      assert.equal(moved.title, 'Moving on')
      assert.equal(moved.description, 'Along')
      assert.equal(moved.author.id, m.users.owner.user.id)
      assert.deepEqual(moved.labels, ['bug'])
      assert.equal(moved.milestone.id, targetMilestone.id)
      assert.deepEqual(moved.assignees.map((user: { id: number }) => user.id), [m.users.maintainer.user.id])
      assert.equal(moved.confidential, true)
      assert.equal(moved.due_date, '2033-03-03')
      assert.equal(moved.state, 'opened')

      const original = await t.ctx.db.selectFrom('issues').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow()
      assert.equal(original.state, 'closed')
      assert.equal(original.moved_to_id, moved.id)
      assert.equal(original.closed_by_id, m.users.maintainer.user.id)
      const sourcePath = `${m.group.full_path}/${m.project.path}`
      const targetPath = `${m.group.full_path}/${target.path}`
      assert.deepEqual((await systemNoteBodies(t, made.id)).slice(-1), [`moved to ${targetPath}#${moved.iid}`])
      // The notes came along, the system notes of the original's edits included.
      assert.deepEqual(await systemNoteBodies(t, moved.id), [
        'changed title from **Moving** to **Moving{+ on+}**', `moved from ${sourcePath}#${made.iid}`,
      ])
      const discussions = await t.ctx.db.selectFrom('notes').select('discussion_id').where('noteable_type', '=', 'Issue')
        .where('noteable_id', 'in', [made.id, moved.id]).execute()
      assert.equal(new Set(discussions.map((note) => note.discussion_id)).size, discussions.length)
      assert.deepEqual(await issueEventActions(t, moved.id), ['created'])
      assert.deepEqual(await issueEventActions(t, made.id), ['created', 'updated', 'closed'])

      const afterSource = await issueCountsOf(t, m.project.id)
      assert.equal(afterSource.open_issues_count, sourceCounts.open_issues_count! - 1)
      assert.equal(afterSource['closed/1'], (sourceCounts['closed/1'] ?? 0) + 1)
      const afterTarget = await issueCountsOf(t, target.id)
      assert.equal(afterTarget.open_issues_count, targetCounts.open_issues_count! + 1)
      assert.equal(afterTarget['opened/1'], 1)

      const again = await t.api('POST', `${path(made)}/move`, { token: m.tokens.maintainer, body: { to_project_id: target.id + 0 } })
      assert.equal(again.status, 400)
      assert.deepEqual(again.body, { message: 'Cannot move issue due to insufficient permissions!' })
    })

    it('leaves behind the assignee who cannot read the target, and the milestone it has none of', async () => {
      const open = await makeProject(t, m.users.owner, { visibility: 'public' })
      const milestone = await insertMilestone(t, { projectId: open.id }, 'Nowhere else')
      const made = await makeIssue(t, open, m.users.owner, { title: 'Public', assigneeIds: [outsider.user.id], milestoneId: milestone.id })
      const res = await t.api('POST', `/projects/${open.id}/issues/${made.iid}/move`, { token: m.tokens.owner, body: { to_project_id: target.id } })
      assert.equal(res.status, 201)
      assert.deepEqual(res.body.assignees, [])
      assert.equal(res.body.milestone, null)
    })

    it("refuses the issue's own project, targets out of sight and callers who may not administer issues in both", async () => {
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'Staying' })
      const move = (body: Record<string, unknown>, token: string | null = m.tokens.owner) => t.api('POST', `${path(made)}/move`, { token, body })
      const same = await move({ to_project_id: m.project.id })
      assert.equal(same.status, 400)
      assert.deepEqual(same.body, { message: 'Cannot move issue to project it originates from!' })
      const invisible = await makeProject(t, outsider)
      assert.deepEqual((await move({ to_project_id: invisible.id })).body, { message: '404 Project Not Found' })
      assert.equal((await move({ to_project_id: 99999999 })).status, 404)
      assert.deepEqual((await move({})).body, { error: 'to_project_id is missing' })
      assert.equal((await move({ to_project_id: 'there' })).status, 400)
      // A Reporter of the source who is only a Guest of the target.
      const reporterOnly = await makeUser(t)
      await makeMember(t, { type: 'project', id: m.project.id }, reporterOnly, REPORTER)
      await makeMember(t, { type: 'project', id: target.id }, reporterOnly, 10)
      const refused = await move({ to_project_id: target.id }, reporterOnly.token)
      assert.equal(refused.status, 400)
      assert.deepEqual(refused.body, { message: 'Cannot move issue due to insufficient permissions!' })
      // A Guest of the source who cannot see the target.
      await expectStatuses(m, (token) => move({ to_project_id: target.id }, token), { anonymous: 401, nonMember: 404, guest: 404 })
    })
  })

  describe('time tracking', () => {
    let issue: IssueRow
    const post = (action: string, body: Record<string, unknown> = {}, token: string | null = m.tokens.reporter) =>
      t.api('POST', `${path(issue)}/${action}`, { token, body })

    before(async () => {
      issue = await makeIssue(t, m.project, m.users.owner, { title: 'Timed' })
    })

    it('sets and resets the estimate, adds and subtracts and resets time spent, with notes', async () => {
      const estimate = await post('time_estimate', { duration: '3h30m' })
      assert.equal(estimate.status, 200)
      assert.deepEqual(estimate.body, { time_estimate: 12_600, total_time_spent: 0, human_time_estimate: '3h 30m', human_total_time_spent: null })
      const week = await post('time_estimate', { duration: '1w 2d' })
      assert.equal(week.body.time_estimate, 7 * 8 * 3600)
      assert.equal(week.body.human_time_estimate, '1w 2d')
      const spent = await post('add_spent_time', { duration: '1h' })
      assert.equal(spent.status, 201)
      assert.equal(spent.body.total_time_spent, 3600)
      const less = await post('add_spent_time', { duration: '-30m' })
      assert.equal(less.body.total_time_spent, 1800)
      assert.equal(less.body.human_total_time_spent, '30m')
      const tooMuch = await post('add_spent_time', { duration: '-1h' })
      assert.equal(tooMuch.status, 400)
      assert.deepEqual(tooMuch.body, { message: { time_spent: ['Time to subtract exceeds the total time spent'] } })
      const stats = await t.api('GET', `${path(issue)}/time_stats`, { token: m.tokens.guest })
      assert.deepEqual(stats.body, { time_estimate: 201_600, total_time_spent: 1800, human_time_estimate: '1w 2d', human_total_time_spent: '30m' })
      const single = await t.api('GET', path(issue), { token: m.tokens.guest })
      assert.deepEqual(single.body.time_stats, stats.body)
      assert.equal((await post('reset_spent_time')).body.total_time_spent, 0)
      const reset = await post('reset_time_estimate')
      assert.equal(reset.status, 200)
      assert.deepEqual(reset.body, { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null })
      assert.deepEqual(await systemNoteBodies(t, issue.id), [
        'changed time estimate to 3h 30m', 'changed time estimate to 1w 2d', 'added 1h of time spent', 'subtracted 30m of time spent',
        'removed time spent', 'removed time estimate',
      ])
    })

    it('rejects durations it cannot read', async () => {
      // Beyond the integer columns (68 years) is unreadable too: PostgreSQL refused the value with a 500.
      for (const duration of ['soon', '1x', '', '2147483648', '100000mo']) {
        const estimate = await post('time_estimate', { duration })
        assert.equal(estimate.status, 400, duration)
        assert.deepEqual(estimate.body, { message: { time_estimate: ['has an invalid format'] } })
        assert.deepEqual((await post('add_spent_time', { duration })).body, { message: { time_spent: ['has an invalid format'] } })
      }
      assert.deepEqual((await post('time_estimate', { duration: '-1h' })).body, { message: { time_estimate: ['has an invalid format'] } })
      assert.deepEqual((await post('time_estimate')).body, { error: 'duration is missing' })
      // Each addition fits, the total would not.
      assert.equal((await post('add_spent_time', { duration: '2147483000' })).status, 201)
      assert.deepEqual((await post('add_spent_time', { duration: '1000' })).body, { message: { time_spent: ['has an invalid format'] } })
      assert.equal((await post('reset_spent_time')).status, 200)
    })

    it('is for Reporters and up; time_stats for whoever reads the issue', async () => {
      await expectStatuses(m, (token) => post('time_estimate', { duration: '1h' }, token), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 200, developer: 200, admin: 200,
      })
      await expectStatuses(m, (token) => post('add_spent_time', { duration: '1m' }, token), { guest: 403, reporter: 201 })
      await expectStatuses(m, (token) => t.api('GET', `${path(issue)}/time_stats`, { token }), { anonymous: 404, nonMember: 404, guest: 200 })
    })
  })

  describe('subscriptions', () => {
    it('subscribes and unsubscribes, 304 when already so; participants are subscribed until they leave', async () => {
      const issue = await makeIssue(t, m.project, m.users.owner, { title: 'Watched' })
      const act = (action: string, token: string | null) => t.api('POST', `${path(issue)}/${action}`, { token })
      const subscribed = await act('subscribe', m.tokens.reporter)
      assert.equal(subscribed.status, 201)
      assert.equal(subscribed.body.subscribed, true)
      assert.equal(subscribed.body.id, issue.id)
      assert.equal((await act('subscribe', m.tokens.reporter)).status, 304)
      const unsubscribed = await act('unsubscribe', m.tokens.reporter)
      assert.equal(unsubscribed.status, 201)
      assert.equal(unsubscribed.body.subscribed, false)
      assert.equal((await act('unsubscribe', m.tokens.reporter)).status, 304)
      // The author participates: subscribed without asking, until unsubscribing.
      assert.equal((await act('subscribe', m.tokens.owner)).status, 304)
      assert.equal((await act('unsubscribe', m.tokens.owner)).body.subscribed, false)
      assert.equal((await t.api('GET', path(issue), { token: m.tokens.owner })).body.subscribed, false)
      assert.equal((await act('subscribe', m.tokens.owner)).body.subscribed, true)
      await expectStatuses(m, (token) => act('subscribe', token), { anonymous: 401, nonMember: 404, guest: 201 })
      assert.equal((await t.api('POST', `/projects/${m.project.id}/issues/9999/subscribe`, { token: m.tokens.owner })).status, 404)
    })
  })

  describe('in a group the caller owns', () => {
    it('moves issues between the projects of a group through group ownership', async () => {
      const owner = await makeUser(t)
      const group = await makeGroup(t, {}, owner)
      const from = await makeProject(t, owner, { namespace: group })
      const to = await makeProject(t, owner, { namespace: group })
      const made = await makeIssue(t, from, owner, { title: 'Across' })
      const res = await t.api('POST', `/projects/${from.id}/issues/${made.iid}/move`, { token: owner.token, body: { to_project_id: to.id } })
      assert.equal(res.status, 201)
      assert.equal(res.body.iid, 1)
    })
  })
})
