// Labels (original 11.5 semantics, plus the group routes and the label-in-path routes of later
// releases): the list with the project's groups' labels and its counts, one label, create (colour
// names, 409 for a taken title), update and delete by name or id (query, body or path),
// subscriptions (201 / 304), who may do what, and bad input.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type ApiResponse, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import {
  groupOwner, makeIssue, makeLabel, makeMergeRequest, projectOwner,
} from '../helpers/collaboration-fixtures.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { DEVELOPER, GUEST, REPORTER } from '../../src/policies/access-levels.js'
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.js'

const LABEL_FIELDS = [
  'closed_issues_count', 'color', 'description', 'id', 'name', 'open_issues_count', 'open_merge_requests_count', 'priority',
  'subscribed',
]
const keysOf = (value: object) => Object.keys(value).sort()
const namesOf = (res: ApiResponse) => (res.body as { name: string }[]).map((label) => label.name)

describe('Labels API', () => {
  let t: TestApp
  let m: Matrix
  let base: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
    base = `/projects/${m.project.id}/labels`
  })
  after(async () => { await t.close() })

  /** A project in a subgroup, with labels of its own, of both groups and of unrelated owners. */
  async function labelledHierarchy() {
    const parent = await makeGroup(t, {})
    const child = await makeGroup(t, { parent })
    const project = await makeProject(t, null, { namespace: child })
    await makeLabel(t, projectOwner(project.id), 'beta')
    await makeLabel(t, groupOwner(child.id), 'alpha')
    await makeLabel(t, groupOwner(parent.id), 'gamma')
    await makeLabel(t, groupOwner((await makeGroup(t, {})).id), 'delta')
    await makeLabel(t, projectOwner((await makeProject(t, null, { namespace: child })).id), 'epsilon')
    return { parent, child, project }
  }

  describe('GET /projects/:id/labels', () => {
    it("lists the project's labels and those of its group and the group's ancestors, by title, with exactly the fields", async () => {
      const { project, child } = await labelledHierarchy()
      const res = await t.api('GET', `/projects/${project.id}/labels`)
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(namesOf(res), ['alpha', 'beta', 'gamma'])
      for (const label of res.body) assert.deepEqual(keysOf(label), LABEL_FIELDS)
      assert.deepEqual(res.body[1], {
        id: res.body[1].id, name: 'beta', color: '#428BCA', description: null, open_issues_count: 0, closed_issues_count: 0,
        open_merge_requests_count: 0, priority: null, subscribed: false,
      })
      // A title the project and its group share (the group's label came later) shows twice, the project's own first.
      const own = await makeLabel(t, projectOwner(project.id), 'zeta')
      const later = await makeLabel(t, groupOwner(child.id), 'zeta')
      const shared = await t.api('GET', `/projects/${project.id}/labels`)
      assert.deepEqual(namesOf(shared), ['alpha', 'beta', 'gamma', 'zeta', 'zeta'])
      assert.deepEqual([shared.body[3].id, shared.body[4].id], [own.id, later.id])
      const groupList = await t.api('GET', `/groups/${child.id}/labels`)
      assert.deepEqual(namesOf(groupList), ['alpha', 'gamma', 'zeta'])
    })

    it('counts the open and closed issues and the open merge requests the caller may see carrying each label', async () => {
      const counted = await makeLabel(t, projectOwner(m.project.id), 'counted')
      const other = await makeLabel(t, projectOwner(m.project.id), 'other')
      const authorId = m.users.owner.user.id
      await makeIssue(t, m.project.id, { authorId, labels: [counted, other] })
      await makeIssue(t, m.project.id, { authorId, labels: [counted], confidential: true })
      await makeIssue(t, m.project.id, { authorId, labels: [counted], state: 'closed' })
      await makeIssue(t, m.project.id, { authorId })
      await makeMergeRequest(t, m.project.id, { authorId, labels: [counted] })
      await makeMergeRequest(t, m.project.id, { authorId, labels: [counted], state: 'merged' })
      const countsFor = async (token: string | null) => {
        const res = await t.api('GET', base, { token, query: { per_page: 100 } })
        assert.equal(res.status, 200, res.text)
        const label = res.body.find((l: { name: string }) => l.name === 'counted')
        return [label.open_issues_count, label.closed_issues_count, label.open_merge_requests_count]
      }
      assert.deepEqual(await countsFor(m.tokens.reporter), [2, 1, 1])
      assert.deepEqual(await countsFor(m.tokens.admin), [2, 1, 1])
      // A Guest of a private project sees neither confidential issues nor merge requests (the code).
      assert.deepEqual(await countsFor(m.tokens.guest), [1, 1, 0])
    })

    it('pages, with the counts of a whole page in one query', async () => {
      const project = await makeProject(t, null)
      const path = `/projects/${project.id}/labels`
      for (const title of ['c', 'a', 'b']) await makeLabel(t, projectOwner(project.id), title)
      const page = await expectPaginates({ t, path, token: t.root.token, total: 3 })
      assert.deepEqual(namesOf(page), ['b'])
      await expectRejectsBadPagination(t, path, t.root.token)
      const list = () => t.api('GET', path)
      const few = await countQueries(t, list)
      for (const title of ['d', 'e', 'f', 'g']) {
        const label = await makeLabel(t, projectOwner(project.id), title)
        await makeIssue(t, project.id, { authorId: t.root.user.id, labels: [label] })
      }
      const many = await countQueries(t, list)
      assert.equal(many.result.body.length, 7)
      assert.equal(many.queries, few.queries)
    })

    it('is for signed-in callers who can read the issues or merge requests', async () => {
      await expectStatuses(m, (token) => t.api('GET', base, { token }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 200, reporter: 200, owner: 200, admin: 200,
      })
      const open = await makeProject(t, null, { visibility: 'public' })
      await expectStatuses(m, (token) => t.api('GET', `/projects/${open.id}/labels`, { token }), {
        anonymous: 401, nonMember: 200, external: 200,
      })
      await t.ctx.db.updateTable('projects').set({ issues_enabled: 0, merge_requests_enabled: 0 }).where('id', '=', open.id).execute()
      const disabled = await t.api('GET', `/projects/${open.id}/labels`, { token: m.tokens.nonMember })
      assert.equal(disabled.status, 403)
      const missing = await t.api('GET', '/projects/999999/labels')
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Project Not Found' }])
    })
  })

  describe('GET /projects/:id/labels/:label_id', () => {
    it('shows a label of the project or of its groups, by id or by URL-encoded name', async () => {
      const { project, parent } = await labelledHierarchy()
      const slashed = await makeLabel(t, projectOwner(project.id), 'area/ui')
      const byName = await t.api('GET', `/projects/${project.id}/labels/${encodeURIComponent('area/ui')}`)
      assert.equal(byName.status, 200, byName.text)
      assert.deepEqual(keysOf(byName.body), LABEL_FIELDS)
      assert.equal(byName.body.id, slashed.id)
      const byId = await t.api('GET', `/projects/${project.id}/labels/${slashed.id}`)
      assert.equal(byId.body.name, 'area/ui')
      const inherited = await t.api('GET', `/projects/${project.id}/labels/gamma`)
      assert.equal(inherited.status, 200)
      const groupLabel = await t.api('GET', `/groups/${parent.id}/labels/gamma`)
      assert.equal(groupLabel.body.id, inherited.body.id)
      for (const name of ['delta', 'epsilon', '99999999999']) {
        const res = await t.api('GET', `/projects/${project.id}/labels/${name}`)
        assert.deepEqual([res.status, res.body], [404, { message: '404 Label Not Found' }], name)
      }
    })
  })

  describe('POST /projects/:id/labels', () => {
    it('creates a label (201) with a hex colour or a CSS colour name, a description and a priority', async () => {
      const res = await t.api('POST', base, {
        token: m.tokens.reporter, body: { name: ' created ', color: '#FFAABB', description: 'Made here', priority: 3 },
      })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(res.body, {
        id: res.body.id, name: 'created', color: '#FFAABB', description: 'Made here', open_issues_count: 0, closed_issues_count: 0,
        open_merge_requests_count: 0, priority: 3, subscribed: false,
      })
      const named = await t.api('POST', base, { token: m.tokens.reporter, form: 'name=named&color=DarkRed' })
      assert.equal(named.status, 201, named.text)
      assert.equal(named.body.color, '#8B0000')
      const short = await t.api('POST', base, { token: m.tokens.reporter, body: { name: 'short', color: '#abc' } })
      assert.equal(short.body.color, '#abc')
      const row = await t.ctx.db.selectFrom('labels').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
      assert.deepEqual([row.project_id, row.group_id], [m.project.id, null])
    })

    it("is 409 for a title the project can use already, its own or its group's", async () => {
      await makeLabel(t, groupOwner(m.group.id), 'from-group')
      for (const name of ['created', 'from-group']) {
        const res = await t.api('POST', base, { token: m.tokens.reporter, body: { name, color: '#000000' } })
        assert.deepEqual([res.status, res.body], [409, { message: 'Label already exists' }], name)
      }
    })

    it('refuses bad input with 400', async () => {
      const cases: [unknown, unknown][] = [
        [{ color: '#000000' }, { error: 'name is missing' }],
        [{ name: 'x' }, { error: 'color is missing' }],
        [{ name: 'bad-color', color: '#12345' }, { message: { color: ['must be a valid color code'] } }],
        [{ name: 'bad-color', color: 'constructor' }, { message: { color: ['must be a valid color code'] } }],
        [{ name: 'a,b', color: '#000000' }, { message: { title: ['is invalid'] } }],
        [{ name: '  ', color: 'nope' }, { message: { title: ["can't be blank"], color: ['must be a valid color code'] } }],
        [{ name: 'negative', color: 'red', priority: -1 }, { message: { priority: ['must be greater than or equal to 0'] } }],
        [{ name: 'x', color: 'red', priority: 'high' }, { error: 'priority is invalid' }],
        [{ name: 'x', color: 'red', priority: 2 ** 31 }, { error: 'priority is invalid' }],
      ]
      for (const [body, expected] of cases) {
        const res = await t.api('POST', base, { token: m.tokens.reporter, body })
        assert.deepEqual([res.status, res.body], [400, expected], JSON.stringify(body))
      }
    })

    it('needs Reporter', async () => {
      let n = 0
      await expectStatuses(m, (token) => t.api('POST', base, { token, body: { name: `perm-${n++}`, color: 'red' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 201, developer: 201, maintainer: 201, owner: 201, admin: 201,
      })
    })
  })

  describe('PUT /projects/:id/labels', () => {
    it('changes the name, colour, description and priority of a label named by `name` or `label_id`', async () => {
      const label = await makeLabel(t, projectOwner(m.project.id), 'to-change')
      const res = await t.api('PUT', base, {
        token: m.tokens.reporter, body: { name: 'to-change', new_name: 'changed', color: 'blue', description: 'Now', priority: 1 },
      })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(
        [res.body.id, res.body.name, res.body.color, res.body.description, res.body.priority],
        [label.id, 'changed', '#0000FF', 'Now', 1],
      )
      const byId = await t.api('PUT', base, { token: m.tokens.reporter, body: { label_id: label.id, priority: null } })
      assert.equal(byId.status, 200, byId.text)
      assert.equal(byId.body.priority, null)
      assert.equal(byId.body.name, 'changed')
      const form = await t.api('PUT', base, { token: m.tokens.reporter, form: 'name=changed&description=From+a+form' })
      assert.equal(form.body.description, 'From a form')
    })

    it('takes the label in the path too, by id or name', async () => {
      const label = await makeLabel(t, projectOwner(m.project.id), 'in/path')
      const res = await t.api('PUT', `${base}/${encodeURIComponent('in/path')}`, { token: m.tokens.reporter, body: { color: '#111111' } })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.color, '#111111')
      const byId = await t.api('PUT', `${base}/${label.id}`, { token: m.tokens.reporter, body: { new_name: 'in/path2' } })
      assert.equal(byId.body.name, 'in/path2')
    })

    it('refuses bad input: no change, no label or both, an unknown or inherited label, a taken name, a bad colour', async () => {
      await makeLabel(t, projectOwner(m.project.id), 'taken')
      await makeLabel(t, projectOwner(m.project.id), 'mine')
      await makeLabel(t, groupOwner(m.group.id), 'inherited')
      const cases: [unknown, number, unknown][] = [
        [{ name: 'mine' }, 400, { error: 'new_name, color, description, priority are missing, at least one parameter must be provided' }],
        [{ color: 'red' }, 400, { error: 'label_id, name are missing, exactly one parameter must be provided' }],
        [{ name: 'mine', label_id: 1, color: 'red' }, 400, { error: 'label_id, name are mutually exclusive' }],
        [{ name: 'nope', color: 'red' }, 404, { message: 'Label not found' }],
        [{ name: 'inherited', color: 'red' }, 404, { message: 'Label not found' }],
        [{ name: 'mine', new_name: 'taken' }, 400, { message: { title: ['has already been taken'] } }],
        [{ name: 'mine', new_name: 'a,b' }, 400, { message: { title: ['is invalid'] } }],
        [{ name: 'mine', color: 'rouge' }, 400, { message: { color: ['must be a valid color code'] } }],
      ]
      for (const [body, status, expected] of cases) {
        const res = await t.api('PUT', base, { token: m.tokens.reporter, body })
        assert.deepEqual([res.status, res.body], [status, expected], JSON.stringify(body))
      }
      const path = await t.api('PUT', `${base}/nope`, { token: m.tokens.reporter, body: { color: 'red' } })
      assert.deepEqual([path.status, path.body], [404, { message: 'Label not found' }])
    })

    it('needs Reporter', async () => {
      await makeLabel(t, projectOwner(m.project.id), 'guarded')
      await expectStatuses(m, (token) => t.api('PUT', base, { token, body: { name: 'guarded', description: 'x' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 200, admin: 200,
      })
    })
  })

  describe('DELETE /projects/:id/labels', () => {
    it('deletes a label named in the query, the body or the path (204), with its links, subscriptions and board lists', async () => {
      const project = await makeProject(t, null)
      const owner = projectOwner(project.id)
      const [first, second, third, kept] = [
        await makeLabel(t, owner, 'first'), await makeLabel(t, owner, 'second'), await makeLabel(t, owner, 'third'),
        await makeLabel(t, owner, 'kept'),
      ]
      const issue = await makeIssue(t, project.id, { authorId: t.root.user.id, labels: [first, kept] })
      await t.api('POST', `/projects/${project.id}/labels/first/subscribe`)
      const board = (await t.api('GET', `/projects/${project.id}/boards`)).body[0]
      for (const label of [first, kept]) await t.api('POST', `/projects/${project.id}/boards/${board.id}/lists`, { body: { label_id: label.id } })

      const byQuery = await t.api('DELETE', `/projects/${project.id}/labels`, { query: { name: 'first' } })
      assert.equal(byQuery.status, 204, byQuery.text)
      assert.equal(byQuery.text, '')
      const links = await t.ctx.db.selectFrom('label_links').select('label_id').where('target_id', '=', issue.id).execute()
      assert.deepEqual(links.map((link) => link.label_id), [kept.id])
      const subscriptions = await t.ctx.db.selectFrom('subscriptions').select('id').where('subscribable_id', '=', first.id).execute()
      assert.deepEqual(subscriptions, [])
      const lists = await t.api('GET', `/projects/${project.id}/boards/${board.id}/lists`)
      assert.deepEqual(lists.body.map((list: { label: { name: string }; position: number }) => [list.label.name, list.position]), [['kept', 0]])

      const byBody = await t.api('DELETE', `/projects/${project.id}/labels`, { body: { label_id: second.id } })
      assert.equal(byBody.status, 204)
      const byPath = await t.api('DELETE', `/projects/${project.id}/labels/${third.id}`)
      assert.equal(byPath.status, 204)
      assert.deepEqual(namesOf(await t.api('GET', `/projects/${project.id}/labels`)), ['kept'])
    })

    it('answers 404 for unknown or inherited labels, 400 without a label, 412 when changed since', async () => {
      await makeLabel(t, groupOwner(m.group.id), 'group-only')
      await makeLabel(t, projectOwner(m.project.id), 'stale')
      for (const query of [{ name: 'nope' }, { name: 'group-only' }, { label_id: 99999999999 }] as Record<string, string | number>[]) {
        const res = await t.api('DELETE', base, { token: m.tokens.reporter, query })
        assert.deepEqual([res.status, res.body], [404, { message: '404 Label Not Found' }], JSON.stringify(query))
      }
      const none = await t.api('DELETE', base, { token: m.tokens.reporter })
      assert.deepEqual([none.status, none.body], [400, { error: 'label_id, name are missing, exactly one parameter must be provided' }])
      const stale = await t.api('DELETE', base, {
        token: m.tokens.reporter, query: { name: 'stale' }, headers: { 'if-unmodified-since': new Date(0).toUTCString() },
      })
      assert.equal(stale.status, 412)
    })

    it('needs Reporter', async () => {
      let n = 0
      const names = ['d0', 'd1', 'd2', 'd3', 'd4', 'd5']
      for (const name of names) await makeLabel(t, projectOwner(m.project.id), name)
      await expectStatuses(m, (token) => t.api('DELETE', base, { token, query: { name: names[n++] ?? 'x' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 204, admin: 204,
      })
    })
  })

  describe('POST /projects/:id/labels/:label_id/subscribe and unsubscribe', () => {
    it('subscribes (201 with subscribed true), 304 when subscribed already; unsubscribes alike; per project', async () => {
      const label = await makeLabel(t, groupOwner(m.group.id), 'watched')
      const path = `${base}/watched`
      const subscribed = await t.api('POST', `${path}/subscribe`, { token: m.tokens.guest })
      assert.equal(subscribed.status, 201, subscribed.text)
      assert.deepEqual(keysOf(subscribed.body), LABEL_FIELDS)
      assert.equal(subscribed.body.subscribed, true)
      const again = await t.api('POST', `${base}/${label.id}/subscribe`, { token: m.tokens.guest })
      assert.deepEqual([again.status, again.text], [304, ''])
      const listed = await t.api('GET', base, { token: m.tokens.guest, query: { per_page: 100 } })
      assert.equal(listed.body.find((l: { name: string }) => l.name === 'watched').subscribed, true)
      // Someone else, and the group's own label list, see no subscription.
      const others = await t.api('GET', `${base}/watched`, { token: m.tokens.reporter })
      assert.equal(others.body.subscribed, false)
      const inGroup = await t.api('GET', `/groups/${m.group.id}/labels/watched`, { token: m.tokens.owner })
      assert.equal(inGroup.body.subscribed, false)

      const unsubscribed = await t.api('POST', `${path}/unsubscribe`, { token: m.tokens.guest })
      assert.equal(unsubscribed.status, 201)
      assert.equal(unsubscribed.body.subscribed, false)
      const twice = await t.api('POST', `${path}/unsubscribe`, { token: m.tokens.guest })
      assert.equal(twice.status, 304)
      const resubscribed = await t.api('POST', `${path}/subscribe`, { token: m.tokens.guest })
      assert.equal(resubscribed.body.subscribed, true)
    })

    it('answers 404 for an unknown label and follows the readers of the project', async () => {
      const res = await t.api('POST', `${base}/nope/subscribe`)
      assert.deepEqual([res.status, res.body], [404, { message: '404 Label Not Found' }])
      await makeLabel(t, projectOwner(m.project.id), 'for-everyone')
      await expectStatuses(m, (token) => t.api('POST', `${base}/for-everyone/subscribe`, { token }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 201, reporter: 201, admin: 201,
      })
    })
  })

  describe('malformed input', () => {
    it('is a clean 4xx: NUL characters, ids beyond the id columns, numbers too large to be finite', async () => {
      await makeLabel(t, projectOwner(m.project.id), 'sturdy')
      const cases: [string, string, unknown, number][] = [
        ['POST', base, { name: 'a\u0000b', color: 'red' }, 400],
        ['POST', base, { name: 'big', color: 'red', priority: '1e309' }, 400],
        ['PUT', base, { name: 'sturdy', description: 'x\u0000' }, 400],
        ['PUT', base, { label_id: 2 ** 31, color: 'red' }, 404],
        ['GET', `${base}/2147483648`, undefined, 404],
        ['GET', `${base}/${encodeURIComponent('a\u0000')}`, undefined, 400],
        ['DELETE', `${base}/99999999999999999999`, undefined, 404],
        ['POST', `${base}/2147483648/subscribe`, undefined, 404],
        ['GET', '/projects/2147483648/labels', undefined, 404],
      ]
      for (const [method, path, body, status] of cases) {
        const res = await t.api(method, path, { body })
        assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`)
      }
    })
  })

  describe('/groups/:id/labels', () => {
    let group: NamespaceRow
    let project: ProjectRow
    const members: Record<'guest' | 'reporter' | 'developer', TestUser | null> = { guest: null, reporter: null, developer: null }

    before(async () => {
      group = await makeGroup(t, { visibility: 'private' })
      project = await makeProject(t, null, { namespace: group })
      for (const [role, level] of [['guest', GUEST], ['reporter', REPORTER], ['developer', DEVELOPER]] as const) {
        const user = await makeUser(t)
        await makeMember(t, { type: 'group', id: group.id }, user, level)
        members[role] = user
      }
    })

    const token = (role: keyof typeof members) => members[role]?.token ?? null

    it("creates, lists, changes and deletes the group's labels, which its projects then use", async () => {
      const created = await t.api('POST', `/groups/${group.id}/labels`, { token: token('reporter'), body: { name: 'shared', color: 'green' } })
      assert.equal(created.status, 201, created.text)
      assert.equal(created.body.color, '#008000')
      const row = await t.ctx.db.selectFrom('labels').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow()
      assert.deepEqual([row.project_id, row.group_id], [null, group.id])
      assert.deepEqual(namesOf(await t.api('GET', `/projects/${project.id}/labels`)), ['shared'])
      const taken = await t.api('POST', `/projects/${project.id}/labels`, { body: { name: 'shared', color: 'red' } })
      assert.equal(taken.status, 409)
      const listed = await t.api('GET', `/groups/${group.id}/labels`, { token: token('guest') })
      assert.deepEqual(namesOf(listed), ['shared'])
      const changed = await t.api('PUT', `/groups/${group.id}/labels`, { token: token('reporter'), body: { name: 'shared', new_name: 'common' } })
      assert.equal(changed.body.name, 'common')
      const subscribed = await t.api('POST', `/groups/${group.id}/labels/common/subscribe`, { token: token('guest') })
      assert.equal(subscribed.body.subscribed, true)
      const deleted = await t.api('DELETE', `/groups/${group.id}/labels/common`, { token: token('reporter') })
      assert.equal(deleted.status, 204)
      assert.deepEqual(namesOf(await t.api('GET', `/groups/${group.id}/labels`)), [])
    })

    it('lets whoever sees the group read and its Reporters write; a private group is 404 to others', async () => {
      const outsider = await makeUser(t)
      const read = async (who: string | null) => (await t.api('GET', `/groups/${group.id}/labels`, { token: who })).status
      assert.deepEqual(
        [await read(null), await read(outsider.token), await read(token('guest')), await read(t.root.token)],
        [401, 404, 200, 200],
      )
      const write = async (who: string | null, name: string) =>
        (await t.api('POST', `/groups/${group.id}/labels`, { token: who, body: { name, color: 'red' } })).status
      assert.deepEqual(
        [await write(outsider.token, 'w1'), await write(token('guest'), 'w2'), await write(token('developer'), 'w3')],
        [404, 403, 201],
      )
    })
  })
})
