// The issue lists (spec: Issues): GET /issues, /groups/:id/issues and /projects/:id/issues — who
// sees which issues (confidential ones only their author, assignees and Reporters and up; anonymous
// callers the public ones), every filter, the orders, exact totals, pagination, a fixed number of
// queries per page, and bad input.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { setProjectColumns } from '../helpers/projects.js'
import { awardIssue, insertMilestone, makeIssue, projectSubjectOf, setIssueTimes } from '../helpers/issues.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import type { IssueRow, MilestoneRow, NamespaceRow, ProjectRow } from '../../src/db/schema.js'
import { GUEST, REPORTER } from '../../src/policies/access-levels.js'
import { findIssuePage } from '../../src/finders/issues-finder.js'

const BASIC_FIELDS = [
  'assignee', 'assignees', 'author', 'closed_at', 'closed_by', 'confidential', 'created_at', 'description', 'discussion_locked',
  'downvotes', 'due_date', 'id', 'iid', 'labels', 'milestone', 'project_id', 'state', 'time_stats', 'title', 'updated_at',
  'upvotes', 'user_notes_count', 'web_url',
].sort()
const keysOf = (value: object) => Object.keys(value).sort()
const at = (day: number) => Date.parse(`2024-03-${String(day).padStart(2, '0')}T10:00:00.000Z`)

describe('Issue lists', () => {
  let t: TestApp
  let owner: TestUser
  let guest: TestUser
  let reporter: TestUser
  let carol: TestUser
  let bob: TestUser
  let group: NamespaceRow
  let subgroup: NamespaceRow
  let project: ProjectRow
  let hidden: ProjectRow
  let noIssues: ProjectRow
  let milestone: MilestoneRow
  // crash: bug+ui, milestone v1, carol assigned; slow: bug, closed; dark: by the guest; secret:
  // confidential, carol assigned; guestSecret: confidential, by the guest; hiddenIssue: in the
  // private project of the subgroup.
  const issue = {} as Record<'crash' | 'slow' | 'dark' | 'secret' | 'guestSecret' | 'hiddenIssue', IssueRow>
  const iidsOf = (body: { iid: number; project_id: number }[]) => body.map((item) => item.iid)
  const named = (...names: (keyof typeof issue)[]) => names.map((name) => issue[name].iid)

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    guest = await makeUser(t)
    reporter = await makeUser(t)
    carol = await makeUser(t)
    bob = await makeUser(t)
    group = await makeGroup(t, { visibility: 'public' }, owner)
    subgroup = await makeGroup(t, { visibility: 'public', parent: group }, owner)
    project = await makeProject(t, owner, { namespace: group, visibility: 'public' })
    hidden = await makeProject(t, owner, { namespace: subgroup, visibility: 'private' })
    noIssues = await makeProject(t, owner, { namespace: group, visibility: 'public' })
    await setProjectColumns(t, noIssues.id, { issues_enabled: 0 })
    await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    milestone = await insertMilestone(t, { projectId: project.id }, 'v1')

    issue.crash = await makeIssue(t, project, owner, {
      title: 'Crash on startup', description: 'The parser fails', labels: ['bug', 'ui'], milestoneId: milestone.id, assigneeIds: [carol.user.id],
    })
    issue.slow = await makeIssue(t, project, owner, { title: 'Slow rendering', labels: ['bug'], closed: true })
    issue.dark = await makeIssue(t, project, guest, { title: 'Add dark mode', description: 'Night owls ask for it' })
    issue.secret = await makeIssue(t, project, owner, { title: 'Secret plan', confidential: true, assigneeIds: [carol.user.id] })
    issue.guestSecret = await makeIssue(t, project, guest, { title: 'Guest secret', confidential: true })
    issue.hiddenIssue = await makeIssue(t, hidden, owner, { title: 'Hidden crash' })
    // Created on days 1..5 in that order; updated in another order (dark first, crash last).
    const updated = { crash: 9, slow: 6, dark: 5, secret: 7, guestSecret: 8, hiddenIssue: 4 }
    for (const [index, name] of (['crash', 'slow', 'dark', 'secret', 'guestSecret', 'hiddenIssue'] as const).entries()) {
      await setIssueTimes(t, issue[name].id, { created_at: at(index + 1), updated_at: at(updated[name]) })
    }
    await awardIssue(t, issue.crash.id, owner.user.id, 'thumbsup')
    await awardIssue(t, issue.slow.id, owner.user.id, 'star')
    await awardIssue(t, issue.dark.id, bob.user.id, 'thumbsup')
  })
  after(async () => { await t.close() })

  const projectList = (token: string | null, query: Record<string, string | number | readonly (string | number)[]> = {}) =>
    t.api('GET', `/projects/${project.id}/issues`, { token, query: { per_page: 100, ...query } })

  describe('GET /projects/:id/issues', () => {
    it('lists the issues in the basic form, newest first, with exact totals', async () => {
      const res = await projectList(owner.token)
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-type'], 'application/json')
      assert.deepEqual(iidsOf(res.body), named('guestSecret', 'secret', 'dark', 'slow', 'crash'))
      assert.equal(res.headers['x-total'], '5')
      for (const item of res.body) assert.deepEqual(keysOf(item), BASIC_FIELDS)
      const crash = res.body.find((item: { iid: number }) => item.iid === issue.crash.iid)
      assert.deepEqual(crash.labels, ['bug', 'ui'])
      assert.equal(crash.milestone.title, 'v1')
      assert.equal(crash.assignee.username, carol.user.username)
      assert.deepEqual(crash.assignees.map((user: { id: number }) => user.id), [carol.user.id])
      assert.equal(crash.web_url, `http://ingot.test/${group.full_path}/${project.path}/issues/${issue.crash.iid}`)
      assert.equal(crash.created_at, new Date(at(1)).toISOString())
    })

    it('shows confidential issues to their author, assignees, Reporters and admins only', async () => {
      const expectations: [string, TestUser | null, (keyof typeof issue)[]][] = [
        ['reporter', reporter, ['guestSecret', 'secret', 'dark', 'slow', 'crash']],
        ['admin', null, ['guestSecret', 'secret', 'dark', 'slow', 'crash']],
        ['guest (author of one)', guest, ['guestSecret', 'dark', 'slow', 'crash']],
        ['assignee (not a member)', carol, ['secret', 'dark', 'slow', 'crash']],
        ['non-member', bob, ['dark', 'slow', 'crash']],
      ]
      for (const [who, user, names] of expectations) {
        const res = await projectList(user?.token ?? t.root.token)
        assert.deepEqual(iidsOf(res.body), named(...names), who)
        assert.equal(res.headers['x-total'], String(names.length), who)
        const closed = await projectList(user?.token ?? t.root.token, { state: 'closed' })
        assert.equal(closed.headers['x-total'], '1', who)
        const opened = await projectList(user?.token ?? t.root.token, { state: 'opened' })
        assert.equal(opened.headers['x-total'], String(names.length - 1), who)
      }
    })

    it('shows anonymous callers the public issues, hides private projects and answers an empty list while issues are off', async () => {
      const anonymous = await projectList(null)
      assert.equal(anonymous.status, 200)
      assert.deepEqual(iidsOf(anonymous.body), named('dark', 'slow', 'crash'))
      assert.equal(anonymous.headers['x-total'], '3')
      assert.equal((await projectList(null, { labels: 'bug' })).headers['x-total'], '2')
      assert.equal((await t.api('GET', `/projects/${hidden.id}/issues`, { token: null })).status, 404)
      const privateList = await t.api('GET', `/projects/${hidden.id}/issues`, { token: bob.token })
      assert.equal(privateList.status, 404)
      assert.deepEqual(privateList.body, { message: '404 Project Not Found' })
      const off = await t.api('GET', `/projects/${noIssues.id}/issues`, { token: owner.token })
      assert.equal(off.status, 200)
      assert.deepEqual(off.body, [])
      assert.equal(off.headers['x-total'], '0')
      const byPath = await t.api('GET', `/projects/${encodeURIComponent(`${group.full_path}/${project.path}`)}/issues`, { token: bob.token })
      assert.equal(byPath.headers['x-total'], '3')
    })

    it('filters by state', async () => {
      assert.deepEqual(iidsOf((await projectList(owner.token, { state: 'closed' })).body), named('slow'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { state: 'opened' })).body), named('guestSecret', 'secret', 'dark', 'crash'))
      assert.equal((await projectList(owner.token, { state: 'all' })).body.length, 5)
    })

    it('filters by labels: all of them, none, any', async () => {
      const cases: [string, (keyof typeof issue)[]][] = [
        ['bug', ['slow', 'crash']],
        ['bug,ui', ['crash']],
        ['ui, bug', ['crash']],
        ['No Label', ['guestSecret', 'secret', 'dark']],
        ['None', ['guestSecret', 'secret', 'dark']],
        ['none', ['guestSecret', 'secret', 'dark']],
        ['Any', ['slow', 'crash']],
        ['unknown', []],
        ['bug,unknown', []],
      ]
      for (const [labels, names] of cases) {
        const res = await projectList(owner.token, { labels })
        assert.deepEqual(iidsOf(res.body), named(...names), labels)
        assert.equal(res.headers['x-total'], String(names.length), labels)
      }
      // The spec's spelling, `+` for the space.
      const plus = await t.api('GET', `/projects/${project.id}/issues?labels=No+Label`, { token: owner.token })
      assert.deepEqual(iidsOf(plus.body), named('guestSecret', 'secret', 'dark'))
      // Non-members counting a label filter see the same issues as unfiltered, less confidential ones.
      assert.equal((await projectList(bob.token, { labels: 'bug' })).headers['x-total'], '2')
    })

    it('finds the same issues whether a filter is walked along the order or collected and sorted', async () => {
      // Frequent matches on small pages are found by walking the order's index, others by collecting them all.
      const dave = await makeUser(t)
      const other = await makeProject(t, dave, { visibility: 'private' })
      for (let n = 1; n <= 7; n += 1) {
        const made = await makeIssue(t, other, dave, { title: `Common item ${n}`, labels: n % 4 === 0 ? ['rare'] : ['common'], closed: n % 3 === 0 })
        await setIssueTimes(t, made.id, { created_at: at(n), updated_at: at(20 - n) })
      }
      const list = (query: Record<string, string | number>) => t.api('GET', `/projects/${other.id}/issues`, { token: dave.token, query })
      const queries: Record<string, string>[] = [{ labels: 'common' }, { search: 'common' }, { search: 'item 5' }, { labels: 'common', state: 'opened' }, { labels: 'rare' }]
      const orders: Record<string, string>[] = [{}, { sort: 'asc' }, { order_by: 'updated_at' }]
      for (const query of queries) {
        for (const order of orders) {
          const whole = iidsOf((await list({ ...query, ...order, per_page: 100 })).body)
          const paged: number[] = []
          for (let page = 1; page <= whole.length; page += 1) {
            const res = await list({ ...query, ...order, per_page: 1, page })
            assert.equal(res.headers['x-total'], String(whole.length), JSON.stringify(query))
            paged.push(...iidsOf(res.body))
          }
          assert.deepEqual(paged, whole, JSON.stringify({ ...query, ...order }))
        }
      }
      assert.equal((await list({ labels: 'common' })).headers['x-total'], '6')
      assert.equal((await list({ search: 'common' })).headers['x-total'], '7')
    })

    it('filters by milestone: a title, None, Any', async () => {
      assert.deepEqual(iidsOf((await projectList(owner.token, { milestone: 'v1' })).body), named('crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { milestone: 'None' })).body), named('guestSecret', 'secret', 'dark', 'slow'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { milestone: 'No Milestone' })).body), named('guestSecret', 'secret', 'dark', 'slow'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { milestone: 'Any' })).body), named('crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { milestone: 'v2' })).body), [])
    })

    it('filters by scope, author and assignee', async () => {
      assert.deepEqual(iidsOf((await projectList(guest.token, { scope: 'created_by_me' })).body), named('guestSecret', 'dark'))
      assert.deepEqual(iidsOf((await projectList(guest.token, { scope: 'created-by-me' })).body), named('guestSecret', 'dark'))
      assert.deepEqual(iidsOf((await projectList(carol.token, { scope: 'assigned_to_me' })).body), named('secret', 'crash'))
      assert.deepEqual(iidsOf((await projectList(carol.token, { scope: 'assigned-to-me' })).body), named('secret', 'crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { author_id: guest.user.id })).body), named('guestSecret', 'dark'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { author_id: guest.user.id, scope: 'created_by_me' })).body), [])
      assert.deepEqual(iidsOf((await projectList(owner.token, { assignee_id: carol.user.id })).body), named('secret', 'crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { assignee_id: 'None' })).body), named('guestSecret', 'dark', 'slow'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { assignee_id: 'none' })).body), named('guestSecret', 'dark', 'slow'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { assignee_id: 0 })).body), named('guestSecret', 'dark', 'slow'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { assignee_id: 'Any' })).body), named('secret', 'crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { author_id: 2147483648 })).body), [])
    })

    it("filters by the caller's reactions", async () => {
      assert.deepEqual(iidsOf((await projectList(owner.token, { my_reaction_emoji: 'thumbsup' })).body), named('crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { my_reaction_emoji: 'Any' })).body), named('slow', 'crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { my_reaction_emoji: 'None' })).body), named('guestSecret', 'secret', 'dark'))
      assert.deepEqual(iidsOf((await projectList(bob.token, { my_reaction_emoji: 'thumbsup' })).body), named('dark'))
      assert.deepEqual(iidsOf((await projectList(bob.token, { my_reaction_emoji: 'star' })).body), [])
    })

    it('filters by iids', async () => {
      const res = await t.api('GET', `/projects/${project.id}/issues?iids[]=${issue.crash.iid}&iids[]=${issue.dark.iid}&iids[]=999`, { token: owner.token })
      assert.deepEqual(iidsOf(res.body), named('dark', 'crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { iids: issue.slow.iid })).body), named('slow'))
    })

    it('searches titles and descriptions', async () => {
      const cases: [string, (keyof typeof issue)[]][] = [
        ['crash', ['crash']],
        ['CRASH startup', ['crash']],
        ['parser', ['crash']],
        ['rendering slow', ['slow']],
        ['night owls', ['dark']],
        // Every word must be in the title or every word in the description.
        ['crash parser', []],
        ['secret', ['guestSecret', 'secret']],
      ]
      for (const [search, names] of cases) {
        const res = await projectList(owner.token, { search })
        assert.deepEqual(iidsOf(res.body), named(...names), search)
        assert.equal(res.headers['x-total'], String(names.length), search)
      }
      assert.deepEqual(iidsOf((await projectList(bob.token, { search: 'secret' })).body), [])
    })

    it('filters by creation and update times, both bounds included', async () => {
      const iso = (day: number) => new Date(at(day)).toISOString()
      assert.deepEqual(iidsOf((await projectList(owner.token, { created_after: iso(2), created_before: iso(4) })).body), named('secret', 'dark', 'slow'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { created_after: iso(5) })).body), named('guestSecret'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { created_before: iso(1) })).body), named('crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { updated_after: iso(8) })).body), named('guestSecret', 'crash'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { updated_before: iso(6) })).body), named('dark', 'slow'))
      // Dates alone and other ISO 8601 forms are read as UTC.
      assert.deepEqual(iidsOf((await projectList(owner.token, { created_after: '2024-03-05' })).body), named('guestSecret'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { created_before: '2024-03-01T11:00:00+01:00' })).body), named('crash'))
      for (const name of ['created_after', 'created_before', 'updated_after', 'updated_before']) {
        const res = await projectList(owner.token, { [name]: 'yesterday' })
        assert.equal(res.status, 400, name)
        assert.deepEqual(res.body, { error: `${name} is invalid` })
      }
    })

    it('orders by creation or update time, either way', async () => {
      assert.deepEqual(iidsOf((await projectList(owner.token, { sort: 'asc' })).body), named('crash', 'slow', 'dark', 'secret', 'guestSecret'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { order_by: 'updated_at' })).body), named('crash', 'guestSecret', 'secret', 'slow', 'dark'))
      assert.deepEqual(iidsOf((await projectList(owner.token, { order_by: 'updated_at', sort: 'asc' })).body), named('dark', 'slow', 'secret', 'guestSecret', 'crash'))
    })

    it('paginates with every header', async () => {
      await expectPaginates({ t, path: `/projects/${project.id}/issues`, token: owner.token, total: 5 })
      await expectPaginates({ t, path: `/projects/${project.id}/issues?state=opened`, token: owner.token, total: 4 })
      await expectRejectsBadPagination(t, `/projects/${project.id}/issues`, owner.token)
      const beyond = await projectList(owner.token, { page: 9, per_page: 2 })
      assert.deepEqual(beyond.body, [])
      assert.equal(beyond.headers['x-total'], '5')
    })

    it('runs as many queries for a page of 5 as for a page of 2 (each with a milestone to show)', async () => {
      const queriesFor = async (perPage: number) => {
        const { queries, result } = await countQueries(t, () => projectList(owner.token, { per_page: perPage, sort: 'asc' }))
        assert.equal(result.body.length, perPage)
        return queries
      }
      const forFive = await queriesFor(5)
      assert.equal(forFive, await queriesFor(2))
      const { queries: filtered } = await countQueries(t, () => projectList(owner.token, { per_page: 5, labels: 'bug', search: 'r' }))
      assert.ok(filtered <= forFive + 3, `${filtered} queries`)
    })

    it('rejects invalid parameters with 400', async () => {
      for (const [key, value] of [
        ['state', 'merged'], ['order_by', 'title'], ['sort', 'up'], ['scope', 'mine'], ['assignee_id', 'someone'],
        ['author_id', 'me'], ['iids', 'one'], ['my_reaction_emoji', ''],
      ] as const) {
        const res = await projectList(owner.token, { [key]: value })
        assert.equal(res.status, 400, key)
        assert.match(res.body.error, new RegExp(`^${key}`), key)
      }
    })
  })

  describe('GET /groups/:id/issues', () => {
    const groupList = (token: string | null, query: Record<string, string | number> = {}) =>
      t.api('GET', `/groups/${group.id}/issues`, { token, query: { per_page: 100, ...query } })

    it("lists the issues of the group's projects and of its subgroups' projects", async () => {
      const res = await groupList(owner.token)
      assert.equal(res.status, 200)
      assert.deepEqual(res.body.map((item: { id: number }) => item.id),
        ['hiddenIssue', 'guestSecret', 'secret', 'dark', 'slow', 'crash'].map((name) => issue[name as keyof typeof issue].id))
      assert.equal(res.headers['x-total'], '6')
      for (const item of res.body) assert.deepEqual(keysOf(item), BASIC_FIELDS)
      const bobs = await groupList(bob.token)
      assert.deepEqual(iidsOf(bobs.body), named('dark', 'slow', 'crash'))
      assert.equal(bobs.headers['x-total'], '3')
      const guests = await groupList(guest.token, { state: 'opened' })
      assert.deepEqual(iidsOf(guests.body), named('guestSecret', 'dark', 'crash'))
      assert.equal(guests.headers['x-total'], '3')
      const carols = await groupList(carol.token)
      assert.equal(carols.headers['x-total'], '4')
      const sub = await t.api('GET', `/groups/${encodeURIComponent(subgroup.full_path)}/issues`, { token: owner.token })
      assert.deepEqual(sub.body.map((item: { id: number }) => item.id), [issue.hiddenIssue.id])
    })

    it('filters like the project list', async () => {
      assert.deepEqual((await groupList(owner.token, { search: 'crash' })).body.map((item: { id: number }) => item.id),
        [issue.hiddenIssue.id, issue.crash.id])
      const labelled = await groupList(owner.token, { labels: 'bug', state: 'opened' })
      assert.deepEqual(labelled.body.map((item: { id: number }) => item.id), [issue.crash.id])
      assert.equal(labelled.headers['x-total'], '1')
      assert.equal((await groupList(carol.token, { scope: 'assigned_to_me' })).headers['x-total'], '2')
      await expectPaginates({ t, path: `/groups/${group.id}/issues`, token: owner.token, total: 6 })
    })

    it('shows anonymous callers the public issues and hides groups the caller cannot see', async () => {
      const anonymous = await groupList(null)
      assert.deepEqual(iidsOf(anonymous.body), named('dark', 'slow', 'crash'))
      assert.equal(anonymous.headers['x-total'], '3')
      const privateGroup = await makeGroup(t, { visibility: 'private' }, owner)
      const res = await t.api('GET', `/groups/${privateGroup.id}/issues`, { token: bob.token })
      assert.equal(res.status, 404)
      assert.deepEqual(res.body, { message: '404 Group Not Found' })
    })
  })

  describe('the finder, for the issues of a milestone', () => {
    it('takes a milestone id on a project, a group or a set of projects', async () => {
      const order = { orderBy: 'created_at', sort: 'desc' } as const
      const pagination = { page: 1, per_page: 20 }
      const byProject = await findIssuePage(t.ctx.db, bob.actor, { kind: 'project', subject: await projectSubjectOf(t, project, bob.user.id) },
        { milestoneId: milestone.id }, order, pagination)
      assert.deepEqual(byProject, { items: [issue.crash.id], total: 1, page: 1, perPage: 20 })
      const byGroup = await findIssuePage(t.ctx.db, bob.actor, { kind: 'group', groupId: group.id }, { milestoneId: milestone.id, state: 'opened' }, order, pagination)
      assert.deepEqual(byGroup.items, [issue.crash.id])
      const byProjects = await findIssuePage(t.ctx.db, bob.actor, { kind: 'projects', projectIds: [project.id, hidden.id] }, {}, order, pagination)
      assert.deepEqual(byProjects.items, [issue.dark.id, issue.slow.id, issue.crash.id])
      assert.equal(byProjects.total, 3)
      const none = await findIssuePage(t.ctx.db, bob.actor, { kind: 'project', subject: await projectSubjectOf(t, project, bob.user.id) },
        { milestoneId: milestone.id + 1000 }, order, pagination)
      assert.equal(none.total, 0)
    })
  })

  describe('GET /issues', () => {
    it("lists the caller's own issues by default, and all they can see with scope=all", async () => {
      const own = await t.api('GET', '/issues', { token: guest.token })
      assert.equal(own.status, 200)
      assert.deepEqual(iidsOf(own.body), named('guestSecret', 'dark'))
      assert.equal(own.headers['x-total'], '2')
      const all = await t.api('GET', '/issues', { token: bob.token, query: { scope: 'all' } })
      assert.deepEqual(iidsOf(all.body), named('dark', 'slow', 'crash'))
      assert.equal(all.headers['x-total'], '3')
      const assigned = await t.api('GET', '/issues', { token: carol.token, query: { scope: 'assigned_to_me' } })
      assert.deepEqual(iidsOf(assigned.body), named('secret', 'crash'))
      const admins = await t.api('GET', '/issues', { query: { scope: 'all', per_page: 100 } })
      assert.ok(admins.body.some((item: { id: number }) => item.id === issue.hiddenIssue.id))
      assert.equal(admins.headers['x-total'], String(admins.body.length))
    })

    it('filters like the project list', async () => {
      const res = await t.api('GET', '/issues', { token: owner.token, query: { labels: 'bug', state: 'closed' } })
      assert.deepEqual(iidsOf(res.body), named('slow'))
      const searched = await t.api('GET', '/issues', { token: owner.token, query: { search: 'crash', iids: [issue.crash.iid] } })
      assert.deepEqual(searched.body.map((item: { id: number }) => item.id), [issue.hiddenIssue.id, issue.crash.id])
      await expectPaginates({ t, path: '/issues', token: owner.token, total: 4 })
    })

    it('needs a caller unless scope=all, which lists the public issues to anonymous callers', async () => {
      const res = await t.api('GET', '/issues', { token: null })
      assert.equal(res.status, 401)
      assert.deepEqual(res.body, { message: '401 Unauthorized' })
      assert.equal((await t.api('GET', '/issues', { token: null, query: { scope: 'assigned_to_me' } })).status, 401)
      const all = await t.api('GET', '/issues', { token: null, query: { scope: 'all' } })
      assert.equal(all.status, 200)
      assert.deepEqual(iidsOf(all.body), named('dark', 'slow', 'crash'))
      assert.equal(all.headers['x-total'], '3')
    })
  })
})
