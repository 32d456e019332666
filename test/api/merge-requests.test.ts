// Merge requests (spec: Merge request; endpoints: Merge requests): the three lists with every
// filter, exact totals and a fixed number of queries; one merge request in the single form; update
// (every parameter, who may change what, state changes, events and system notes); delete; time
// tracking; subscriptions.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { EXTERNAL_URL, buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import {
  awardEmoji, eventsOf, makeBranches, makeMergeRequest, makeMilestone, setMergeRequestColumns, systemNotesOf,
} from '../helpers/merge-requests.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import type { MergeRequestRow, MilestoneRow, NamespaceRow, ProjectRow } from '../../src/db/schema.js'
import { DEVELOPER, REPORTER } from '../../src/policies/access-levels.js'
import { listMergeRequests } from '../../src/finders/merge-requests-finder.js'

const SIMPLE_FIELDS = ['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url']
const BASIC_FIELDS = [
  ...SIMPLE_FIELDS, 'allow_collaboration', 'allow_maintainer_to_push', 'assignee', 'author', 'closed_at', 'closed_by',
  'discussion_locked', 'downvotes', 'force_remove_source_branch', 'labels', 'merge_commit_sha', 'merge_status',
  'merge_when_pipeline_succeeds', 'merged_at', 'merged_by', 'milestone', 'sha', 'should_remove_source_branch',
  'source_branch', 'source_project_id', 'squash', 'target_branch', 'target_project_id', 'time_stats', 'upvotes',
  'user_notes_count', 'work_in_progress',
]
const SINGLE_FIELDS = [
  ...BASIC_FIELDS, 'changes_count', 'diff_refs', 'first_deployed_to_production_at', 'latest_build_finished_at',
  'latest_build_started_at', 'pipeline', 'subscribed',
]
const USER_FIELDS = ['avatar_url', 'id', 'name', 'state', 'username', 'web_url']
const keysOf = (value: object) => Object.keys(value).sort()
const sorted = (names: string[]) => [...names].sort()
const iidsOf = (body: { iid: number }[]) => body.map((mr) => mr.iid)
const at = (date: string) => Date.parse(`${date}T00:00:00Z`)

describe('Merge requests API', () => {
  let t: TestApp
  let m: Matrix
  let heads: Record<string, string>
  let single: (mr: MergeRequestRow) => string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    heads = await makeBranches(t, m.project.id, ['feature', 'fix', 'other', 'topic'])
    single = (mr) => `/projects/${m.project.id}/merge_requests/${mr.iid}`
  })
  after(async () => { await t.close() })

  describe('the lists', () => {
    let project: ProjectRow
    let subgroup: NamespaceRow
    let subProject: ProjectRow
    let publicProject: ProjectRow
    let hiddenProject: ProjectRow
    let milestone: MilestoneRow
    let developer: TestUser
    let maintainer: TestUser
    // Filled in by before().
    const mr = {} as Record<'wip' | 'fix' | 'merged' | 'sub' | 'public' | 'hidden', MergeRequestRow>
    let listPath: string

    before(async () => {
      developer = m.users.developer
      maintainer = await makeUser(t)
      // A project of its own in the matrix group, so other tests' merge requests stay out of these lists.
      project = await makeProject(t, m.users.owner, { namespace: m.group, visibility: 'private' })
      await makeMember(t, { type: 'project', id: project.id }, developer, DEVELOPER)
      await makeMember(t, { type: 'project', id: project.id }, maintainer, 40)
      await makeMember(t, { type: 'project', id: project.id }, m.users.reporter, REPORTER)
      await makeMember(t, { type: 'project', id: project.id }, m.users.guest, 10)
      await makeBranches(t, project.id, ['feature', 'fix', 'other'])
      subgroup = await makeGroup(t, { parent: m.group, visibility: 'private' }, m.users.owner)
      subProject = await makeProject(t, m.users.owner, { namespace: subgroup, visibility: 'private' })
      const outsider = await makeUser(t)
      publicProject = await makeProject(t, outsider, { visibility: 'public' })
      hiddenProject = await makeProject(t, outsider, { visibility: 'private' })
      milestone = await makeMilestone(t, { projectId: project.id }, 'v1')
      listPath = `/projects/${project.id}/merge_requests`

      mr.wip = await makeMergeRequest(t, project, developer, {
        title: 'WIP: Add login', sourceBranch: 'feature', assigneeId: maintainer.user.id, labels: ['bug'], milestoneId: milestone.id,
      })
      mr.fix = await makeMergeRequest(t, project, developer, {
        title: 'Fix crash on start', description: 'segfault in the parser', sourceBranch: 'fix', labels: ['bug', 'ui'],
      })
      mr.merged = await makeMergeRequest(t, project, maintainer, {
        title: '[wip] refactor', sourceBranch: 'other', targetBranch: 'fix', assigneeId: developer.user.id,
      })
      mr.sub = await makeMergeRequest(t, subProject, m.users.owner, { title: 'Subgroup change' })
      mr.public = await makeMergeRequest(t, publicProject, outsider, { title: 'Public change' })
      mr.hidden = await makeMergeRequest(t, hiddenProject, outsider, { title: 'Hidden change' })
      await setMergeRequestColumns(t, mr.wip.id, { created_at: at('2020-01-01'), updated_at: at('2020-06-01') })
      await setMergeRequestColumns(t, mr.fix.id, { created_at: at('2020-02-01'), updated_at: at('2020-03-01'), state: 'closed' })
      await setMergeRequestColumns(t, mr.merged.id, {
        created_at: at('2020-03-01'), updated_at: at('2020-04-01'), state: 'merged', merged_by_id: maintainer.user.id, merged_at: at('2020-04-01'),
      })
      await setMergeRequestColumns(t, mr.sub.id, { created_at: at('2020-04-01'), updated_at: at('2020-05-01'), state: 'locked' })
      await awardEmoji(t, developer.user.id, mr.wip.id, 'thumbsup')
      await awardEmoji(t, developer.user.id, mr.fix.id, 'heart')
      await awardEmoji(t, maintainer.user.id, mr.merged.id, 'thumbsup')
    })

    const list = async (path: string, token: string | null, query: Record<string, string | number | readonly (string | number)[]> = {}) => {
      const res = await t.api('GET', path, { token, query })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.headers['x-total'], String(res.body.length))
      return iidsOf(res.body)
    }
    const projectList = (query: Record<string, string | number | readonly (string | number)[]> = {}, token: string | null = developer.token) =>
      list(listPath, token, query)

    it('lists a project\'s merge requests in the basic form, newest first', async () => {
      const res = await t.api('GET', listPath, { token: developer.token })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(iidsOf(res.body), [mr.merged.iid, mr.fix.iid, mr.wip.iid])
      for (const item of res.body) assert.deepEqual(keysOf(item), sorted(BASIC_FIELDS))
      const wip = res.body[2]
      assert.equal(wip.project_id, project.id)
      assert.equal(wip.target_project_id, project.id)
      assert.equal(wip.source_project_id, project.id)
      assert.equal(wip.work_in_progress, true)
      assert.deepEqual(wip.labels, ['bug'])
      assert.equal(wip.milestone.title, 'v1')
      assert.equal(wip.milestone.web_url, `${EXTERNAL_URL}/${m.group.full_path}/${project.path}/milestones/${milestone.iid}`)
      assert.equal(wip.assignee.id, maintainer.user.id)
      assert.deepEqual(keysOf(wip.author), USER_FIELDS)
      assert.equal(wip.web_url, `${EXTERNAL_URL}/${m.group.full_path}/${project.path}/merge_requests/${mr.wip.iid}`)
      assert.deepEqual(wip.time_stats, { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null })
      assert.equal(wip.created_at, '2020-01-01T00:00:00.000Z')
      const merged = res.body[0]
      assert.equal(merged.state, 'merged')
      assert.equal(merged.merged_by.id, maintainer.user.id)
      assert.equal(merged.merged_at, '2020-04-01T00:00:00.000Z')
      assert.equal(merged.work_in_progress, true)
      assert.deepEqual(res.body[1].labels, ['bug', 'ui'])
      assert.equal(res.body[1].work_in_progress, false)
    })

    it('answers view=simple with the simple form', async () => {
      const res = await t.api('GET', listPath, { token: developer.token, query: { view: 'simple' } })
      assert.equal(res.status, 200, res.text)
      for (const item of res.body) assert.deepEqual(keysOf(item), sorted(SIMPLE_FIELDS))
      assert.equal(res.body[0].web_url, `${EXTERNAL_URL}/${m.group.full_path}/${project.path}/merge_requests/${mr.merged.iid}`)
    })

    it('orders by created_at or updated_at, either way', async () => {
      assert.deepEqual(await projectList({ sort: 'asc' }), [mr.wip.iid, mr.fix.iid, mr.merged.iid])
      assert.deepEqual(await projectList({ order_by: 'updated_at' }), [mr.wip.iid, mr.merged.iid, mr.fix.iid])
      assert.deepEqual(await projectList({ order_by: 'updated_at', sort: 'asc' }), [mr.fix.iid, mr.merged.iid, mr.wip.iid])
    })

    it('filters by state', async () => {
      assert.deepEqual(await projectList({ state: 'opened' }), [mr.wip.iid])
      assert.deepEqual(await projectList({ state: 'closed' }), [mr.fix.iid])
      assert.deepEqual(await projectList({ state: 'merged' }), [mr.merged.iid])
      assert.deepEqual(await projectList({ state: 'locked' }), [])
      assert.deepEqual(await projectList({ state: 'all' }), [mr.merged.iid, mr.fix.iid, mr.wip.iid])
    })

    it('filters by milestone, labels and iids', async () => {
      assert.deepEqual(await projectList({ milestone: 'v1' }), [mr.wip.iid])
      assert.deepEqual(await projectList({ milestone: 'None' }), [mr.merged.iid, mr.fix.iid])
      assert.deepEqual(await projectList({ milestone: 'Any' }), [mr.wip.iid])
      assert.deepEqual(await projectList({ milestone: 'v9' }), [])
      assert.deepEqual(await projectList({ labels: 'bug' }), [mr.fix.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ labels: 'bug,ui' }), [mr.fix.iid])
      assert.deepEqual(await projectList({ labels: ['bug', 'ui'] }), [mr.fix.iid])
      assert.deepEqual(await projectList({ labels: 'None' }), [mr.merged.iid])
      assert.deepEqual(await projectList({ labels: 'No Label' }), [mr.merged.iid])
      assert.deepEqual(await projectList({ labels: 'Any' }), [mr.fix.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ iids: [mr.wip.iid, mr.merged.iid] }), [mr.merged.iid, mr.wip.iid])
    })

    it('filters by creation and update times, inclusively', async () => {
      assert.deepEqual(await projectList({ created_after: '2020-02-01T00:00:00Z' }), [mr.merged.iid, mr.fix.iid])
      assert.deepEqual(await projectList({ created_before: '2020-02-01' }), [mr.fix.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ updated_after: '2020-04-01T00:00:00.000Z' }), [mr.merged.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ updated_before: '2020-03-01T00:00:00+00:00' }), [mr.fix.iid])
    })

    it('filters by scope, author, assignee and the caller\'s reactions', async () => {
      assert.deepEqual(await projectList({ scope: 'created_by_me' }), [mr.fix.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ scope: 'created-by-me' }), [mr.fix.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ scope: 'assigned_to_me' }), [mr.merged.iid])
      assert.deepEqual(await projectList({ scope: 'all' }), [mr.merged.iid, mr.fix.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ author_id: maintainer.user.id }), [mr.merged.iid])
      assert.deepEqual(await projectList({ assignee_id: maintainer.user.id }), [mr.wip.iid])
      assert.deepEqual(await projectList({ assignee_id: 'None' }), [mr.fix.iid])
      assert.deepEqual(await projectList({ assignee_id: 0 }), [mr.fix.iid])
      assert.deepEqual(await projectList({ assignee_id: 'any' }), [mr.merged.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ my_reaction_emoji: 'thumbsup' }), [mr.wip.iid])
      assert.deepEqual(await projectList({ my_reaction_emoji: 'Any' }), [mr.fix.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ my_reaction_emoji: 'None' }), [mr.merged.iid])
      assert.deepEqual(await projectList({ my_reaction_emoji: 'thumbsup' }, maintainer.token), [mr.merged.iid])
    })

    it('filters by branches, search words and work in progress', async () => {
      assert.deepEqual(await projectList({ source_branch: 'fix' }), [mr.fix.iid])
      assert.deepEqual(await projectList({ target_branch: 'fix' }), [mr.merged.iid])
      assert.deepEqual(await projectList({ target_branch: 'master' }), [mr.fix.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ search: 'CRASH' }), [mr.fix.iid])
      assert.deepEqual(await projectList({ search: 'segfault' }), [mr.fix.iid])
      assert.deepEqual(await projectList({ search: 'nothing like it' }), [])
      assert.deepEqual(await projectList({ wip: 'yes' }), [mr.merged.iid, mr.wip.iid])
      assert.deepEqual(await projectList({ wip: 'no' }), [mr.fix.iid])
      assert.deepEqual(await projectList({ wip: 'no', state: 'opened' }), [])
    })

    it('serves a milestone\'s merge requests to the finder by milestone id', async () => {
      const page = await listMergeRequests(t.ctx.db, developer.actor, { kind: 'all' }, { milestoneId: milestone.id, orderBy: 'created_at', sort: 'desc' }, { page: 1, per_page: 20 })
      assert.deepEqual(page.items.map((view) => view.mergeRequest.id), [mr.wip.id])
      assert.equal(page.total, 1)
    })

    it('refuses bad parameters', async () => {
      const bad = {
        state: 'bogus', order_by: 'title', sort: 'up', view: 'full', scope: 'mine', wip: 'maybe', assignee_id: 'someone',
        author_id: 'x', created_after: 'yesterday', 'iids[]': 'one',
      }
      for (const param of ['author_id', 'assignee_id']) {
        const res = await t.api('GET', `${listPath}?${param}=99999999999`, { token: developer.token })
        assert.deepEqual(res.body, { error: `${param} is invalid` })
      }
      assert.deepEqual((await t.api('GET', `${listPath}?iids[]=99999999999`, { token: developer.token })).body, { error: 'iids[0] is invalid' })
      for (const [param, value] of Object.entries(bad)) {
        const res = await t.api('GET', `${listPath}?${param}=${value}`, { token: developer.token })
        assert.equal(res.status, 400, `${param}=${value}`)
        assert.deepEqual(res.body, { error: `${param === 'iids[]' ? 'iids[0]' : param} is invalid` })
      }
    })

    it('paginates with exact totals and a fixed number of queries', async () => {
      const page = await expectPaginates({ t, path: listPath, token: developer.token, total: 3 })
      assert.deepEqual(iidsOf(page.body), [mr.fix.iid])
      await expectRejectsBadPagination(t, listPath, developer.token)
      // The oldest has everything the others have (author, assignee, labels, milestone), and more.
      const cost = async (perPage: number) => (await countQueries(t, () => t.api('GET', listPath, { token: developer.token, query: { per_page: perPage, sort: 'asc' } }))).queries
      assert.equal(await cost(1), await cost(3))
      const dashboard = async (perPage: number) => (await countQueries(t, () => t.api('GET', '/merge_requests', { query: { scope: 'all', per_page: perPage } }))).queries
      assert.equal(await dashboard(1), await dashboard(5))
    })

    it('lets those who may read the code list them', async () => {
      await expectStatuses(m, (token) => t.api('GET', listPath, { token }), {
        anonymous: 404, nonMember: 404, guest: 403, reporter: 200, developer: 200, admin: 200, external: 404,
      })
      const open = await t.api('GET', `/projects/${publicProject.id}/merge_requests`, { token: null })
      assert.equal(open.status, 200, open.text)
      assert.deepEqual(iidsOf(open.body), [mr.public.iid])
    })

    it('hides the list of a project whose merge requests are disabled', async () => {
      await t.ctx.db.updateTable('projects').set({ merge_requests_enabled: 0 }).where('id', '=', publicProject.id).execute()
      try {
        const res = await t.api('GET', `/projects/${publicProject.id}/merge_requests`, { token: null })
        assert.equal(res.status, 403)
        assert.deepEqual(await list('/merge_requests', null, { scope: 'all' }), [])
      } finally {
        await t.ctx.db.updateTable('projects').set({ merge_requests_enabled: 1 }).where('id', '=', publicProject.id).execute()
      }
    })

    describe('GET /merge_requests', () => {
      it('needs a caller, except for scope=all, which shows anonymous callers the public ones', async () => {
        const res = await t.api('GET', '/merge_requests', { token: null })
        assert.equal(res.status, 401)
        assert.deepEqual(res.body, { message: '401 Unauthorized' })
        assert.deepEqual(await list('/merge_requests', null, { scope: 'all' }), [mr.public.iid])
      })

      it('shows the caller\'s own by default, and everything they may see with scope=all', async () => {
        const mine = await t.api('GET', '/merge_requests', { token: developer.token })
        assert.equal(mine.status, 200, mine.text)
        assert.deepEqual(mine.body.map((item: { id: number }) => item.id), [mr.fix.id, mr.wip.id])
        const visible = await t.api('GET', '/merge_requests', { token: developer.token, query: { scope: 'all', per_page: 100 } })
        const ids = visible.body.map((item: { id: number }) => item.id)
        for (const seen of [mr.wip, mr.fix, mr.merged, mr.public]) assert.ok(ids.includes(seen.id))
        for (const unseen of [mr.sub, mr.hidden]) assert.ok(!ids.includes(unseen.id))
        assert.equal(visible.headers['x-total'], String(ids.length))
        const assigned = await t.api('GET', '/merge_requests', { token: developer.token, query: { scope: 'assigned_to_me' } })
        assert.deepEqual(assigned.body.map((item: { id: number }) => item.id), [mr.merged.id])
        const outsiderView = await t.api('GET', '/merge_requests', { token: m.users.nonMember.token, query: { scope: 'all', per_page: 100 } })
        assert.ok(!outsiderView.body.some((item: { id: number }) => [mr.wip.id, mr.sub.id, mr.hidden.id].includes(item.id)))
        const admin = await t.api('GET', '/merge_requests', { query: { scope: 'all', per_page: 100 } })
        for (const seen of [mr.sub, mr.hidden]) assert.ok(admin.body.some((item: { id: number }) => item.id === seen.id))
      })

      it('filters work in progress', async () => {
        const wip = await t.api('GET', '/merge_requests', { token: developer.token, query: { wip: 'yes' } })
        assert.deepEqual(wip.body.map((item: { id: number }) => item.id), [mr.wip.id])
        const done = await t.api('GET', '/merge_requests', { token: developer.token, query: { wip: 'no' } })
        assert.deepEqual(done.body.map((item: { id: number }) => item.id), [mr.fix.id])
      })
    })

    describe('GET /groups/:id/merge_requests', () => {
      it('includes the subgroups\' projects the caller may see', async () => {
        const path = `/groups/${subgroup.parent_id}/merge_requests`
        const owner = await t.api('GET', path, { token: m.users.owner.token, query: { per_page: 100 } })
        assert.equal(owner.status, 200, owner.text)
        const ownerIds = owner.body.map((item: { id: number }) => item.id)
        for (const seen of [mr.wip, mr.fix, mr.merged, mr.sub]) assert.ok(ownerIds.includes(seen.id))
        assert.ok(!ownerIds.includes(mr.public.id))
        const developerIds = (await t.api('GET', path, { token: developer.token, query: { per_page: 100 } })).body.map((item: { id: number }) => item.id)
        assert.ok(developerIds.includes(mr.wip.id))
        assert.ok(!developerIds.includes(mr.sub.id))
        const locked = await t.api('GET', path, { token: m.users.owner.token, query: { state: 'locked' } })
        assert.deepEqual(locked.body.map((item: { id: number }) => item.id), [mr.sub.id])
        const byPath = await t.api('GET', `/groups/${encodeURIComponent(subgroup.full_path)}/merge_requests`, { token: m.users.owner.token })
        assert.deepEqual(byPath.body.map((item: { id: number }) => item.id), [mr.sub.id])
      })

      it('is 404 for groups the caller cannot see', async () => {
        for (const token of [null, m.users.nonMember.token]) {
          const res = await t.api('GET', `/groups/${m.group.id}/merge_requests`, { token })
          assert.equal(res.status, 404)
          assert.deepEqual(res.body, { message: '404 Group Not Found' })
        }
      })
    })
  })

  describe('GET /projects/:id/merge_requests/:merge_request_iid', () => {
    let mr: MergeRequestRow
    let milestone: MilestoneRow

    before(async () => {
      milestone = await makeMilestone(t, { groupId: m.group.id }, 'Group goal')
      mr = await makeMergeRequest(t, m.project, m.users.developer, {
        title: 'Add a topic', description: 'Why', sourceBranch: 'topic', labels: ['z', 'a'], milestoneId: milestone.id,
        assigneeId: m.users.maintainer.user.id,
      })
    })

    it('answers the single form', async () => {
      const res = await t.api('GET', single(mr), { token: m.users.developer.token })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), sorted(SINGLE_FIELDS))
      const body = res.body
      assert.equal(body.id, mr.id)
      assert.equal(body.iid, mr.iid)
      assert.equal(body.title, 'Add a topic')
      assert.equal(body.description, 'Why')
      assert.equal(body.state, 'opened')
      assert.equal(body.source_branch, 'topic')
      assert.equal(body.target_branch, 'master')
      assert.deepEqual(body.labels, ['a', 'z'])
      assert.equal(body.milestone.group_id, m.group.id)
      assert.equal(body.milestone.web_url, `${EXTERNAL_URL}/groups/${m.group.full_path}/-/milestones/${milestone.iid}`)
      assert.equal(body.author.username, m.users.developer.user.username)
      assert.equal(body.assignee.username, m.users.maintainer.user.username)
      assert.equal(body.merge_status, 'can_be_merged')
      assert.equal(body.sha, heads.topic)
      assert.deepEqual(body.diff_refs, { base_sha: heads.master, head_sha: heads.topic, start_sha: heads.master })
      assert.equal(body.changes_count, '1')
      assert.equal(body.subscribed, true)
      assert.equal(body.work_in_progress, false)
      assert.equal(body.allow_collaboration, false)
      assert.equal(body.should_remove_source_branch, null)
      assert.equal(body.force_remove_source_branch, false)
      assert.equal(body.squash, false)
      assert.equal(body.discussion_locked, false)
      assert.equal(body.pipeline, null)
      assert.equal(body.closed_by, null)
      assert.equal(body.merged_by, null)
      assert.equal(body.upvotes, 0)
      assert.equal(body.user_notes_count, 0)
      assert.equal(body.web_url, `${EXTERNAL_URL}/${m.group.full_path}/${m.project.path}/merge_requests/${mr.iid}`)
      const other = await t.api('GET', single(mr), { token: m.users.reporter.token })
      assert.equal(other.body.subscribed, false)
    })

    it('lets those who may read the code see it, and is 404 for the others', async () => {
      await expectStatuses(m, (token) => t.api('GET', single(mr), { token }), {
        anonymous: 404, nonMember: 404, guest: 404, reporter: 200, developer: 200, maintainer: 200, admin: 200, external: 404,
      })
      const hidden = await t.api('GET', single(mr), { token: m.users.nonMember.token })
      assert.deepEqual(hidden.body, { message: '404 Project Not Found' })
      const missing = await t.api('GET', `/projects/${m.project.id}/merge_requests/9999`)
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { message: '404 Merge Request Not Found' })
      const huge = await t.api('GET', `/projects/${m.project.id}/merge_requests/99999999999`)
      assert.equal(huge.status, 404)
      const bad = await t.api('GET', `/projects/${m.project.id}/merge_requests/abc`)
      assert.equal(bad.status, 400)
      assert.deepEqual(bad.body, { error: 'merge_request_iid is invalid' })
    })

    it('is readable anonymously on a public project', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner, { visibility: 'public' })
      await makeBranches(t, project.id, ['feature'])
      const open = await makeMergeRequest(t, project, owner)
      const res = await t.api('GET', `/projects/${project.id}/merge_requests/${open.iid}`, { token: null })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.subscribed, false)
      assert.equal(res.body.changes_count, '1')
    })

    it('shows the collaboration flags of a merge request from a fork', async () => {
      const fork = await makeProject(t, m.users.developer, { visibility: 'private' })
      await t.ctx.db.updateTable('projects').set({ forked_from_project_id: m.project.id }).where('id', '=', fork.id).execute()
      await makeBranches(t, fork.id, ['forked'])
      const fromFork = await makeMergeRequest(t, m.project, m.users.developer, { sourceProjectId: fork.id, sourceBranch: 'forked' })
      await setMergeRequestColumns(t, fromFork.id, { allow_collaboration: 1 })
      const res = await t.api('GET', single(fromFork), { token: m.users.developer.token })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.source_project_id, fork.id)
      assert.equal(res.body.project_id, m.project.id)
      assert.equal(res.body.allow_collaboration, true)
      assert.equal(res.body.allow_maintainer_to_push, true)
    })
  })

  describe('PUT /projects/:id/merge_requests/:merge_request_iid', () => {
    const put = (mr: MergeRequestRow, body: unknown, token: string | null = m.users.developer.token) =>
      t.api('PUT', single(mr), { token, body })

    it('changes title and description, with system notes and an updated event', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer, { title: 'Old title', description: 'old' })
      const res = await put(mr, { title: 'New title', description: 'new' })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), sorted(SINGLE_FIELDS))
      assert.equal(res.body.title, 'New title')
      assert.equal(res.body.description, 'new')
      assert.ok(Date.parse(res.body.updated_at) >= mr.updated_at)
      assert.deepEqual(await systemNotesOf(t, mr.id), ['changed title from **{-Old-} title** to **{+New+} title**', 'changed the description'])
      assert.deepEqual(await eventsOf(t, mr.id), [
        { action: 'created', author_id: t.root.user.id, target_iid: mr.iid, target_title: 'Old title' },
        { action: 'updated', author_id: m.users.developer.user.id, target_iid: mr.iid, target_title: 'New title' },
      ])
      const again = await put(mr, { title: 'New title' })
      assert.equal(again.status, 200)
      assert.equal((await eventsOf(t, mr.id)).length, 2)
    })

    it('notes a title that becomes or stops being work in progress', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer, { title: 'Draft' })
      assert.equal((await put(mr, { title: 'WIP: Draft' })).body.work_in_progress, true)
      assert.equal((await put(mr, { title: 'Draft' })).body.work_in_progress, false)
      const notes = await systemNotesOf(t, mr.id)
      assert.deepEqual(notes.filter((note) => note.includes('Work In Progress')), ['marked as a **Work In Progress**', 'unmarked as a **Work In Progress**'])
    })

    it('closes and reopens, with closed_by, events and notes', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer, { sourceBranch: 'fix', targetBranch: 'topic' })
      const closed = await put(mr, { state_event: 'close' }, m.users.maintainer.token)
      assert.equal(closed.status, 200, closed.text)
      assert.equal(closed.body.state, 'closed')
      assert.equal(closed.body.closed_by.id, m.users.maintainer.user.id)
      assert.ok(closed.body.closed_at !== null)
      const closedAgain = await put(mr, { state_event: 'close' }, m.users.maintainer.token)
      assert.equal(closedAgain.status, 200)
      const reopened = await put(mr, { state_event: 'reopen' })
      assert.equal(reopened.body.state, 'opened')
      assert.equal(reopened.body.closed_by, null)
      assert.equal(reopened.body.closed_at, null)
      assert.deepEqual(await systemNotesOf(t, mr.id), ['closed', 'reopened'])
      assert.deepEqual((await eventsOf(t, mr.id)).map((event) => [event.action, event.author_id]), [
        ['created', t.root.user.id], ['closed', m.users.maintainer.user.id], ['reopened', m.users.developer.user.id],
      ])
      // Reopening brings the repository side up to date again.
      assert.equal(reopened.body.merge_status, 'can_be_merged')
    })

    it('changes labels, creating the new ones, with a label note', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer, { labels: ['old'] })
      const res = await put(mr, { labels: 'new, other,new' })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.labels, ['new', 'other'])
      const labels = await t.ctx.db.selectFrom('labels').select(['id', 'title']).where('project_id', '=', m.project.id).execute()
      const id = (title: string) => labels.find((label) => label.title === title)?.id
      assert.deepEqual(await systemNotesOf(t, mr.id), [`added ~${id('new')} ~${id('other')} and removed ~${id('old')} labels`])
      assert.deepEqual((await put(mr, { labels: ['other'] })).body.labels, ['other'])
      assert.deepEqual((await put(mr, { labels: '' })).body.labels, [])
      assert.deepEqual((await eventsOf(t, mr.id)).map((event) => event.action), ['created', 'updated', 'updated', 'updated'])
    })

    it('assigns and unassigns (0 clears), ignoring assignees who could not read it', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer)
      const assigned = await put(mr, { assignee_id: m.users.reporter.user.id })
      assert.equal(assigned.status, 200, assigned.text)
      assert.equal(assigned.body.assignee.id, m.users.reporter.user.id)
      const cleared = await put(mr, { assignee_id: 0 })
      assert.equal(cleared.body.assignee, null)
      assert.deepEqual(await systemNotesOf(t, mr.id), [`assigned to @${m.users.reporter.user.username}`, 'removed assignee'])
      await put(mr, { assignee_id: m.users.maintainer.user.id })
      for (const ignored of [999999, m.users.nonMember.user.id, m.users.guest.user.id]) {
        const res = await put(mr, { assignee_id: ignored })
        assert.equal(res.status, 200, res.text)
        assert.equal(res.body.assignee.id, m.users.maintainer.user.id)
      }
    })

    it('sets and removes the milestone (a project or group milestone; 0 or an unavailable one clears)', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer)
      const projectMilestone = await makeMilestone(t, { projectId: m.project.id }, 'Sprint 1')
      const groupMilestone = await makeMilestone(t, { groupId: m.group.id }, 'Quarter')
      const set = await put(mr, { milestone_id: projectMilestone.id })
      assert.equal(set.status, 200, set.text)
      assert.equal(set.body.milestone.id, projectMilestone.id)
      assert.equal((await put(mr, { milestone_id: groupMilestone.id })).body.milestone.id, groupMilestone.id)
      assert.equal((await put(mr, { milestone_id: 0 })).body.milestone, null)
      assert.deepEqual(await systemNotesOf(t, mr.id), [
        `changed milestone to %${projectMilestone.iid}`, 'changed milestone to %"Quarter"', 'removed milestone',
      ])
      await put(mr, { milestone_id: projectMilestone.id })
      const elsewhere = await makeMilestone(t, { projectId: (await makeProject(t, null)).id }, 'Elsewhere')
      for (const unavailable of [elsewhere.id, 999999]) {
        const res = await put(mr, { milestone_id: unavailable })
        assert.equal(res.status, 200, res.text)
        assert.equal(res.body.milestone, null)
        await put(mr, { milestone_id: projectMilestone.id })
      }
    })

    it('changes the target branch to an existing branch only', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer, { sourceBranch: 'other' })
      const moved = await put(mr, { target_branch: 'fix' })
      assert.equal(moved.status, 200, moved.text)
      assert.equal(moved.body.target_branch, 'fix')
      // Retargeting refreshes the repository side: the diff now starts at fix.
      assert.equal(moved.body.merge_status, 'can_be_merged')
      assert.equal(moved.body.diff_refs.start_sha, heads.fix)
      assert.equal(moved.body.sha, heads.other)
      assert.deepEqual(await systemNotesOf(t, mr.id), ['changed target branch from `master` to `fix`'])
      const missing = await put(mr, { target_branch: 'no-such-branch' })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { message: { target_branch: ['does not exist'] } })
      const itself = await put(mr, { target_branch: 'other' })
      assert.equal(itself.status, 422)
      assert.deepEqual(itself.body, { message: ['You can not use same project/branch for source and target'] })
      const twin = await makeMergeRequest(t, m.project, m.users.developer, { sourceBranch: 'other', targetBranch: 'master' })
      const clash = await put(twin, { target_branch: 'fix' })
      assert.equal(clash.status, 409)
      assert.deepEqual(clash.body, { message: [`Cannot Create: This merge request already exists: ["${mr.title}"]`] })
      assert.equal((await t.api('GET', single(twin))).body.target_branch, 'master')
    })

    it('sets the flags', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer)
      const res = await put(mr, { remove_source_branch: true, squash: 'true', discussion_locked: true, allow_maintainer_to_push: true })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.force_remove_source_branch, true)
      assert.equal(res.body.squash, true)
      assert.equal(res.body.discussion_locked, true)
      const row = await t.ctx.db.selectFrom('merge_requests').select('allow_collaboration').where('id', '=', mr.id).executeTakeFirstOrThrow()
      assert.equal(row.allow_collaboration, 1)
      assert.deepEqual(await systemNotesOf(t, mr.id), ['locked this merge request'])
      const off = await put(mr, { remove_source_branch: false, discussion_locked: false })
      assert.equal(off.body.force_remove_source_branch, false)
      assert.equal(off.body.discussion_locked, false)
    })

    it('refuses bad input', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer, { title: 'Stays' })
      const none = await put(mr, {})
      assert.equal(none.status, 400)
      assert.match(none.body.error, /^assignee_id, description, labels, milestone_id, remove_source_branch, state_event, target_branch, title, .* are missing, at least one parameter must be provided$/)
      assert.deepEqual((await put(mr, { title: '  ' })).body, { error: 'title is empty' })
      assert.deepEqual((await put(mr, { target_branch: '' })).body, { error: 'target_branch is empty' })
      const long = await put(mr, { title: 'x'.repeat(256) })
      assert.equal(long.status, 400)
      assert.deepEqual(long.body, { message: { title: ['is too long (maximum is 255 characters)'] } })
      for (const [param, value] of [
        ['state_event', 'merge'], ['assignee_id', 'someone'], ['assignee_id', 99999999999], ['milestone_id', -1], ['milestone_id', 99999999999],
        ['squash', 'perhaps'],
      ] as const) {
        const res = await put(mr, { [param]: value })
        assert.equal(res.status, 400, `${param}=${value}`)
        assert.deepEqual(res.body, { error: `${param} is invalid` })
      }
      assert.equal((await t.api('GET', single(mr))).body.title, 'Stays')
    })

    it('lets the author, the assignee and Developers and up edit; others 403, the unseeing 404', async () => {
      const mr = await makeMergeRequest(t, m.project, null)
      await expectStatuses(m, (token) => put(mr, { title: 'Edited' }, token), {
        anonymous: 401, nonMember: 404, guest: 404, reporter: 403, developer: 200, maintainer: 200, owner: 200, admin: 200, external: 404,
      })
      const forbidden = await put(mr, { title: 'x' }, m.users.reporter.token)
      assert.deepEqual(forbidden.body, { message: '403 Forbidden' })
      const byReporter = await makeMergeRequest(t, m.project, m.users.reporter)
      assert.equal((await put(byReporter, { title: 'Mine' }, m.users.reporter.token)).status, 200)
      const assignedToReporter = await makeMergeRequest(t, m.project, null, { assigneeId: m.users.reporter.user.id })
      assert.equal((await put(assignedToReporter, { description: 'Assigned' }, m.users.reporter.token)).status, 200)
    })

    it('ignores labels, milestone, assignee and lock from those who may not administer merge requests', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.reporter, { labels: ['kept'] })
      const milestone = await makeMilestone(t, { projectId: m.project.id }, 'Ignored')
      const res = await put(mr, {
        title: 'Retitled', labels: 'other', milestone_id: milestone.id, assignee_id: m.users.reporter.user.id, discussion_locked: true,
      }, m.users.reporter.token)
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.title, 'Retitled')
      assert.deepEqual(res.body.labels, ['kept'])
      assert.equal(res.body.milestone, null)
      assert.equal(res.body.assignee, null)
      assert.equal(res.body.discussion_locked, false)
    })

    it('keeps a merged merge request\'s state and branches but lets its text change', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer)
      await setMergeRequestColumns(t, mr.id, { state: 'merged', merged_at: Date.now(), merged_by_id: m.users.developer.user.id })
      for (const body of [{ state_event: 'reopen' }, { state_event: 'close' }, { target_branch: 'fix' }]) {
        const res = await put(mr, body)
        assert.equal(res.status, 405, JSON.stringify(body))
        assert.deepEqual(res.body, { message: '405 Method Not Allowed' })
      }
      const retitled = await put(mr, { title: 'Merged, renamed' })
      assert.equal(retitled.status, 200)
      assert.equal(retitled.body.state, 'merged')
    })

    it('does not reopen beside an open twin', async () => {
      const closed = await makeMergeRequest(t, m.project, m.users.developer, { sourceBranch: 'topic', targetBranch: 'fix' })
      await put(closed, { state_event: 'close' })
      await makeMergeRequest(t, m.project, m.users.developer, { sourceBranch: 'topic', targetBranch: 'fix' })
      const res = await put(closed, { state_event: 'reopen' })
      assert.equal(res.status, 409)
      assert.equal((await t.api('GET', single(closed))).body.state, 'closed')
    })

    it('takes form-encoded and query parameters as the original does', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer)
      const form = await t.api('PUT', single(mr), { token: m.users.developer.token, form: 'title=From+a+form&squash=true&labels=a,b' })
      assert.equal(form.status, 200, form.text)
      assert.equal(form.body.title, 'From a form')
      assert.equal(form.body.squash, true)
      assert.deepEqual(form.body.labels, ['a', 'b'])
      const query = await t.api('PUT', `${single(mr)}?state_event=close`, { token: m.users.developer.token })
      assert.equal(query.body.state, 'closed')
    })
  })

  describe('DELETE /projects/:id/merge_requests/:merge_request_iid', () => {
    it('lets the project\'s owners and admins delete, with what hangs on it', async () => {
      await expectStatuses(m, async (token) => {
        const mr = await makeMergeRequest(t, m.project, m.users.developer, { labels: ['doomed'] })
        return t.api('DELETE', single(mr), { token })
      }, {
        anonymous: 401, nonMember: 404, guest: 404, reporter: 403, developer: 403, maintainer: 403, owner: 204, admin: 204, external: 404,
      })
      const mr = await makeMergeRequest(t, m.project, m.users.developer, { labels: ['doomed'] })
      await awardEmoji(t, m.users.developer.user.id, mr.id, 'heart')
      await t.api('PUT', single(mr), { body: { state_event: 'close' } })
      await t.api('POST', `${single(mr)}/subscribe`, { token: m.users.reporter.token })
      const res = await t.api('DELETE', single(mr), { token: m.users.owner.token })
      assert.equal(res.status, 204)
      assert.equal(res.text, '')
      assert.equal((await t.api('GET', single(mr))).status, 404)
      const { db } = t.ctx
      assert.equal((await db.selectFrom('label_links').selectAll().where('target_type', '=', 'MergeRequest').where('target_id', '=', mr.id).execute()).length, 0)
      assert.equal((await db.selectFrom('notes').selectAll().where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', mr.id).execute()).length, 0)
      assert.equal((await db.selectFrom('award_emoji').selectAll().where('awardable_type', '=', 'MergeRequest').where('awardable_id', '=', mr.id).execute()).length, 0)
      assert.equal((await db.selectFrom('subscriptions').selectAll().where('subscribable_type', '=', 'MergeRequest').where('subscribable_id', '=', mr.id).execute()).length, 0)
      assert.equal((await t.api('DELETE', single(mr), { token: m.users.owner.token })).status, 404)
    })
  })

  describe('time tracking', () => {
    let mr: MergeRequestRow
    const path = (suffix: string) => `${single(mr)}/${suffix}`
    const post = (suffix: string, body?: unknown, token: string | null = m.users.developer.token) =>
      t.api('POST', path(suffix), { token, ...(body === undefined ? {} : { body }) })

    before(async () => {
      mr = await makeMergeRequest(t, m.project, m.users.developer)
    })

    it('sets and resets the estimate', async () => {
      const set = await post('time_estimate', { duration: '3h30m' })
      assert.equal(set.status, 200, set.text)
      assert.deepEqual(set.body, { time_estimate: 12600, total_time_spent: 0, human_time_estimate: '3h 30m', human_total_time_spent: null })
      assert.equal((await post('time_estimate', { duration: '1w 1d' })).body.human_time_estimate, '1w 1d')
      const reset = await post('reset_time_estimate')
      assert.equal(reset.status, 200)
      assert.equal(reset.body.time_estimate, 0)
      assert.deepEqual(await systemNotesOf(t, mr.id), ['changed time estimate to 3h 30m', 'changed time estimate to 1w 1d', 'removed time estimate'])
    })

    it('adds, subtracts and resets spent time', async () => {
      const added = await post('add_spent_time', { duration: '1h' })
      assert.equal(added.status, 201, added.text)
      assert.equal(added.body.total_time_spent, 3600)
      assert.equal(added.body.human_total_time_spent, '1h')
      assert.equal((await post('add_spent_time', { duration: '-30m' })).body.total_time_spent, 1800)
      const tooMuch = await post('add_spent_time', { duration: '-2h' })
      assert.equal(tooMuch.status, 400)
      assert.deepEqual(tooMuch.body, { message: { time_spent: ['Time to subtract exceeds the total time spent'] } })
      const stats = await t.api('GET', path('time_stats'), { token: m.users.reporter.token })
      assert.equal(stats.status, 200)
      assert.deepEqual(stats.body, { time_estimate: 0, total_time_spent: 1800, human_time_estimate: null, human_total_time_spent: '30m' })
      const reset = await post('reset_spent_time')
      assert.equal(reset.status, 200)
      assert.equal(reset.body.total_time_spent, 0)
      const notes = await systemNotesOf(t, mr.id)
      assert.deepEqual(notes.slice(-3), ['added 1h of time spent', 'subtracted 30m of time spent', 'removed time spent'])
      assert.deepEqual((await t.api('GET', single(mr))).body.time_stats.total_time_spent, 0)
    })

    it('refuses bad durations', async () => {
      for (const duration of ['foo', '-1h', '']) {
        const res = await post('time_estimate', { duration })
        assert.equal(res.status, 400, duration)
        assert.deepEqual(res.body, { message: { time_estimate: ['has an invalid format'] } })
      }
      const spent = await post('add_spent_time', { duration: 'soon' })
      assert.deepEqual(spent.body, { message: { time_spent: ['has an invalid format'] } })
      const missing = await post('add_spent_time', {})
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { error: 'duration is missing' })
    })

    it('lets those who may edit change it, and readers read it', async () => {
      await expectStatuses(m, (token) => post('time_estimate', { duration: '1h' }, token), {
        anonymous: 401, nonMember: 404, guest: 404, reporter: 403, developer: 200, admin: 200,
      })
      await expectStatuses(m, (token) => post('reset_spent_time', undefined, token), { anonymous: 401, reporter: 403, maintainer: 200 })
      const byReporter = await makeMergeRequest(t, m.project, m.users.reporter)
      const own = await t.api('POST', `${single(byReporter)}/add_spent_time`, { token: m.users.reporter.token, body: { duration: '1h' } })
      assert.equal(own.status, 403)
      await expectStatuses(m, (token) => t.api('GET', path('time_stats'), { token }), {
        anonymous: 404, nonMember: 404, guest: 404, reporter: 200,
      })
    })
  })

  describe('subscriptions', () => {
    let mr: MergeRequestRow
    const post = (suffix: string, token: string | null) => t.api('POST', `${single(mr)}/${suffix}`, { token })

    before(async () => {
      mr = await makeMergeRequest(t, m.project, m.users.developer)
    })

    it('subscribes and unsubscribes, 304 when nothing changes', async () => {
      const token = m.users.reporter.token
      const subscribed = await post('subscribe', token)
      assert.equal(subscribed.status, 201, subscribed.text)
      assert.deepEqual(keysOf(subscribed.body), sorted(SINGLE_FIELDS))
      assert.equal(subscribed.body.subscribed, true)
      assert.equal((await post('subscribe', token)).status, 304)
      const unsubscribed = await post('unsubscribe', token)
      assert.equal(unsubscribed.status, 201)
      assert.equal(unsubscribed.body.subscribed, false)
      assert.equal((await post('unsubscribe', token)).status, 304)
    })

    it('counts the author as subscribed until they opt out', async () => {
      const token = m.users.developer.token
      assert.equal((await post('subscribe', token)).status, 304)
      assert.equal((await post('unsubscribe', token)).status, 201)
      assert.equal((await t.api('GET', single(mr), { token })).body.subscribed, false)
    })

    it('needs a caller who can see the merge request', async () => {
      await expectStatuses(m, (token) => post('subscribe', token), { anonymous: 401, nonMember: 404, guest: 404, maintainer: 201 })
    })
  })
})
