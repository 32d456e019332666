// Contribution events: GET /events, /users/:id/events and /projects/:id/events — the entity and its
// action names, push_data, every filter, ordering, pagination, scopes, and what each caller may see.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CompiledQuery, sql } from 'kysely'
import { buildTestApp, EXTERNAL_URL, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeToken, makeUser, type TestUser } from '../helpers/factories.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import type { EventAction, ProjectRow } from '../../src/db/schema.js'
import { startOfDate, today } from '../../src/db/values.js'
import { recordEvent, type NewEvent, type PushData } from '../../src/services/events/record-event.js'
import { findProjectEvents, findUserEvents } from '../../src/finders/events-finder.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'

const DAY_MS = 24 * 60 * 60 * 1000
const SHA_A = 'a'.repeat(40)
const SHA_B = 'b'.repeat(40)

interface EventBody {
  action_name: string
  project_id: number | null
  target_type: string | null
  created_at: string
  push_data?: PushData
}

describe('events', () => {
  let t: TestApp
  let alice: TestUser
  let bob: TestUser
  let carol: TestUser
  let privateProject: ProjectRow
  let publicProject: ProjectRow

  const record = (author: TestUser, event: Omit<NewEvent, 'authorId'>) => recordEvent(t.ctx.db, { authorId: author.user.id, ...event })
  const actionsOf = (body: EventBody[]) => body.map((e) => e.action_name)
  const push = (action: PushData['action'], from: string | null, to: string | null): PushData => ({
    commit_count: action === 'removed' ? 0 : 2, action, ref_type: 'branch', commit_from: from, commit_to: to, ref: 'main',
    commit_title: action === 'removed' ? null : 'Add the readme',
  })

  before(async () => {
    t = await buildTestApp()
    alice = await makeUser(t)
    bob = await makeUser(t)
    carol = await makeUser(t)
    privateProject = await makeProject(t, alice, { visibility: 'private' })
    publicProject = await makeProject(t, alice, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: privateProject.id }, carol, DEVELOPER)
  })
  after(async () => { await t.close() })

  describe('the Event entity', () => {
    it('shows every field of a project creation', async () => {
      const author = await makeUser(t)
      const project = await makeProject(t, author)
      const res = await t.api('GET', '/events', { token: author.token })
      assert.equal(res.status, 200, res.text)
      const created = await t.ctx.db.selectFrom('events').selectAll().where('author_id', '=', author.user.id).executeTakeFirstOrThrow()
      assert.deepEqual(res.body, [{
        title: null,
        project_id: project.id,
        action_name: 'created',
        target_id: null,
        target_iid: null,
        target_type: null,
        author_id: author.user.id,
        target_title: null,
        created_at: new Date(created.created_at).toISOString(),
        author: {
          id: author.user.id, name: author.user.name, username: author.user.username, state: 'active',
          avatar_url: null, web_url: `${EXTERNAL_URL}/${author.user.username}`,
        },
        author_username: author.user.username,
        data: null,
      }])
    })

    it('words action_name as the original and shows targets', async () => {
      // An administrator, who sees events whatever their targets (these are made up).
      const author = await makeUser(t, { admin: true })
      const project = await makeProject(t, author, { visibility: 'public' })
      const base = Date.now() - 3600_000
      const cases: [Omit<NewEvent, 'authorId' | 'projectId' | 'createdAt'>, string][] = [
        [{ action: 'created', target: { type: 'Issue', id: 71, iid: 3, title: 'Broken link' } }, 'opened'],
        [{ action: 'updated', target: { type: 'Issue', id: 71, iid: 3, title: 'Broken link' } }, 'opened'],
        [{ action: 'closed', target: { type: 'Issue', id: 71, iid: 3, title: 'Broken link' } }, 'closed'],
        [{ action: 'reopened', target: { type: 'Issue', id: 71, iid: 3, title: 'Broken link' } }, 'opened'],
        [{ action: 'merged', target: { type: 'MergeRequest', id: 12, iid: 1, title: 'Fix it' } }, 'accepted'],
        [{ action: 'commented', target: { type: 'Note', id: 501, title: null } }, 'commented on'],
        [{ action: 'destroyed', target: { type: 'Milestone', id: 8, iid: 2, title: 'v1' } }, 'destroyed'],
        [{ action: 'joined' }, 'joined'],
        [{ action: 'left' }, 'left'],
        [{ action: 'expired' }, 'removed due to membership expiration from'],
        [{ action: 'pushed', pushData: push('pushed', SHA_A, SHA_B) }, 'pushed to'],
        [{ action: 'pushed', pushData: push('created', null, SHA_B) }, 'pushed new'],
        [{ action: 'pushed', pushData: push('removed', SHA_A, null) }, 'deleted'],
      ]
      for (const [i, [event]] of cases.entries()) await record(author, { ...event, projectId: project.id, createdAt: base + i })
      const res = await t.api('GET', '/events', { token: author.token, query: { sort: 'asc', per_page: 100 } })
      assert.deepEqual(actionsOf(res.body), [...cases.map(([, name]) => name), 'created'])

      const issue = res.body[0]
      assert.deepEqual([issue.target_type, issue.target_id, issue.target_iid, issue.target_title], ['Issue', 71, 3, 'Broken link'])
      const note = res.body[5]
      assert.deepEqual([note.target_type, note.target_id, note.target_iid, note.target_title], ['Note', 501, 501, null])
      assert.equal('note' in note, false)
    })

    it('shows push_data on push events only', async () => {
      const author = await makeUser(t)
      const project = await makeProject(t, author)
      await record(author, { action: 'pushed', projectId: project.id, pushData: push('pushed', SHA_A, SHA_B) })
      const res = await t.api('GET', `/projects/${project.id}/events`, { token: author.token })
      assert.deepEqual(res.body[0].push_data, {
        commit_count: 2, action: 'pushed', ref_type: 'branch', commit_from: SHA_A, commit_to: SHA_B, ref: 'main', commit_title: 'Add the readme',
      })
      assert.equal(res.body[0].action_name, 'pushed to')
      assert.equal('push_data' in res.body[1], false)
    })
  })

  describe('GET /events', () => {
    it('lists the caller’s own events, newest first, with pagination headers', async () => {
      const author = await makeUser(t)
      const project = await makeProject(t, author)
      for (const action of ['joined', 'left', 'joined'] as const) await record(author, { action, projectId: project.id })
      const res = await t.api('GET', '/events', { token: author.token })
      assert.deepEqual(actionsOf(res.body), ['joined', 'left', 'joined', 'created'])
      assert.ok(res.body.every((e: { author_id: number }) => e.author_id === author.user.id))
      await expectPaginates({ t, path: '/events', token: author.token, total: 4 })
      await expectRejectsBadPagination(t, '/events', author.token)
    })

    it('needs a caller, and takes read_user tokens', async () => {
      const res = await t.api('GET', '/events', { token: null })
      assert.deepEqual([res.status, res.body], [401, { message: '401 Unauthorized' }])
      const readUser = await makeToken(t, alice.user.id, ['read_user'])
      assert.equal((await t.api('GET', '/events', { token: readUser.token })).status, 200)
      const readRepository = await makeToken(t, alice.user.id, ['read_repository'])
      const refused = await t.api('GET', '/events', { token: readRepository.token })
      assert.equal(refused.status, 403)
      assert.equal(refused.body.error, 'insufficient_scope')
      assert.equal(refused.body.scope, 'api read_user')
    })

    it('leaves out events of projects the caller can no longer see', async () => {
      const author = await makeUser(t)
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      await makeMember(t, { type: 'project', id: project.id }, author, DEVELOPER)
      assert.deepEqual(actionsOf((await t.api('GET', '/events', { token: author.token })).body), ['joined'])
      await t.api('DELETE', `/projects/${project.id}/members/${author.user.id}`, { token: author.token })
      assert.deepEqual((await t.api('GET', '/events', { token: author.token })).body, [])
    })
  })

  describe('filters', () => {
    let author: TestUser
    let project: ProjectRow
    const day = today(Date.now() - 10 * DAY_MS)
    const start = startOfDate(day)

    before(async () => {
      // An administrator, who sees events whatever their targets (these are made up).
      author = await makeUser(t, { admin: true })
      project = await makeProject(t, author, { visibility: 'public' })
      await t.ctx.db.deleteFrom('events').where('author_id', '=', author.user.id).execute()
      await record(author, { action: 'created', projectId: project.id, target: { type: 'Issue', id: 1, iid: 1, title: 'a' }, createdAt: start })
      await record(author, { action: 'closed', projectId: project.id, target: { type: 'Issue', id: 1, iid: 1, title: 'a' }, createdAt: start + DAY_MS - 1 })
      await record(author, { action: 'created', projectId: project.id, target: { type: 'Milestone', id: 4, iid: 1, title: 'm' }, createdAt: start + DAY_MS })
      await record(author, { action: 'commented', projectId: project.id, target: { type: 'Note', id: 9 }, createdAt: start + 2 * DAY_MS + 43_200_000 })
      await record(author, { action: 'joined', projectId: project.id, createdAt: start + 3 * DAY_MS })
    })

    const paths = () => [`/events`, `/users/${author.user.id}/events`, `/projects/${project.id}/events`]
    const list = async (path: string, query: Record<string, string>) => {
      const res = await t.api('GET', path, { token: author.token, query })
      assert.equal(res.status, 200, res.text)
      return res.body as (EventBody & { target_id: number | null })[]
    }

    it('filters by action', async () => {
      for (const path of paths()) {
        assert.deepEqual(actionsOf(await list(path, { action: 'created' })), ['opened', 'opened'])
        assert.deepEqual(actionsOf(await list(path, { action: 'commented' })), ['commented on'])
        assert.deepEqual(await list(path, { action: 'merged' }), [])
      }
    })

    it('accepts every action of the spec, and refuses others', async () => {
      const actions: EventAction[] = ['created', 'updated', 'closed', 'reopened', 'pushed', 'commented', 'merged', 'joined', 'left', 'destroyed', 'expired']
      for (const action of actions) assert.equal((await t.api('GET', '/events', { token: author.token, query: { action } })).status, 200)
      for (const path of paths()) {
        const res = await t.api('GET', path, { token: author.token, query: { action: 'exploded' } })
        assert.deepEqual([res.status, res.body], [400, { error: 'action is invalid' }])
      }
    })

    it('filters by target_type, mapping the lowercase values to class names', async () => {
      for (const path of paths()) {
        assert.deepEqual((await list(path, { target_type: 'issue' })).map((e) => e.target_type), ['Issue', 'Issue'])
        assert.deepEqual((await list(path, { target_type: 'milestone' })).map((e) => e.target_type), ['Milestone'])
        assert.deepEqual((await list(path, { target_type: 'note' })).map((e) => e.target_type), ['Note'])
        assert.deepEqual(await list(path, { target_type: 'merge_request' }), [])
        const res = await t.api('GET', path, { token: author.token, query: { target_type: 'Issue' } })
        assert.deepEqual([res.status, res.body], [400, { error: 'target_type is invalid' }])
      }
      for (const targetType of ['issue', 'milestone', 'merge_request', 'note', 'project', 'snippet', 'user']) {
        assert.equal((await t.api('GET', '/events', { token: author.token, query: { target_type: targetType } })).status, 200)
      }
    })

    it('filters by whole days: before the start of `before`, after the end of `after`', async () => {
      const next = today(start + DAY_MS)
      const third = today(start + 2 * DAY_MS)
      for (const path of paths()) {
        assert.deepEqual(actionsOf(await list(path, { before: next })), ['closed', 'opened'])
        assert.deepEqual(actionsOf(await list(path, { before: day })), [])
        assert.deepEqual(actionsOf(await list(path, { after: day })), ['joined', 'commented on', 'opened'])
        assert.deepEqual(actionsOf(await list(path, { after: day, before: third })), ['opened'])
        assert.deepEqual(actionsOf(await list(path, { after: third })), ['joined'])
        for (const bad of [{ before: '2020-02-30' }, { after: 'yesterday' }] as Record<string, string>[]) {
          const res = await t.api('GET', path, { token: author.token, query: bad })
          assert.equal(res.status, 400)
          assert.deepEqual(res.body, { error: `${Object.keys(bad)[0]} is invalid` })
        }
      }
    })

    it('sorts by created_at, newest first unless sort=asc', async () => {
      const newestFirst = ['joined', 'commented on', 'opened', 'closed', 'opened']
      for (const path of paths()) {
        assert.deepEqual(actionsOf(await list(path, {})), newestFirst)
        assert.deepEqual(actionsOf(await list(path, { sort: 'desc' })), newestFirst)
        assert.deepEqual(actionsOf(await list(path, { sort: 'asc' })), [...newestFirst].reverse())
        const res = await t.api('GET', path, { token: author.token, query: { sort: 'up' } })
        assert.deepEqual([res.status, res.body], [400, { error: 'sort is invalid' }])
      }
    })

    it('breaks created_at ties by id', async () => {
      const tied = await makeUser(t)
      const at = Date.now() - 5000
      for (const action of ['joined', 'left', 'expired'] as const) await record(tied, { action, projectId: publicProject.id, createdAt: at })
      const desc = await t.api('GET', `/users/${tied.user.id}/events`, { token: null })
      assert.deepEqual(actionsOf(desc.body), ['removed due to membership expiration from', 'left', 'joined'])
      const asc = await t.api('GET', `/users/${tied.user.id}/events`, { token: null, query: { sort: 'asc' } })
      assert.deepEqual(actionsOf(asc.body), ['joined', 'left', 'removed due to membership expiration from'])
    })

    it('combines filters with pagination', async () => {
      for (const path of paths()) {
        await expectPaginates({ t, path: `${path}?after=${day}`, token: author.token, total: 3 })
      }
    })
  })

  describe('GET /users/:id/events', () => {
    let author: TestUser

    before(async () => {
      author = await makeUser(t)
      await makeMember(t, { type: 'project', id: privateProject.id }, author, DEVELOPER)
      await makeMember(t, { type: 'project', id: publicProject.id }, author, DEVELOPER)
      await record(author, { action: 'left', projectId: null })
    })

    const projectsSeenBy = async (token: string | null) => {
      const res = await t.api('GET', `/users/${author.user.id}/events`, { token })
      assert.equal(res.status, 200, res.text)
      return res.body.map((e: EventBody) => e.project_id)
    }

    it('finds the user by id or username', async () => {
      const byId = await t.api('GET', `/users/${author.user.id}/events`, { token: alice.token })
      const byName = await t.api('GET', `/users/${author.user.username.toUpperCase()}/events`, { token: alice.token })
      assert.equal(byId.status, 200)
      assert.deepEqual(byName.body, byId.body)
      assert.deepEqual(actionsOf(byId.body), ['left', 'joined', 'joined'])
    })

    it('is 404 for an unknown user', async () => {
      for (const id of ['999999', 'no-such-user']) {
        const res = await t.api('GET', `/users/${id}/events`)
        assert.deepEqual([res.status, res.body], [404, { message: '404 User Not Found' }])
      }
    })

    it('shows each caller only events of projects they may see, and those without a project', async () => {
      assert.deepEqual(await projectsSeenBy(null), [null, publicProject.id])
      assert.deepEqual(await projectsSeenBy(bob.token), [null, publicProject.id])
      assert.deepEqual(await projectsSeenBy(carol.token), [null, publicProject.id, privateProject.id])
      assert.deepEqual(await projectsSeenBy(t.root.token), [null, publicProject.id, privateProject.id])
    })

    it('hides a private profile’s events from everyone but its owner and administrators', async () => {
      const secretive = await makeUser(t, { private_profile: true })
      await record(secretive, { action: 'joined', projectId: publicProject.id })
      const seen = async (token: string | null) => (await t.api('GET', `/users/${secretive.user.id}/events`, { token })).body.length
      assert.deepEqual([await seen(null), await seen(bob.token), await seen(secretive.token), await seen(t.root.token)], [0, 0, 1, 1])
    })

    it('takes read_user tokens and anonymous callers, and paginates', async () => {
      const readUser = await makeToken(t, bob.user.id, ['read_user'])
      assert.equal((await t.api('GET', `/users/${author.user.id}/events`, { token: readUser.token })).status, 200)
      await expectPaginates({ t, path: `/users/${author.user.id}/events`, token: carol.token, total: 3 })
      await expectRejectsBadPagination(t, `/users/${author.user.id}/events`, null)
    })
  })

  describe('GET /projects/:id/events', () => {
    it('lists the project’s events to anyone who may see it', async () => {
      const res = await t.api('GET', `/projects/${publicProject.id}/events`, { token: null })
      assert.equal(res.status, 200)
      assert.ok(res.body.length >= 1)
      assert.ok(res.body.every((e: EventBody) => e.project_id === publicProject.id))
      const byPath = await t.api('GET', `/projects/${encodeURIComponent(`${alice.user.username}/${publicProject.path}`)}/events`, { token: null })
      assert.deepEqual(byPath.body, res.body)
    })

    it('is 404 for a private project the caller cannot see', async () => {
      for (const token of [null, bob.token]) {
        const res = await t.api('GET', `/projects/${privateProject.id}/events`, { token })
        assert.deepEqual([res.status, res.body], [404, { message: '404 Project Not Found' }])
      }
      const member = await t.api('GET', `/projects/${privateProject.id}/events`, { token: carol.token })
      assert.equal(member.status, 200)
      assert.deepEqual(actionsOf(member.body).slice(-2), ['joined', 'created'])
      const readUser = await makeToken(t, carol.user.id, ['read_user'])
      assert.equal((await t.api('GET', `/projects/${privateProject.id}/events`, { token: readUser.token })).status, 200)
    })

    it('paginates', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner)
      for (const user of [await makeUser(t), await makeUser(t)]) await makeMember(t, { type: 'project', id: project.id }, user, DEVELOPER)
      await expectPaginates({ t, path: `/projects/${project.id}/events`, token: owner.token, total: 3 })
      await expectRejectsBadPagination(t, `/projects/${project.id}/events`, owner.token)
    })
  })

  describe('query plans', () => {
    /** The plan of a finder query; on PostgreSQL with whole-table scans discouraged, as a large table would. */
    const planOf = async (query: CompiledQuery): Promise<string> => {
      if (t.ctx.dialect === 'sqlite') {
        const { rows } = await t.ctx.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]))
        return rows.map((r) => r.detail).join('\n')
      }
      return t.ctx.db.connection().execute(async (conn) => {
        await sql`set enable_seqscan = off`.execute(conn)
        await sql`set enable_bitmapscan = off`.execute(conn)
        try {
          const { rows } = await conn.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]))
          return rows.map((r) => r['QUERY PLAN']).join('\n')
        } finally {
          await sql`reset enable_seqscan`.execute(conn)
          await sql`reset enable_bitmapscan`.execute(conn)
        }
      })
    }

    it('reads a user’s events in index order', async () => {
      const plan = await planOf((await findUserEvents(t.ctx.db, bob.actor, alice.user, { sort: 'desc', action: 'joined' })).limit(20).compile())
      assert.match(plan, /events_author/)
      assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY|Sort Key/)
    })

    it('reads a project’s events in index order', async () => {
      for (const sort of ['asc', 'desc'] as const) {
        const plan = await planOf((await findProjectEvents(t.ctx.db, bob.actor, publicProject.id, { sort, before: today() })).limit(20).compile())
        assert.match(plan, /events_project/)
        assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY|Sort Key/)
      }
    })

    it('reads a user’s events in index order whatever the filters', async () => {
      const plan = await planOf((await findUserEvents(t.ctx.db, null, alice.user, { sort: 'asc', targetType: 'issue', after: '2020-01-01' })).limit(20).compile())
      assert.match(plan, /events_author/)
      assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY|Sort Key/)
    })
  })
})
