// Milestones of projects and groups (spec: Milestones): the list and its filters (`iids[]`,
// `state`, `title`, `search`), one milestone, create (iids per project or group, titles unique
// across a project and its groups), update (`state_event`), delete, the events of project
// milestones, who may do what, bad input; and the batch loader issue and merge request lists use.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type ApiResponse, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { groupOwner, makeIssue, makeMilestone, projectOwner } from '../helpers/collaboration-fixtures.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { milestoneViewsById } from '../../src/finders/milestones-finder.js'
import { DEVELOPER, GUEST, REPORTER } from '../../src/policies/access-levels.js'
import type { MilestoneRow, NamespaceRow } from '../../src/db/schema.js'

const PROJECT_MILESTONE_FIELDS = [
  'created_at', 'description', 'due_date', 'id', 'iid', 'project_id', 'start_date', 'state', 'title', 'updated_at', 'web_url',
]
const GROUP_MILESTONE_FIELDS = PROJECT_MILESTONE_FIELDS.map((field) => (field === 'project_id' ? 'group_id' : field)).sort()
const keysOf = (value: object) => Object.keys(value).sort()
const titlesOf = (res: ApiResponse) => (res.body as { title: string }[]).map((milestone) => milestone.title)

describe('Milestones API', () => {
  let t: TestApp
  let m: Matrix
  let base: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    base = `/projects/${m.project.id}/milestones`
  })
  after(async () => { await t.close() })

  const milestoneEvents = async (projectId: number) =>
    (await t.ctx.db.selectFrom('events').selectAll().where('project_id', '=', projectId).where('target_type', '=', 'Milestone')
      .orderBy('id').execute()).map((event) => [event.action, event.target_iid, event.target_title, event.author_id])

  describe('GET /projects/:id/milestones', () => {
    it('lists the milestones newest first with exactly the fields, and filters them', async () => {
      const project = await makeProject(t, null)
      const path = `/projects/${project.id}/milestones`
      const owner = projectOwner(project.id)
      await makeMilestone(t, owner, 'v1.0', { description: 'The first release' })
      await makeMilestone(t, owner, 'v2.0', { description: 'Faster sync' })
      const closed = await makeMilestone(t, owner, 'Sprint 3')
      await t.api('PUT', `${path}/${closed.id}`, { body: { state_event: 'close' } })

      const res = await t.api('GET', path)
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(titlesOf(res), ['Sprint 3', 'v2.0', 'v1.0'])
      for (const milestone of res.body) assert.deepEqual(keysOf(milestone), PROJECT_MILESTONE_FIELDS)
      const project1 = await t.ctx.db.selectFrom('namespaces').select('full_path').where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
      assert.deepEqual(res.body[2], {
        id: res.body[2].id, iid: 1, project_id: project.id, title: 'v1.0', description: 'The first release', state: 'active',
        created_at: res.body[2].created_at, updated_at: res.body[2].updated_at, due_date: null, start_date: null,
        web_url: `http://ingot.test/${project1.full_path}/${project.path}/milestones/1`,
      })
      assert.match(res.body[2].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

      const filtered = async (query: Record<string, string | number | readonly number[]>) => titlesOf(await t.api('GET', path, { query }))
      assert.deepEqual(await filtered({ state: 'active' }), ['v2.0', 'v1.0'])
      assert.deepEqual(await filtered({ state: 'closed' }), ['Sprint 3'])
      assert.deepEqual(await filtered({ state: 'all' }), ['Sprint 3', 'v2.0', 'v1.0'])
      assert.deepEqual(await filtered({ iids: [1, 3] }), ['Sprint 3', 'v1.0'])
      assert.deepEqual(await filtered({ iids: [2] }), ['v2.0'])
      assert.deepEqual(await filtered({ iids: [99999999999] }), [])
      assert.deepEqual(await filtered({ title: 'v2.0' }), ['v2.0'])
      assert.deepEqual(await filtered({ title: 'v2' }), [])
      assert.deepEqual(await filtered({ search: 'SPRINT' }), ['Sprint 3'])
      assert.deepEqual(await filtered({ search: 'release' }), ['v1.0'])
      assert.deepEqual(await filtered({ search: 'faster sync' }), ['v2.0'])
      assert.deepEqual(await filtered({ search: 'v1' }), [])
      assert.deepEqual(await filtered({ search: 'v1.0' }), ['v1.0'])
      assert.deepEqual(await filtered({ state: 'active', search: 'sync' }), ['v2.0'])
    })

    it('refuses bad filters and paginates', async () => {
      for (const [param, value] of [['state', 'opened'], ['iids', 'x']] as const) {
        const res = await t.api('GET', base, { token: m.tokens.reporter, query: { [param]: param === 'iids' ? [value] : value } })
        assert.deepEqual([res.status, res.body], [400, { error: `${param === 'iids' ? 'iids[0]' : param} is invalid` }])
      }
      const project = await makeProject(t, null)
      for (const title of ['a', 'b', 'c']) await makeMilestone(t, projectOwner(project.id), title)
      const page = await expectPaginates({ t, path: `/projects/${project.id}/milestones?state=active`, token: t.root.token, total: 3 })
      assert.deepEqual(titlesOf(page), ['b'])
      await expectRejectsBadPagination(t, `/projects/${project.id}/milestones`, t.root.token)
    })

    it('is for signed-in callers who can read the issues or merge requests', async () => {
      await expectStatuses(m, (token) => t.api('GET', base, { token }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 200, reporter: 200, owner: 200, admin: 200,
      })
      const open = await makeProject(t, null, { visibility: 'public' })
      await expectStatuses(m, (token) => t.api('GET', `/projects/${open.id}/milestones`, { token }), {
        anonymous: 401, nonMember: 200,
      })
      await t.ctx.db.updateTable('projects').set({ issues_enabled: 0, merge_requests_enabled: 0 }).where('id', '=', open.id).execute()
      assert.equal((await t.api('GET', `/projects/${open.id}/milestones`, { token: m.tokens.nonMember })).status, 403)
    })
  })

  describe('GET /projects/:id/milestones/:milestone_id', () => {
    it("shows one of the project's milestones by id; others are 404", async () => {
      const milestone = await makeMilestone(t, projectOwner(m.project.id), 'Shown')
      const res = await t.api('GET', `${base}/${milestone.id}`, { token: m.tokens.guest })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), PROJECT_MILESTONE_FIELDS)
      assert.equal(res.body.title, 'Shown')
      const elsewhere = await makeMilestone(t, projectOwner((await makeProject(t, null)).id), 'Elsewhere')
      for (const id of [elsewhere.id, 99999999999, -1]) {
        const missing = await t.api('GET', `${base}/${id}`)
        assert.deepEqual([missing.status, missing.body], [404, { message: '404 Milestone Not Found' }], String(id))
      }
      const bad = await t.api('GET', `${base}/abc`)
      assert.deepEqual([bad.status, bad.body], [400, { error: 'milestone_id is invalid' }])
      await expectStatuses(m, (token) => t.api('GET', `${base}/${milestone.id}`, { token }), {
        anonymous: 401, nonMember: 404, guest: 200,
      })
    })
  })

  describe('POST /projects/:id/milestones', () => {
    it("creates a milestone (201) numbered within the project, recording a 'created' event", async () => {
      const project = await makeProject(t, null)
      const path = `/projects/${project.id}/milestones`
      const res = await t.api('POST', path, {
        body: { title: ' Release 1 ', description: 'Ship it', start_date: '2030-01-01', due_date: '2030-02-01' },
      })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(keysOf(res.body), PROJECT_MILESTONE_FIELDS)
      assert.deepEqual(
        [res.body.iid, res.body.title, res.body.description, res.body.start_date, res.body.due_date, res.body.state],
        [1, 'Release 1', 'Ship it', '2030-01-01', '2030-02-01', 'active'],
      )
      const second = await t.api('POST', path, { form: 'title=Release+2&due_date=' })
      assert.equal(second.status, 201, second.text)
      assert.deepEqual([second.body.iid, second.body.due_date], [2, null])
      // Numbers are per project, and never reused.
      await t.api('DELETE', `${path}/${second.body.id}`)
      assert.equal((await t.api('POST', path, { body: { title: 'Release 3' } })).body.iid, 3)
      assert.equal((await makeMilestone(t, projectOwner((await makeProject(t, null)).id), 'Other')).iid, 1)
      assert.deepEqual((await milestoneEvents(project.id)).filter(([action]) => action === 'created'), [
        ['created', 1, 'Release 1', t.root.user.id], ['created', 2, 'Release 2', t.root.user.id], ['created', 3, 'Release 3', t.root.user.id],
      ])
    })

    it("refuses a title used already in the project or in its groups, and bad dates", async () => {
      const parent = await makeGroup(t, {})
      const child = await makeGroup(t, { parent })
      const project = await makeProject(t, null, { namespace: child })
      await makeMilestone(t, projectOwner(project.id), 'Mine')
      await makeMilestone(t, groupOwner(parent.id), 'Ancestral')
      const path = `/projects/${project.id}/milestones`
      const taken = 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}'
      const cases: [unknown, unknown][] = [
        [{ title: 'Mine' }, { message: taken }],
        [{ title: 'Ancestral' }, { message: taken }],
        [{ title: '  ' }, { message: 'Failed to create milestone {:title=>["can\'t be blank"]}' }],
        [{ title: 'Dates', start_date: '2030-02-01', due_date: '2030-02-01' },
          { message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' }],
        [{ description: 'x' }, { error: 'title is missing' }],
        [{ title: 'x', due_date: '2030-02-30' }, { error: 'due_date is invalid' }],
        [{ title: 'x', start_date: 'tomorrow' }, { error: 'start_date is invalid' }],
      ]
      for (const [body, expected] of cases) {
        const res = await t.api('POST', path, { body })
        assert.deepEqual([res.status, res.body], [400, expected], JSON.stringify(body))
      }
      // A group milestone may not take a title a project of the group (or of a subgroup) uses either.
      const res = await t.api('POST', `/groups/${parent.id}/milestones`, { body: { title: 'Mine' } })
      assert.deepEqual([res.status, res.body], [400, { message: taken }])
    })

    it('needs Reporter', async () => {
      let n = 0
      await expectStatuses(m, (token) => t.api('POST', base, { token, body: { title: `perm ${n++}` } }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 403, reporter: 201, developer: 201, owner: 201, admin: 201,
      })
    })
  })

  describe('PUT /projects/:id/milestones/:milestone_id', () => {
    it("changes the fields, closes ('closed' event) and activates ('reopened' event)", async () => {
      const project = await makeProject(t, null)
      const path = `/projects/${project.id}/milestones`
      const milestone = await makeMilestone(t, projectOwner(project.id), 'Before')
      const res = await t.api('PUT', `${path}/${milestone.id}`, {
        body: { title: 'After', description: 'Changed', start_date: '2030-01-01', due_date: '2030-03-01' },
      })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), PROJECT_MILESTONE_FIELDS)
      assert.deepEqual(
        [res.body.title, res.body.description, res.body.start_date, res.body.due_date, res.body.state],
        ['After', 'Changed', '2030-01-01', '2030-03-01', 'active'],
      )
      const cleared = await t.api('PUT', `${path}/${milestone.id}`, { body: { due_date: null, description: null } })
      assert.deepEqual([cleared.body.due_date, cleared.body.description, cleared.body.start_date], [null, null, '2030-01-01'])
      const closed = await t.api('PUT', `${path}/${milestone.id}`, { body: { state_event: 'close' } })
      assert.equal(closed.body.state, 'closed')
      await t.api('PUT', `${path}/${milestone.id}`, { body: { state_event: 'close' } })
      const activated = await t.api('PUT', `${path}/${milestone.id}`, { body: { state_event: 'activate' } })
      assert.equal(activated.body.state, 'active')
      assert.deepEqual(await milestoneEvents(project.id), [
        ['created', 1, 'Before', t.root.user.id], ['closed', 1, 'After', t.root.user.id], ['reopened', 1, 'After', t.root.user.id],
      ])
      const events = await t.api('GET', `/projects/${project.id}/events`, { query: { target_type: 'milestone' } })
      assert.deepEqual(events.body.map((event: { action_name: string }) => event.action_name), ['opened', 'closed', 'opened'])
    })

    it('refuses bad input', async () => {
      const milestone = await makeMilestone(t, projectOwner(m.project.id), 'Editable')
      await makeMilestone(t, projectOwner(m.project.id), 'Other title')
      const path = `${base}/${milestone.id}`
      const cases: [unknown, number, unknown][] = [
        [{}, 400, { error: 'title, description, due_date, start_date, state_event are missing, at least one parameter must be provided' }],
        [{ state_event: 'reopen' }, 400, { error: 'state_event is invalid' }],
        [{ due_date: '2030-13-01' }, 400, { error: 'due_date is invalid' }],
        [{ title: 'Other title' }, 400, { message: 'Failed to update milestone {:title=>["already being used for another group or project milestone."]}' }],
        [{ title: '' }, 400, { message: 'Failed to update milestone {:title=>["can\'t be blank"]}' }],
        [{ start_date: '2030-05-01', due_date: '2030-04-01' }, 400,
          { message: 'Failed to update milestone {:due_date=>["must be greater than start date"]}' }],
      ]
      for (const [body, status, expected] of cases) {
        const res = await t.api('PUT', path, { token: m.tokens.reporter, body })
        assert.deepEqual([res.status, res.body], [status, expected], JSON.stringify(body))
      }
      const same = await t.api('PUT', path, { token: m.tokens.reporter, body: { title: 'Editable', description: 'kept title' } })
      assert.equal(same.status, 200, same.text)
      const missing = await t.api('PUT', `${base}/99999999`, { body: { title: 'x' } })
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Milestone Not Found' }])
    })

    it('needs Reporter', async () => {
      const milestone = await makeMilestone(t, projectOwner(m.project.id), 'Guarded')
      await expectStatuses(m, (token) => t.api('PUT', `${base}/${milestone.id}`, { token, body: { description: 'x' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 200, admin: 200,
      })
    })
  })

  describe('DELETE /projects/:id/milestones/:milestone_id', () => {
    it("deletes it (204), its issues keeping no milestone, recording a 'destroyed' event", async () => {
      const project = await makeProject(t, null)
      const milestone = await makeMilestone(t, projectOwner(project.id), 'Doomed')
      const issue = await makeIssue(t, project.id, { authorId: t.root.user.id, milestoneId: milestone.id })
      const res = await t.api('DELETE', `/projects/${project.id}/milestones/${milestone.id}`)
      assert.deepEqual([res.status, res.text], [204, ''])
      assert.equal((await t.api('GET', `/projects/${project.id}/milestones/${milestone.id}`)).status, 404)
      const row = await t.ctx.db.selectFrom('issues').select('milestone_id').where('id', '=', issue.id).executeTakeFirstOrThrow()
      assert.equal(row.milestone_id, null)
      assert.deepEqual(await milestoneEvents(project.id), [['created', 1, 'Doomed', t.root.user.id], ['destroyed', 1, 'Doomed', t.root.user.id]])
      const again = await t.api('DELETE', `/projects/${project.id}/milestones/${milestone.id}`)
      assert.deepEqual([again.status, again.body], [404, { message: '404 Milestone Not Found' }])
    })

    it('needs Developer, and honours If-Unmodified-Since', async () => {
      const kept = await makeMilestone(t, projectOwner(m.project.id), 'Kept')
      const stale = await t.api('DELETE', `${base}/${kept.id}`, { headers: { 'if-unmodified-since': new Date(0).toUTCString() } })
      assert.equal(stale.status, 412)
      // One milestone per persona asked, in the order they are asked.
      const milestones: MilestoneRow[] = []
      for (let i = 0; i < 7; i += 1) milestones.push(await makeMilestone(t, projectOwner(m.project.id), `d${i}`))
      let n = 0
      await expectStatuses(m, (token) => t.api('DELETE', `${base}/${milestones[n++]?.id ?? 0}`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 204, maintainer: 204, admin: 204,
      })
    })
  })

  describe('/groups/:id/milestones', () => {
    let group: NamespaceRow
    const members: Record<'guest' | 'reporter' | 'developer', TestUser | null> = { guest: null, reporter: null, developer: null }
    const token = (role: keyof typeof members) => members[role]?.token ?? null

    before(async () => {
      group = await makeGroup(t, { visibility: 'private' })
      for (const [role, level] of [['guest', GUEST], ['reporter', REPORTER], ['developer', DEVELOPER]] as const) {
        const user = await makeUser(t)
        await makeMember(t, { type: 'group', id: group.id }, user, level)
        members[role] = user
      }
    })

    it('creates, lists, shows, changes and deletes group milestones, numbered per group, without events', async () => {
      const path = `/groups/${group.id}/milestones`
      const created = await t.api('POST', path, { token: token('reporter'), body: { title: 'Q1', due_date: '2030-03-31' } })
      assert.equal(created.status, 201, created.text)
      assert.deepEqual(keysOf(created.body), GROUP_MILESTONE_FIELDS)
      assert.deepEqual([created.body.iid, created.body.group_id, created.body.due_date], [1, group.id, '2030-03-31'])
      assert.equal(created.body.web_url, `http://ingot.test/groups/${group.full_path}/-/milestones/1`)
      const second = await t.api('POST', path, { token: token('reporter'), body: { title: 'Q2' } })
      assert.equal(second.body.iid, 2)
      // A project of the group may not take the title; another group numbers its own.
      const project = await makeProject(t, null, { namespace: group })
      const clash = await t.api('POST', `/projects/${project.id}/milestones`, { body: { title: 'Q1' } })
      assert.equal(clash.status, 400)
      assert.equal((await t.api('POST', `/groups/${(await makeGroup(t, {})).id}/milestones`, { body: { title: 'Q1' } })).body.iid, 1)

      const listed = await t.api('GET', path, { token: token('guest') })
      assert.deepEqual(titlesOf(listed), ['Q2', 'Q1'])
      assert.deepEqual(titlesOf(await t.api('GET', path, { query: { iids: [1] } })), ['Q1'])
      const shown = await t.api('GET', `${path}/${created.body.id}`, { token: token('guest') })
      assert.equal(shown.body.title, 'Q1')
      const closed = await t.api('PUT', `${path}/${created.body.id}`, { token: token('reporter'), body: { state_event: 'close', title: 'Q1 done' } })
      assert.deepEqual([closed.status, closed.body.state, closed.body.title], [200, 'closed', 'Q1 done'])
      assert.deepEqual(titlesOf(await t.api('GET', path, { query: { state: 'closed' } })), ['Q1 done'])
      const deleted = await t.api('DELETE', `${path}/${second.body.id}`, { token: token('developer') })
      assert.equal(deleted.status, 204)
      assert.deepEqual(titlesOf(await t.api('GET', path)), ['Q1 done'])
      const events = await t.ctx.db.selectFrom('events').select('id').where('target_type', '=', 'Milestone').where('project_id', 'is', null).execute()
      assert.deepEqual(events, [])
      // A project milestone is not the group's.
      const projectMilestone = await makeMilestone(t, projectOwner(project.id), 'Project only')
      assert.equal((await t.api('GET', `${path}/${projectMilestone.id}`)).status, 404)
    })

    it('lets whoever sees the group read, its Reporters change and its Developers delete', async () => {
      const milestone = await makeMilestone(t, groupOwner(group.id), 'Permissions')
      const outsider = await makeUser(t)
      const statuses = async (send: (who: string | null) => Promise<ApiResponse>, who: (string | null)[]) => {
        const result: number[] = []
        for (const caller of who) result.push((await send(caller)).status)
        return result
      }
      const callers = [null, outsider.token, token('guest'), token('reporter'), token('developer')]
      const path = `/groups/${group.id}/milestones`
      assert.deepEqual(await statuses((who) => t.api('GET', path, { token: who }), callers), [401, 404, 200, 200, 200])
      assert.deepEqual(
        await statuses((who) => t.api('PUT', `${path}/${milestone.id}`, { token: who, body: { description: 'x' } }), callers),
        [401, 404, 403, 200, 200],
      )
      assert.deepEqual(
        await statuses((who) => t.api('DELETE', `${path}/${milestone.id}`, { token: who }), callers.slice(0, 4)),
        [401, 404, 403, 403],
      )
      const open = await makeGroup(t, { visibility: 'public' })
      assert.deepEqual(
        await statuses((who) => t.api('POST', `/groups/${open.id}/milestones`, { token: who, body: { title: 'x' } }), [outsider.token]),
        [403],
      )
      assert.equal((await t.api('GET', `/groups/${open.id}/milestones`, { token: outsider.token })).status, 200)
    })
  })

  describe('malformed input', () => {
    it('is a clean 4xx: NUL characters, ids beyond the id columns, numbers too large to be finite', async () => {
      const milestone = await makeMilestone(t, projectOwner(m.project.id), 'Sturdy')
      const cases: [string, string, unknown, number][] = [
        ['POST', base, { title: 'a\u0000b' }, 400],
        ['PUT', `${base}/${milestone.id}`, { description: 'x\u0000' }, 400],
        ['GET', `${base}/2147483648`, undefined, 404],
        ['GET', `${base}/1e309`, undefined, 400],
        ['PUT', `${base}/99999999999999999999`, { title: 'x' }, 404],
        ['DELETE', `/groups/${m.group.id}/milestones/2147483648`, undefined, 404],
        ['GET', `${base}?iids[]=1e309`, undefined, 400],
        ['GET', `${base}?search=%00`, undefined, 400],
      ]
      for (const [method, path, body, status] of cases) {
        const res = await t.api(method, path, { body })
        assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`)
      }
    })
  })

  describe('milestoneViewsById', () => {
    it('loads project and group milestones with their full paths in a fixed number of queries', async () => {
      const group = await makeGroup(t, {})
      const project = await makeProject(t, null, { namespace: group })
      const ofProject = await makeMilestone(t, projectOwner(project.id), 'P')
      const ofGroup = await makeMilestone(t, groupOwner(group.id), 'G')
      const views = await milestoneViewsById(t.ctx.db, [ofProject.id, ofGroup.id, ofProject.id, 99999])
      assert.deepEqual([...views.keys()].sort(), [ofProject.id, ofGroup.id].sort())
      assert.equal(views.get(ofProject.id)?.ownerFullPath, `${group.full_path}/${project.path}`)
      assert.equal(views.get(ofGroup.id)?.ownerFullPath, group.full_path)
      assert.equal((await milestoneViewsById(t.ctx.db, [])).size, 0)
    })
  })
})
