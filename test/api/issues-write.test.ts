// One issue (spec: Issue; the original's single-issue endpoints): GET in the full form, create,
// update (every field, close and reopen, who may change what), delete — with the rows each write
// leaves (labels, assignees, system notes, events, the maintained counts) and its errors.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { setProjectColumns } from '../helpers/projects.js'
import { insertMilestone, issueCountsOf, issueEventActions, makeIssue, systemNoteBodies } from '../helpers/issues.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import type { IssueRow, NamespaceRow, ProjectRow } from '../../src/db/schema.js'

const BASIC_FIELDS = [
  'assignee', 'assignees', 'author', 'closed_at', 'closed_by', 'confidential', 'created_at', 'description', 'discussion_locked',
  'downvotes', 'due_date', 'id', 'iid', 'labels', 'milestone', 'project_id', 'state', 'time_stats', 'title', 'updated_at',
  'upvotes', 'user_notes_count', 'web_url',
]
const SINGLE_FIELDS = [...BASIC_FIELDS, '_links', 'subscribed'].sort()
const USER_FIELDS = ['avatar_url', 'id', 'name', 'state', 'username', 'web_url']
const MILESTONE_FIELDS = ['created_at', 'description', 'due_date', 'id', 'iid', 'project_id', 'start_date', 'state', 'title', 'updated_at', 'web_url']
const keysOf = (value: object) => Object.keys(value).sort()

describe('One issue', () => {
  let t: TestApp
  let m: Matrix
  let path: (issue: IssueRow, project?: ProjectRow) => string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    path = (issue, project = m.project) => `/projects/${project.id}/issues/${issue.iid}`
  })
  after(async () => { await t.close() })

  describe('GET /projects/:id/issues/:issue_iid', () => {
    it('answers the full form with its links and whether the caller is subscribed', async () => {
      const milestone = await insertMilestone(t, { projectId: m.project.id }, 'Sprint 1')
      const made = await makeIssue(t, m.project, m.users.owner, {
        title: 'Full form', description: 'Every field', labels: ['b', 'a'], milestoneId: milestone.id,
        assigneeIds: [m.users.developer.user.id], dueDate: '2030-01-31',
      })
      const res = await t.api('GET', path(made), { token: m.tokens.reporter })
      assert.equal(res.status, 200)
      assert.deepEqual(keysOf(res.body), SINGLE_FIELDS)
      const body = res.body
      assert.equal(body.id, made.id)
      assert.equal(body.iid, made.iid)
      assert.equal(body.project_id, m.project.id)
      assert.equal(body.title, 'Full form')
      assert.equal(body.description, 'Every field')
      assert.equal(body.state, 'opened')
      assert.deepEqual(body.labels, ['a', 'b'])
      assert.deepEqual(keysOf(body.milestone), MILESTONE_FIELDS)
      assert.equal(body.milestone.title, 'Sprint 1')
      assert.deepEqual(keysOf(body.author), USER_FIELDS)
      assert.equal(body.author.id, m.users.owner.user.id)
      assert.deepEqual(body.assignees.map((user: { id: number }) => user.id), [m.users.developer.user.id])
      assert.deepEqual(body.assignee, body.assignees[0])
      assert.equal(body.closed_at, null)
      assert.equal(body.closed_by, null)
      assert.equal(body.due_date, '2030-01-31')
      assert.equal(body.confidential, false)
      assert.equal(body.discussion_locked, false)
      assert.equal(body.user_notes_count, 0)
      assert.equal(body.upvotes, 0)
      assert.equal(body.downvotes, 0)
      assert.deepEqual(body.time_stats, { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null })
      assert.equal(body.web_url, `http://ingot.test/${m.group.full_path}/${m.project.path}/issues/${made.iid}`)
      const api = `http://ingot.test/api/v4/projects/${m.project.id}`
      assert.deepEqual(body._links, {
        self: `${api}/issues/${made.iid}`, notes: `${api}/issues/${made.iid}/notes`, award_emoji: `${api}/issues/${made.iid}/award_emoji`, project: api,
      })
      assert.match(body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      // The reader is no participant; its author and assignee are.
      assert.equal(body.subscribed, false)
      assert.equal((await t.api('GET', path(made), { token: m.tokens.owner })).body.subscribed, true)
      assert.equal((await t.api('GET', path(made), { token: m.tokens.developer })).body.subscribed, true)
    })

    it('is 404 for what the caller may not see, and readable anonymously on public projects', async () => {
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'Private' })
      await expectStatuses(m, (token) => t.api('GET', path(made), { token }), {
        anonymous: 404, nonMember: 404, guest: 200, reporter: 200, admin: 200, external: 404,
      })
      assert.deepEqual((await t.api('GET', path(made), { token: m.tokens.nonMember })).body, { message: '404 Project Not Found' })
      const unknown = await t.api('GET', `/projects/${m.project.id}/issues/9999`, { token: m.tokens.owner })
      assert.equal(unknown.status, 404)
      assert.deepEqual(unknown.body, { message: '404 Issue Not Found' })
      assert.equal((await t.api('GET', `/projects/${m.project.id}/issues/99999999999`, { token: m.tokens.owner })).status, 404)
      assert.equal((await t.api('GET', `/projects/${m.project.id}/issues/abc`, { token: m.tokens.owner })).status, 400)
      const open = await makeProject(t, m.users.owner, { visibility: 'public' })
      const openIssue = await makeIssue(t, open, m.users.owner, { title: 'Public' })
      const anonymous = await t.api('GET', path(openIssue, open), { token: null })
      assert.equal(anonymous.status, 200)
      assert.equal(anonymous.body.subscribed, false)
    })

    it('shows a confidential issue to its author, its assignees, Reporters and admins only', async () => {
      const outsider = await makeUser(t)
      const open = await makeProject(t, m.users.owner, { visibility: 'public' })
      await makeMember(t, { type: 'project', id: open.id }, m.users.guest, 10)
      await makeMember(t, { type: 'project', id: open.id }, m.users.reporter, 20)
      const secret = await makeIssue(t, open, m.users.owner, { title: 'Secret', confidential: true, assigneeIds: [outsider.user.id] })
      const status = async (token: string | null) => (await t.api('GET', path(secret, open), { token })).status
      assert.equal(await status(m.tokens.owner), 200)
      assert.equal(await status(outsider.token), 200)
      assert.equal(await status(m.tokens.reporter), 200)
      assert.equal(await status(t.root.token), 200)
      assert.equal(await status(m.tokens.guest), 404)
      assert.equal(await status(m.tokens.nonMember), 404)
      assert.equal(await status(null), 404)
      assert.deepEqual((await t.api('GET', path(secret, open), { token: m.tokens.guest })).body, { message: '404 Issue Not Found' })
    })
  })

  describe('POST /projects/:id/issues', () => {
    const create = (body: Record<string, unknown>, token: string | null = m.tokens.developer) =>
      t.api('POST', `/projects/${m.project.id}/issues`, { token, body })

    it('creates an issue with the next number, its labels (new ones made), assignee, milestone and event', async () => {
      const milestone = await insertMilestone(t, { projectId: m.project.id }, 'Create sprint')
      const before = await issueCountsOf(t, m.project.id)
      const res = await create({
        title: 'Created', description: 'Body', labels: 'fresh-label, second', assignee_ids: [m.users.reporter.user.id],
        milestone_id: milestone.id, due_date: '2031-02-03', confidential: true, discussion_locked: true,
      })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(keysOf(res.body), SINGLE_FIELDS)
      assert.equal(res.body.title, 'Created')
      assert.equal(res.body.author.id, m.users.developer.user.id)
      assert.deepEqual(res.body.labels, ['fresh-label', 'second'])
      assert.deepEqual(res.body.assignees.map((user: { id: number }) => user.id), [m.users.reporter.user.id])
      assert.equal(res.body.milestone.id, milestone.id)
      assert.equal(res.body.due_date, '2031-02-03')
      assert.equal(res.body.confidential, true)
      assert.equal(res.body.discussion_locked, true)
      assert.equal(res.body.subscribed, true)
      const labels = await t.ctx.db.selectFrom('labels').selectAll().where('project_id', '=', m.project.id).where('title', '=', 'fresh-label').execute()
      assert.equal(labels.length, 1)
      assert.equal(labels[0]?.color, '#428BCA')
      const next = await create({ title: 'Next' })
      assert.equal(next.body.iid, res.body.iid + 1)
      assert.deepEqual(next.body.labels, [])
      assert.equal(next.body.description, null)
      assert.deepEqual(await issueEventActions(t, res.body.id), ['created'])
      const event = await t.ctx.db.selectFrom('events').selectAll().where('target_id', '=', res.body.id).executeTakeFirstOrThrow()
      assert.deepEqual(
        { type: event.target_type, iid: event.target_iid, title: event.target_title, author: event.author_id, project: event.project_id },
        { type: 'Issue', iid: res.body.iid, title: 'Created', author: m.users.developer.user.id, project: m.project.id },
      )
      assert.deepEqual(await systemNoteBodies(t, res.body.id), [])
      const after = await issueCountsOf(t, m.project.id)
      assert.equal(after.open_issues_count, before.open_issues_count! + 2)
      assert.equal(after['opened/1'], (before['opened/1'] ?? 0) + 1)
    })

    it('takes form parameters, the deprecated assignee_id and labels as an array', async () => {
      const form = await t.api('POST', `/projects/${m.project.id}/issues`, {
        token: m.tokens.developer, form: `title=From+a+form&assignee_id=${m.users.developer.user.id}&labels[]=x&labels[]=y&confidential=true`,
      })
      assert.equal(form.status, 201, form.text)
      assert.equal(form.body.assignee.id, m.users.developer.user.id)
      assert.deepEqual(form.body.labels, ['x', 'y'])
      assert.equal(form.body.confidential, true)
    })

    it("keeps one assignee, as the original's Community Edition, and only users who may read the issues", async () => {
      const res = await create({ title: 'Two assignees', assignee_ids: [m.users.nonMember.user.id, m.users.guest.user.id, m.users.developer.user.id] })
      assert.deepEqual(res.body.assignees.map((user: { id: number }) => user.id), [m.users.guest.user.id])
      const nobody = await create({ title: 'No one', assignee_ids: [m.users.nonMember.user.id, 999999] })
      assert.deepEqual(nobody.body.assignees, [])
      assert.equal(nobody.body.assignee, null)
    })

    it('ignores what a Guest may not set, and backdating by anyone but admins and owners', async () => {
      const milestone = await insertMilestone(t, { projectId: m.project.id }, 'Guest sprint')
      const res = await create({
        title: 'From a guest', labels: 'guest-label', assignee_ids: [m.users.guest.user.id], milestone_id: milestone.id,
        due_date: '2030-01-01', discussion_locked: true, confidential: true, created_at: '2020-01-01T00:00:00Z',
      }, m.tokens.guest)
      assert.equal(res.status, 201)
      assert.deepEqual(res.body.labels, [])
      assert.deepEqual(res.body.assignees, [])
      assert.equal(res.body.milestone, null)
      assert.equal(res.body.due_date, null)
      assert.equal(res.body.discussion_locked, false)
      assert.equal(res.body.confidential, true)
      assert.notEqual(res.body.created_at, '2020-01-01T00:00:00.000Z')
      assert.equal((await t.ctx.db.selectFrom('labels').select('id').where('title', '=', 'guest-label').execute()).length, 0)
      const developers = await create({ title: 'Backdated?', created_at: '2020-01-01T00:00:00Z' })
      assert.notEqual(developers.body.created_at, '2020-01-01T00:00:00.000Z')
      const owners = await create({ title: 'Backdated', created_at: '2020-01-01T00:00:00Z' }, m.tokens.owner)
      assert.equal(owners.body.created_at, '2020-01-01T00:00:00.000Z')
      assert.equal(owners.body.updated_at, '2020-01-01T00:00:00.000Z')
      const admins = await create({ title: 'Backdated by an admin', created_at: '2019-05-06T07:08:09.123Z' }, t.root.token)
      assert.equal(admins.body.created_at, '2019-05-06T07:08:09.123Z')
    })

    it("takes the milestones of the project and of its groups, and no other's", async () => {
      const groupMilestone = await insertMilestone(t, { groupId: m.group.id }, 'Group sprint')
      const elsewhere = await makeProject(t, m.users.owner)
      const foreign = await insertMilestone(t, { projectId: elsewhere.id }, 'Foreign')
      const ofGroup = await create({ title: 'Group milestone', milestone_id: groupMilestone.id })
      assert.equal(ofGroup.body.milestone.id, groupMilestone.id)
      assert.equal(ofGroup.body.milestone.group_id, m.group.id)
      assert.equal(ofGroup.body.milestone.project_id, undefined)
      assert.equal((await create({ title: 'Foreign milestone', milestone_id: foreign.id })).body.milestone, null)
      assert.equal((await create({ title: 'Milestone 0', milestone_id: 0 })).body.milestone, null)
    })

    it('checks who may create', async () => {
      await expectStatuses(m, (token) => create({ title: 'Permissions' }, token), {
        anonymous: 401, nonMember: 404, guest: 201, reporter: 201, developer: 201, admin: 201, external: 404,
      })
      const open = await makeProject(t, m.users.owner, { visibility: 'public' })
      const byOutsider = await t.api('POST', `/projects/${open.id}/issues`, { token: m.tokens.nonMember, body: { title: 'Outsider' } })
      assert.equal(byOutsider.status, 201)
      const off = await makeProject(t, m.users.owner, { visibility: 'public' })
      await setProjectColumns(t, off.id, { issues_enabled: 0 })
      const disabled = await t.api('POST', `/projects/${off.id}/issues`, { token: m.tokens.owner, body: { title: 'Off' } })
      assert.equal(disabled.status, 403)
      assert.deepEqual(disabled.body, { message: '403 Forbidden' })
    })

    it('rejects bad input with 400', async () => {
      const missing = await create({ description: 'no title' })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { error: 'title is missing' })
      const blank = await create({ title: '   ' })
      assert.equal(blank.status, 400)
      assert.deepEqual(blank.body, { message: { title: ["can't be blank"] } })
      const long = await create({ title: 'x'.repeat(256) })
      assert.deepEqual(long.body, { message: { title: ['is too long (maximum is 255 characters)'] } })
      assert.equal((await create({ title: 'x'.repeat(255) })).status, 201)
      for (const [key, value] of [
        ['due_date', '2030-02-30'], ['due_date', 'tomorrow'], ['confidential', 'perhaps'], ['assignee_ids', ['me']],
        ['milestone_id', 'first'], ['created_at', 'long ago'], ['labels', { a: 1 }],
      ] as const) {
        const res = await create({ title: 'Bad', [key]: value })
        assert.equal(res.status, 400, `${key}=${JSON.stringify(value)}`)
        assert.match(String(res.body.error), new RegExp(`^${key}`), key)
      }
      const empty = await create({ title: 'Empty due date', due_date: '' })
      assert.equal(empty.status, 201)
      assert.equal(empty.body.due_date, null)
    })
  })

  describe('PUT /projects/:id/issues/:issue_iid', () => {
    const update = (issue: IssueRow, body: Record<string, unknown>, token: string | null = m.tokens.developer) =>
      t.api('PUT', path(issue), { token, body })

    it('changes every field, with a system note for each change and one updated event', async () => {
      const milestone = await insertMilestone(t, { projectId: m.project.id }, 'Update sprint')
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'Old title', description: 'Old', labels: ['keep', 'drop'] })
      const before = await t.api('GET', path(made), { token: m.tokens.owner })
      const res = await update(made, {
        title: 'New title', description: 'New', labels: 'keep,add', assignee_ids: [m.users.reporter.user.id], milestone_id: milestone.id,
        due_date: '2032-11-22', confidential: true, discussion_locked: true,
      })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), SINGLE_FIELDS)
      assert.equal(res.body.title, 'New title')
      assert.equal(res.body.description, 'New')
      assert.deepEqual(res.body.labels, ['add', 'keep'])
      assert.equal(res.body.assignee.id, m.users.reporter.user.id)
      assert.equal(res.body.milestone.id, milestone.id)
      assert.equal(res.body.due_date, '2032-11-22')
      assert.equal(res.body.confidential, true)
      assert.equal(res.body.discussion_locked, true)
      assert.ok(res.body.updated_at > before.body.updated_at)
      const labels = await t.ctx.db.selectFrom('labels').select(['id', 'title']).where('project_id', '=', m.project.id).execute()
      const ref = (title: string) => `~${labels.find((label) => label.title === title)?.id}`
      assert.deepEqual(await systemNoteBodies(t, made.id), [
        'changed title from **{-Old-} title** to **{+New+} title**',
        'changed the description',
        `added ${ref('add')} and removed ${ref('drop')} labels`,
        'locked this issue',
        `changed milestone to %${milestone.iid}`,
        'changed due date to November 22, 2032',
        `assigned to @${m.users.reporter.user.username}`,
        'made the issue confidential',
      ])
      assert.deepEqual(await issueEventActions(t, made.id), ['created', 'updated'])
      const undo = await update(made, { milestone_id: 0, assignee_ids: [], due_date: null, confidential: false, discussion_locked: false, labels: '' })
      assert.equal(undo.status, 200)
      assert.equal(undo.body.milestone, null)
      assert.deepEqual(undo.body.assignees, [])
      assert.equal(undo.body.due_date, null)
      assert.deepEqual(undo.body.labels, [])
      const [labelNote, ...undoNotes] = (await systemNoteBodies(t, made.id)).slice(8)
      assert.ok([`removed ${ref('add')} ${ref('keep')} labels`, `removed ${ref('keep')} ${ref('add')} labels`].includes(labelNote ?? ''), labelNote)
      assert.deepEqual(undoNotes, [
        'unlocked this issue',
        'removed milestone',
        'removed due date',
        `unassigned @${m.users.reporter.user.username}`,
        'made the issue visible to everyone',
      ])
    })

    it('closes and reopens, with closed_at, closed_by, notes, events and counts', async () => {
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'To close' })
      const counts = await issueCountsOf(t, m.project.id)
      const closed = await update(made, { state_event: 'close' })
      assert.equal(closed.status, 200)
      assert.equal(closed.body.state, 'closed')
      assert.equal(closed.body.closed_by.id, m.users.developer.user.id)
      assert.deepEqual(keysOf(closed.body.closed_by), USER_FIELDS)
      assert.equal(closed.body.closed_at, closed.body.updated_at)
      const afterClose = await issueCountsOf(t, m.project.id)
      assert.equal(afterClose.open_issues_count, counts.open_issues_count! - 1)
      assert.equal(afterClose['closed/0'], (counts['closed/0'] ?? 0) + 1)
      const again = await update(made, { state_event: 'close' })
      assert.equal(again.status, 200)
      const reopened = await update(made, { state_event: 'reopen' })
      assert.equal(reopened.body.state, 'opened')
      assert.equal(reopened.body.closed_at, null)
      assert.equal(reopened.body.closed_by, null)
      assert.deepEqual(await issueCountsOf(t, m.project.id), counts)
      assert.deepEqual(await systemNoteBodies(t, made.id), ['closed', 'reopened'])
      assert.deepEqual(await issueEventActions(t, made.id), ['created', 'closed', 'reopened'])
      const both = await update(made, { state_event: 'close', title: 'Closed and renamed' })
      assert.equal(both.body.state, 'closed')
      assert.deepEqual(await issueEventActions(t, made.id), ['created', 'closed', 'reopened', 'closed', 'updated'])
    })

    it('writes nothing when nothing changes', async () => {
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'Same', labels: ['same'] })
      const res = await update(made, { title: 'Same', labels: 'same', state_event: 'reopen' })
      assert.equal(res.status, 200)
      assert.equal(res.body.updated_at, new Date(made.updated_at).toISOString())
      assert.deepEqual(await systemNoteBodies(t, made.id), [])
      assert.deepEqual(await issueEventActions(t, made.id), ['created'])
    })

    it('lets authors and assignees edit, Reporters and up edit anything, and ignores what a Guest may not set', async () => {
      const byGuest = await makeIssue(t, m.project, m.users.guest, { title: 'Guest issue' })
      const res = await update(byGuest, { title: 'Guest renamed', labels: 'nope', milestone_id: 1, assignee_ids: [m.users.guest.user.id] }, m.tokens.guest)
      assert.equal(res.status, 200)
      assert.equal(res.body.title, 'Guest renamed')
      assert.deepEqual(res.body.labels, [])
      assert.deepEqual(res.body.assignees, [])
      const assigned = await makeIssue(t, m.project, m.users.owner, { title: 'Assigned to the guest', assigneeIds: [m.users.guest.user.id] })
      assert.equal((await update(assigned, { description: 'by the assignee' }, m.tokens.guest)).status, 200)
      const others = await makeIssue(t, m.project, m.users.owner, { title: 'Not the guest' })
      await expectStatuses(m, (token) => update(others, { description: `x ${Math.random()}` }, token), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 200, developer: 200, maintainer: 200, owner: 200, admin: 200,
      })
      assert.deepEqual((await update(others, { title: 'No' }, m.tokens.guest)).body, { message: '403 Forbidden' })
    })

    it('honours updated_at from admins and owners only', async () => {
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'Dated' })
      const byOwner = await update(made, { title: 'Dated by the owner', updated_at: '2021-01-02T03:04:05Z' }, m.tokens.owner)
      assert.equal(byOwner.body.updated_at, '2021-01-02T03:04:05.000Z')
      const byDeveloper = await update(made, { title: 'Dated by a developer', updated_at: '2021-01-02T03:04:05Z' })
      assert.notEqual(byDeveloper.body.updated_at, '2021-01-02T03:04:05.000Z')
    })

    it('rejects bad input with 400 and unknown issues with 404', async () => {
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'Valid' })
      const none = await update(made, {})
      assert.equal(none.status, 400)
      assert.match(none.body.error, /^title, description, .* are missing, at least one parameter must be provided$/)
      assert.deepEqual((await update(made, { title: '' })).body, { message: { title: ["can't be blank"] } })
      for (const [key, value] of [['state_event', 'merge'], ['due_date', '2030-13-01'], ['discussion_locked', 'maybe'], ['updated_at', 'soon']] as const) {
        const res = await update(made, { [key]: value })
        assert.equal(res.status, 400, key)
      }
      const unknown = await t.api('PUT', `/projects/${m.project.id}/issues/9999`, { token: m.tokens.owner, body: { title: 'x' } })
      assert.deepEqual(unknown.body, { message: '404 Issue Not Found' })
    })
  })

  describe('archived projects', () => {
    it('are read-only: no new issues, edits or deletions, for admins too, while reads go on', async () => {
      const project = await makeProject(t, null)
      const issue = await makeIssue(t, project, null, { title: 'Before archiving' })
      await setProjectColumns(t, project.id, { archived: 1 })
      assert.equal((await t.api('POST', `/projects/${project.id}/issues`, { body: { title: 'New' } })).status, 403)
      assert.equal((await t.api('PUT', path(issue, project), { body: { title: 'Edited' } })).status, 403)
      assert.equal((await t.api('DELETE', path(issue, project))).status, 403)
      assert.equal((await t.api('GET', path(issue, project))).status, 200)
    })
  })

  describe('DELETE /projects/:id/issues/:issue_iid', () => {
    it("is for the project's owners and admins, and takes what hangs on the issue with it", async () => {
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'Doomed', labels: ['doomed'], closed: true })
      await t.api('POST', `${path(made)}/subscribe`, { token: m.tokens.reporter })
      const counts = await issueCountsOf(t, m.project.id)
      await expectStatuses(m, (token) => t.api('DELETE', path(made), { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 403,
      })
      const res = await t.api('DELETE', path(made), { token: m.tokens.owner })
      assert.equal(res.status, 204)
      assert.equal(res.text, '')
      assert.equal((await t.api('GET', path(made), { token: m.tokens.owner })).status, 404)
      assert.equal((await t.api('DELETE', path(made), { token: m.tokens.owner })).status, 404)
      const after = await issueCountsOf(t, m.project.id)
      assert.equal(after['closed/0'] ?? 0, (counts['closed/0'] ?? 0) - 1)
      assert.equal(after.open_issues_count, counts.open_issues_count)
      for (const [table, column, type] of [['notes', 'noteable_id', 'noteable_type'], ['label_links', 'target_id', 'target_type'], ['subscriptions', 'subscribable_id', 'subscribable_type']] as const) {
        const rows = await t.ctx.db.selectFrom(table).select(column).where(column, '=', made.id).where(type, '=', 'Issue').execute()
        assert.deepEqual(rows, [], table)
      }
      const opened = await makeIssue(t, m.project, m.users.owner, { title: 'Open doomed' })
      const beforeOpen = await issueCountsOf(t, m.project.id)
      assert.equal((await t.api('DELETE', path(opened), { token: t.root.token })).status, 204)
      assert.equal((await issueCountsOf(t, m.project.id)).open_issues_count, beforeOpen.open_issues_count! - 1)
    })

    it('answers 412 when the issue changed after If-Unmodified-Since', async () => {
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'Guarded' })
      const stale = await t.api('DELETE', path(made), { token: m.tokens.owner, headers: { 'if-unmodified-since': 'Thu, 01 Jan 2015 00:00:00 GMT' } })
      assert.equal(stale.status, 412)
      const fresh = await t.api('DELETE', path(made), { token: m.tokens.owner, headers: { 'if-unmodified-since': new Date(Date.now() + 60_000).toUTCString() } })
      assert.equal(fresh.status, 204)
    })
  })

  describe('malformed input', () => {
    it('is a 4xx on every issue route, never a 500', async () => {
      const made = await makeIssue(t, m.project, m.users.owner, { title: 'Target of malformed input' })
      const issuePath = path(made)
      const routes: [string, string, unknown?][] = [
        ['GET', `/projects/${m.project.id}/issues`], ['GET', `/groups/${m.group.id}/issues`], ['GET', '/issues'],
        ['GET', issuePath], ['PUT', issuePath, { title: 'x' }], ['DELETE', issuePath],
        ['POST', `/projects/${m.project.id}/issues`, { title: 'x' }], ['POST', `${issuePath}/move`, { to_project_id: m.project.id }],
        ['POST', `${issuePath}/time_estimate`, { duration: '1h' }], ['POST', `${issuePath}/add_spent_time`, { duration: '1h' }],
        ['GET', `${issuePath}/time_stats`], ['POST', `${issuePath}/subscribe`],
      ]
      const statusOf = async (method: string, url: string, body?: unknown) => {
        const res = await t.api(method, url, { token: m.tokens.owner, ...(body === undefined ? {} : { body }) })
        assert.ok(res.status < 500, `${method} ${url} ${JSON.stringify(body)}: ${res.status} ${res.text}`)
        return res.status
      }
      for (const big of ['2147483648', '99999999999999999999', '1e309']) {
        for (const [method, url, body] of routes) {
          await statusOf(method, url.replace(`/projects/${m.project.id}/`, `/projects/${big}/`), body)
          await statusOf(method, url.replace(`/issues/${made.iid}`, `/issues/${big}`), body)
        }
        for (const field of ['assignee_ids', 'assignee_id', 'milestone_id']) {
          const value = field === 'assignee_ids' ? [Number(big)] : Number(big)
          await statusOf('POST', `/projects/${m.project.id}/issues`, { title: 'Big', [field]: value })
          await statusOf('PUT', issuePath, { [field]: value })
        }
        await statusOf('POST', `${issuePath}/move`, { to_project_id: Number(big) })
        for (const param of ['author_id', 'assignee_id', 'iids[]', 'page', 'created_after']) {
          await statusOf('GET', `/projects/${m.project.id}/issues?${param}=${big}`)
        }
      }
      for (const [method, url, body] of routes) {
        if (body !== undefined) await statusOf(method, url, Object.fromEntries(Object.keys(body as object).map((key) => [key, 'a\u0000b'])))
      }
      await statusOf('GET', `/projects/${m.project.id}/issues?search=${encodeURIComponent('"')}&labels=${encodeURIComponent('a,,"')}`)
      await statusOf('GET', `/projects/${m.project.id}/issues?search=${encodeURIComponent('" OR *')}`)
      await statusOf('GET', `/projects/${m.project.id}/issues?created_after=999999-01-01`)
    })
  })

  describe('a personal project', () => {
    let owner: TestUser
    let personal: ProjectRow
    let group: NamespaceRow

    before(async () => {
      owner = await makeUser(t)
      group = await makeGroup(t, {}, owner)
      personal = await makeProject(t, owner)
    })

    it("lets its owner delete and backdate issues, as the owner of a group's project", async () => {
      const made = await t.api('POST', `/projects/${personal.id}/issues`, { token: owner.token, body: { title: 'Mine', created_at: '2018-01-01' } })
      assert.equal(made.body.created_at, '2018-01-01T00:00:00.000Z')
      assert.equal((await t.api('DELETE', `/projects/${personal.id}/issues/${made.body.iid}`, { token: owner.token })).status, 204)
      const inGroup = await makeProject(t, owner, { namespace: group })
      const grouped = await t.api('POST', `/projects/${inGroup.id}/issues`, { token: owner.token, body: { title: 'Grouped' } })
      assert.equal((await t.api('DELETE', `/projects/${inGroup.id}/issues/${grouped.body.iid}`, { token: owner.token })).status, 204)
    })
  })
})
