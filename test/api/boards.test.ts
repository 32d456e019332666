// Issue boards of projects and groups (spec: Issue boards): the default board of the first read,
// get, create, update (name, milestone), delete; label lists: list (label lists only, by position,
// soft-deleted ones left out), get, create (labels of the project or its groups, at the end), move
// (the others renumbered 0..n-1), delete (soft, Owners and admins only); who may do what, bad input.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type ApiResponse, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { groupOwner, makeLabel, makeMilestone, projectOwner } from '../helpers/collaboration-fixtures.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { GUEST, MAINTAINER, OWNER, REPORTER } from '../../src/policies/access-levels.js'
import type { LabelRow, NamespaceRow, ProjectRow } from '../../src/db/schema.js'

const PROJECT_BOARD_FIELDS = ['id', 'lists', 'milestone', 'name', 'project']
const GROUP_BOARD_FIELDS = ['group_id', 'id', 'lists', 'milestone', 'name']
const BOARD_PROJECT_FIELDS = ['http_url_to_repo', 'id', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'web_url']
const LIST_FIELDS = ['id', 'label', 'position']
const keysOf = (value: object) => Object.keys(value).sort()
/** [label name, position] of each list. */
const listsOf = (lists: { label: { name: string }; position: number }[]) => lists.map((list) => [list.label.name, list.position])

describe('Boards API', () => {
  let t: TestApp
  let m: Matrix
  let base: string
  let boardId: number

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    base = `/projects/${m.project.id}/boards`
    boardId = (await t.api('GET', base)).body[0].id
  })
  after(async () => { await t.close() })

  /** A fresh project with its default board and labels a, b, c, d on it in that order. */
  async function boardWithLists(): Promise<{ project: ProjectRow; path: string; labels: LabelRow[] }> {
    const project = await makeProject(t, null)
    const board = (await t.api('GET', `/projects/${project.id}/boards`)).body[0]
    const labels: LabelRow[] = []
    for (const title of ['a', 'b', 'c', 'd']) {
      const label = await makeLabel(t, projectOwner(project.id), title)
      labels.push(label)
      const res = await t.api('POST', `/projects/${project.id}/boards/${board.id}/lists`, { body: { label_id: label.id } })
      assert.equal(res.status, 201, res.text)
    }
    return { project, path: `/projects/${project.id}/boards/${board.id}/lists`, labels }
  }

  describe('GET /projects/:id/boards', () => {
    it('creates the "Development" board on the first read of a project without one, with exactly the fields', async () => {
      const project = await makeProject(t, null)
      const path = `/projects/${project.id}/boards`
      const res = await t.api('GET', path)
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.length, 1)
      const [board] = res.body
      assert.deepEqual(keysOf(board), PROJECT_BOARD_FIELDS)
      assert.deepEqual(keysOf(board.project), BOARD_PROJECT_FIELDS)
      const fullPath = `root/${project.path}`
      assert.deepEqual(board, {
        id: board.id, name: 'Development', milestone: null, lists: [],
        project: {
          id: project.id, name: project.name, name_with_namespace: `Administrator / ${project.name}`, path: project.path,
          path_with_namespace: fullPath, http_url_to_repo: `http://ingot.test/${fullPath}.git`, web_url: `http://ingot.test/${fullPath}`,
        },
      })
      assert.deepEqual((await t.api('GET', path)).body.map((b: { id: number }) => b.id), [board.id])
      // The built-in backlog and closed lists exist, and never show.
      const builtIn = await t.ctx.db.selectFrom('board_lists').select('list_type').where('board_id', '=', board.id).orderBy('list_type').execute()
      assert.deepEqual(builtIn.map((list) => list.list_type), ['backlog', 'closed'])
    })

    it('creates only one default board when first reads come at once', async () => {
      const project = await makeProject(t, null)
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => t.api('GET', `/projects/${project.id}/boards`)))
      const ids = new Set(answers.flatMap((res) => res.body.map((board: { id: number }) => board.id)))
      assert.equal(ids.size, 1)
      const rows = await t.ctx.db.selectFrom('boards').select('id').where('project_id', '=', project.id).execute()
      assert.equal(rows.length, 1)
    })

    it('shows each board with its label lists by position and its milestone, paginated, in a fixed number of queries', async () => {
      const { project, labels } = await boardWithLists()
      const path = `/projects/${project.id}/boards`
      const milestone = await makeMilestone(t, projectOwner(project.id), 'Sprint')
      const [first] = (await t.api('GET', path)).body
      await t.api('PUT', `${path}/${first.id}`, { body: { milestone_id: milestone.id } })
      const list = () => t.api('GET', path)
      const one = await countQueries(t, list)
      const [board] = one.result.body
      assert.deepEqual(board.milestone, { id: milestone.id, title: 'Sprint' })
      assert.deepEqual(listsOf(board.lists), [['a', 0], ['b', 1], ['c', 2], ['d', 3]])
      for (const view of board.lists) assert.deepEqual(keysOf(view), LIST_FIELDS)
      assert.deepEqual(board.lists[0].label, { id: labels[0]?.id, name: 'a', color: '#428BCA', description: null })
      for (const name of ['Second', 'Third']) {
        const created = await t.api('POST', path, { body: { name } })
        await t.api('POST', `${path}/${created.body.id}/lists`, { body: { label_id: labels[1]?.id } })
      }
      const three = await countQueries(t, list)
      assert.deepEqual(three.result.body.map((b: { name: string }) => b.name), ['Development', 'Second', 'Third'])
      assert.deepEqual(listsOf(three.result.body[2].lists), [['b', 0]])
      assert.equal(three.queries, one.queries)
      const page = await expectPaginates({ t, path, token: t.root.token, total: 3 })
      assert.equal(page.body[0].name, 'Second')
      await expectRejectsBadPagination(t, path, t.root.token)
    })

    it('is for signed-in callers who can read the issues', async () => {
      await expectStatuses(m, (token) => t.api('GET', base, { token }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 200, reporter: 200, owner: 200, admin: 200,
      })
      const open = await makeProject(t, null, { visibility: 'public' })
      await expectStatuses(m, (token) => t.api('GET', `/projects/${open.id}/boards`, { token }), { anonymous: 401, nonMember: 200 })
      await t.ctx.db.updateTable('projects').set({ issues_enabled: 0 }).where('id', '=', open.id).execute()
      assert.equal((await t.api('GET', `/projects/${open.id}/boards`, { token: m.tokens.nonMember })).status, 403)
    })
  })

  describe('GET /projects/:id/boards/:board_id', () => {
    it("shows one of the project's boards; others are 404", async () => {
      const res = await t.api('GET', `${base}/${boardId}`, { token: m.tokens.guest })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(keysOf(res.body), PROJECT_BOARD_FIELDS)
      const other = (await t.api('GET', `/projects/${(await makeProject(t, null)).id}/boards`)).body[0]
      for (const id of [other.id, 99999999999]) {
        const missing = await t.api('GET', `${base}/${id}`)
        assert.deepEqual([missing.status, missing.body], [404, { message: '404 Board Not Found' }])
      }
      assert.deepEqual((await t.api('GET', `${base}/x`)).body, { error: 'board_id is invalid' })
      await expectStatuses(m, (token) => t.api('GET', `${base}/${boardId}`, { token }), { anonymous: 401, nonMember: 404, guest: 200 })
    })
  })

  describe('POST, PUT, DELETE /projects/:id/boards[/:board_id]', () => {
    it('creates a board (201), renames it and scopes it to a milestone of the project or its groups, and deletes it (204)', async () => {
      const created = await t.api('POST', base, { token: m.tokens.reporter, body: { name: ' Release ' } })
      assert.equal(created.status, 201, created.text)
      assert.deepEqual(keysOf(created.body), PROJECT_BOARD_FIELDS)
      assert.deepEqual([created.body.name, created.body.milestone, created.body.lists], ['Release', null, []])
      const path = `${base}/${created.body.id}`
      const ofProject = await makeMilestone(t, projectOwner(m.project.id), 'Board milestone')
      const ofGroup = await makeMilestone(t, groupOwner(m.group.id), 'Group board milestone')
      const renamed = await t.api('PUT', path, { token: m.tokens.reporter, body: { name: 'Renamed', milestone_id: ofProject.id } })
      assert.equal(renamed.status, 200, renamed.text)
      assert.deepEqual([renamed.body.name, renamed.body.milestone], ['Renamed', { id: ofProject.id, title: 'Board milestone' }])
      const grouped = await t.api('PUT', path, { token: m.tokens.reporter, body: { milestone_id: ofGroup.id } })
      assert.deepEqual(grouped.body.milestone, { id: ofGroup.id, title: 'Group board milestone' })
      for (const cleared of [null, 0]) {
        const res = await t.api('PUT', path, { token: m.tokens.reporter, body: { milestone_id: cleared } })
        assert.deepEqual([res.status, res.body.milestone, res.body.name], [200, null, 'Renamed'])
      }
      const deleted = await t.api('DELETE', path, { token: m.tokens.maintainer })
      assert.deepEqual([deleted.status, deleted.text], [204, ''])
      assert.equal((await t.api('GET', path)).status, 404)
    })

    it('refuses bad input', async () => {
      const elsewhere = await makeMilestone(t, projectOwner((await makeProject(t, null)).id), 'Elsewhere')
      const cases: [string, string, unknown, number, unknown][] = [
        ['POST', base, {}, 400, { error: 'name is missing' }],
        ['POST', base, { name: '  ' }, 400, { message: { name: ["can't be blank"] } }],
        ['PUT', `${base}/${boardId}`, {}, 400, { error: 'name, milestone_id are missing, at least one parameter must be provided' }],
        ['PUT', `${base}/${boardId}`, { name: '' }, 400, { message: { name: ["can't be blank"] } }],
        ['PUT', `${base}/${boardId}`, { milestone_id: elsewhere.id }, 404, { message: '404 Milestone Not Found' }],
        ['PUT', `${base}/${boardId}`, { milestone_id: 'x' }, 400, { error: 'milestone_id is invalid' }],
        ['PUT', `${base}/99999999`, { name: 'x' }, 404, { message: '404 Board Not Found' }],
        ['DELETE', `${base}/99999999`, undefined, 404, { message: '404 Board Not Found' }],
      ]
      for (const [method, path, body, status, expected] of cases) {
        const res = await t.api(method, path, { body })
        assert.deepEqual([res.status, res.body], [status, expected], `${method} ${JSON.stringify(body)}`)
      }
      const stale = await t.api('DELETE', `${base}/${boardId}`, { headers: { 'if-unmodified-since': new Date(0).toUTCString() } })
      assert.equal(stale.status, 412)
    })

    it('needs Reporter to create and change boards, Maintainer to delete them', async () => {
      await expectStatuses(m, (token) => t.api('POST', base, { token, body: { name: 'perm' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 201, admin: 201,
      })
      await expectStatuses(m, (token) => t.api('PUT', `${base}/${boardId}`, { token, body: { name: 'Development' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 200, admin: 200,
      })
      const boards: number[] = []
      for (let i = 0; i < 6; i += 1) boards.push((await t.api('POST', base, { body: { name: `doomed ${i}` } })).body.id)
      let n = 0
      await expectStatuses(m, (token) => t.api('DELETE', `${base}/${boards[n++]}`, { token }), {
        anonymous: 401, nonMember: 404, reporter: 403, developer: 403, maintainer: 204, owner: 204,
      })
    })
  })

  describe('board lists', () => {
    it('lists the label lists by position (paginated), and shows one', async () => {
      const { path } = await boardWithLists()
      const res = await t.api('GET', path)
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(listsOf(res.body), [['a', 0], ['b', 1], ['c', 2], ['d', 3]])
      for (const list of res.body) assert.deepEqual(keysOf(list), LIST_FIELDS)
      const page = await expectPaginates({ t, path, token: t.root.token, total: 4 })
      assert.deepEqual(listsOf(page.body), [['b', 1]])
      await expectRejectsBadPagination(t, path, t.root.token)
      const one = await t.api('GET', `${path}/${res.body[2].id}`)
      assert.deepEqual(one.body, res.body[2])
      const otherBoard = await boardWithLists()
      const foreign = (await t.api('GET', otherBoard.path)).body[0].id
      for (const id of [foreign, 99999999999]) {
        const missing = await t.api('GET', `${path}/${id}`)
        assert.deepEqual([missing.status, missing.body], [404, { message: '404 List Not Found' }])
      }
    })

    it('adds a list of a label of the project or its groups at the end (201); others are 404, a second list of a label 400', async () => {
      const parent = await makeGroup(t, {})
      const child = await makeGroup(t, { parent })
      const project = await makeProject(t, null, { namespace: child })
      const board = (await t.api('GET', `/projects/${project.id}/boards`)).body[0]
      const path = `/projects/${project.id}/boards/${board.id}/lists`
      const own = await makeLabel(t, projectOwner(project.id), 'own')
      const inherited = await makeLabel(t, groupOwner(parent.id), 'inherited')
      const foreign = await makeLabel(t, projectOwner((await makeProject(t, null)).id), 'foreign')
      const first = await t.api('POST', path, { body: { label_id: inherited.id } })
      assert.equal(first.status, 201, first.text)
      assert.deepEqual(first.body, { id: first.body.id, label: { id: inherited.id, name: 'inherited', color: '#428BCA', description: null }, position: 0 })
      const second = await t.api('POST', path, { body: { label_id: own.id } })
      assert.equal(second.body.position, 1)
      const cases: [unknown, number, unknown][] = [
        [{ label_id: foreign.id }, 404, { message: '404 Label Not Found' }],
        [{ label_id: 99999999999 }, 404, { message: '404 Label Not Found' }],
        [{ label_id: own.id }, 400, { message: { label_id: ['has already been taken'] } }],
        [{}, 400, { error: 'label_id is missing' }],
        [{ label_id: 'own' }, 400, { error: 'label_id is invalid' }],
      ]
      for (const [body, status, expected] of cases) {
        const res = await t.api('POST', path, { body })
        assert.deepEqual([res.status, res.body], [status, expected], JSON.stringify(body))
      }
    })

    it('moves a list to a position, the others closing ranks 0..n-1; a position off the board is 400', async () => {
      const { path } = await boardWithLists()
      const lists = (await t.api('GET', path)).body
      const moved = await t.api('PUT', `${path}/${lists[0].id}`, { body: { position: 2 } })
      assert.equal(moved.status, 200, moved.text)
      assert.deepEqual(listsOf([moved.body]), [['a', 2]])
      assert.deepEqual(listsOf((await t.api('GET', path)).body), [['b', 0], ['c', 1], ['a', 2], ['d', 3]])
      await t.api('PUT', `${path}/${lists[3].id}`, { form: 'position=0' })
      assert.deepEqual(listsOf((await t.api('GET', path)).body), [['d', 0], ['b', 1], ['c', 2], ['a', 3]])
      const unchanged = await t.api('PUT', `${path}/${lists[1].id}`, { body: { position: 1 } })
      assert.deepEqual([unchanged.status, unchanged.body.position], [200, 1])
      for (const position of [4, -1]) {
        const res = await t.api('PUT', `${path}/${lists[1].id}`, { body: { position } })
        assert.deepEqual([res.status, res.body], [400, { message: { error: 'List could not be moved!' } }], String(position))
      }
      assert.deepEqual((await t.api('PUT', `${path}/${lists[1].id}`, { body: {} })).body, { error: 'position is missing' })
      assert.equal((await t.api('PUT', `${path}/99999999`, { body: { position: 0 } })).status, 404)
    })

    it('soft-deletes a list (204): it leaves every view, the others close ranks, and its label may get a list again', async () => {
      const { path, labels } = await boardWithLists()
      const lists = (await t.api('GET', path)).body
      const res = await t.api('DELETE', `${path}/${lists[1].id}`)
      assert.deepEqual([res.status, res.text], [204, ''])
      assert.deepEqual(listsOf((await t.api('GET', path)).body), [['a', 0], ['c', 1], ['d', 2]])
      assert.equal((await t.api('GET', `${path}/${lists[1].id}`)).status, 404)
      assert.equal((await t.api('DELETE', `${path}/${lists[1].id}`)).status, 404)
      const row = await t.ctx.db.selectFrom('board_lists').selectAll().where('id', '=', lists[1].id).executeTakeFirstOrThrow()
      assert.ok(row.deleted_at !== null)
      assert.equal(row.position, null)
      const boardPath = path.replace(/\/lists$/, '')
      assert.deepEqual(listsOf((await t.api('GET', boardPath)).body.lists), [['a', 0], ['c', 1], ['d', 2]])
      const again = await t.api('POST', path, { body: { label_id: labels[1]?.id } })
      assert.deepEqual([again.status, again.body.position], [201, 3])
      const stale = await t.api('DELETE', `${path}/${lists[0].id}`, { headers: { 'if-unmodified-since': new Date(0).toUTCString() } })
      assert.equal(stale.status, 412)
    })

    it('lets Reporters add and move lists, and only the Owner and admins delete them', async () => {
      const labels: LabelRow[] = []
      for (let i = 0; i < 9; i += 1) labels.push(await makeLabel(t, projectOwner(m.project.id), `perm list ${i}`))
      const path = `${base}/${boardId}/lists`
      let n = 0
      await expectStatuses(m, (token) => t.api('POST', path, { token, body: { label_id: labels[n++]?.id } }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 403, reporter: 201, developer: 201, maintainer: 201, owner: 201, admin: 201,
      })
      const lists = (await t.api('GET', path, { query: { per_page: 100 } })).body
      await expectStatuses(m, (token) => t.api('GET', path, { token }), { anonymous: 401, nonMember: 404, guest: 200 })
      await expectStatuses(m, (token) => t.api('PUT', `${path}/${lists[0].id}`, { token, body: { position: 1 } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 200, admin: 200,
      })
      // The refused callers all aim at the first list, which the Owner then deletes; the admin the second.
      await expectStatuses(m, (token, persona) => t.api('DELETE', `${path}/${lists[persona === 'admin' ? 1 : 0].id}`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 403, owner: 204, admin: 204,
      })
    })
  })

  describe('malformed input', () => {
    it('is a clean 4xx: NUL characters, ids beyond the id columns, numbers too large to be finite', async () => {
      const cases: [string, string, unknown, number][] = [
        ['POST', base, { name: 'a\u0000b' }, 400],
        ['GET', `${base}/2147483648`, undefined, 404],
        ['PUT', `${base}/${boardId}`, { milestone_id: 2 ** 31 }, 404],
        ['PUT', `${base}/${boardId}`, { milestone_id: '1e309' }, 400],
        ['GET', `${base}/${boardId}/lists/99999999999999999999`, undefined, 404],
        ['POST', `${base}/${boardId}/lists`, { label_id: 2 ** 31 }, 404],
        ['PUT', `${base}/${boardId}/lists/1`, { position: '1e309' }, 400],
        ['DELETE', `/groups/${m.group.id}/boards/2147483648/lists/1`, undefined, 404],
      ]
      for (const [method, path, body, status] of cases) {
        const res = await t.api(method, path, { body })
        assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`)
      }
    })
  })

  describe('/groups/:id/boards', () => {
    let group: NamespaceRow
    let subgroup: NamespaceRow
    const members: Record<'guest' | 'reporter' | 'maintainer' | 'owner', TestUser | null> = { guest: null, reporter: null, maintainer: null, owner: null }
    const token = (role: keyof typeof members) => members[role]?.token ?? null

    before(async () => {
      group = await makeGroup(t, { visibility: 'private' })
      subgroup = await makeGroup(t, { parent: group, visibility: 'private' })
      for (const [role, level] of [['guest', GUEST], ['reporter', REPORTER], ['maintainer', MAINTAINER], ['owner', OWNER]] as const) {
        const user = await makeUser(t)
        await makeMember(t, { type: 'group', id: subgroup.id }, user, level)
        members[role] = user
      }
    })

    it('creates the default board on the first read, and boards and lists with labels of the group or its ancestors', async () => {
      const path = `/groups/${subgroup.id}/boards`
      const res = await t.api('GET', path, { token: token('guest') })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.length, 1)
      assert.deepEqual(keysOf(res.body[0]), GROUP_BOARD_FIELDS)
      assert.deepEqual(res.body[0], { id: res.body[0].id, name: 'Development', group_id: subgroup.id, milestone: null, lists: [] })
      const boardPath = `${path}/${res.body[0].id}`
      const ancestral = await makeLabel(t, groupOwner(group.id), 'ancestral')
      const own = await makeLabel(t, groupOwner(subgroup.id), 'own')
      const ofProject = await makeLabel(t, projectOwner((await makeProject(t, null, { namespace: subgroup })).id), 'project label')
      for (const label of [own, ancestral]) {
        const list = await t.api('POST', `${boardPath}/lists`, { token: token('reporter'), body: { label_id: label.id } })
        assert.equal(list.status, 201, list.text)
      }
      const refused = await t.api('POST', `${boardPath}/lists`, { token: token('reporter'), body: { label_id: ofProject.id } })
      assert.deepEqual([refused.status, refused.body], [404, { message: '404 Label Not Found' }])
      const milestone = await makeMilestone(t, groupOwner(group.id), 'Ancestral milestone')
      const changed = await t.api('PUT', boardPath, { token: token('reporter'), body: { name: 'Team', milestone_id: milestone.id } })
      assert.deepEqual(changed.body.milestone, { id: milestone.id, title: 'Ancestral milestone' })
      const shown = await t.api('GET', boardPath, { token: token('guest') })
      assert.deepEqual([shown.body.name, listsOf(shown.body.lists)], ['Team', [['own', 0], ['ancestral', 1]]])
      const lists = (await t.api('GET', `${boardPath}/lists`, { token: token('guest') })).body
      const moved = await t.api('PUT', `${boardPath}/lists/${lists[1].id}`, { token: token('reporter'), body: { position: 0 } })
      assert.equal(moved.body.position, 0)
      const created = await t.api('POST', path, { token: token('reporter'), body: { name: 'Second' } })
      assert.deepEqual([created.status, created.body.group_id], [201, subgroup.id])
      assert.equal((await t.api('GET', `/groups/${group.id}/boards/${created.body.id}`)).status, 404)
    })

    it('lets whoever sees the group read, Reporters change, Maintainers delete boards and Owners delete lists', async () => {
      const outsider = await makeUser(t)
      const path = `/groups/${subgroup.id}/boards`
      const board = (await t.api('GET', path)).body[0]
      const run = async (send: (who: string | null) => Promise<ApiResponse>, callers: (string | null)[]) => {
        const statuses: number[] = []
        for (const caller of callers) statuses.push((await send(caller)).status)
        return statuses
      }
      assert.deepEqual(await run((who) => t.api('GET', path, { token: who }), [null, outsider.token, token('guest')]), [401, 404, 200])
      assert.deepEqual(
        await run((who) => t.api('POST', path, { token: who, body: { name: 'x' } }), [outsider.token, token('guest'), token('reporter')]),
        [404, 403, 201],
      )
      const labels = await Promise.all(['l1', 'l2', 'l3'].map((title) => makeLabel(t, groupOwner(subgroup.id), title)))
      const lists: number[] = []
      for (const label of labels) lists.push((await t.api('POST', `${path}/${board.id}/lists`, { body: { label_id: label.id } })).body.id)
      assert.deepEqual(
        await run((who) => t.api('DELETE', `${path}/${board.id}/lists/${lists[0]}`, { token: who }), [token('reporter'), token('maintainer'), token('owner')]),
        [403, 403, 204],
      )
      assert.equal((await t.api('DELETE', `${path}/${board.id}/lists/${lists[1]}`)).status, 204)
      const doomed = (await t.api('POST', path, { body: { name: 'Doomed' } })).body.id
      assert.deepEqual(
        await run((who) => t.api('DELETE', `${path}/${doomed}`, { token: who }), [token('reporter'), token('maintainer')]),
        [403, 204],
      )
    })
  })
})
