// Notes on issues, merge requests and project snippets (spec: Notes), each endpoint run once per
// kind of noteable like the original's 'noteable API' shared examples: the exact entity, order and
// pagination, system notes, created_at for admins and owners only, the counts and events a note
// leaves, emoji-only bodies becoming awards, who may read and write (401, 404 private, 403), and
// bad input; then what is particular to each kind (confidential issues, locked discussions,
// archived projects, merge request notes not resolvable).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { basicUser, makeIssue, makeMergeRequest, makeNoteable, NOTEABLE_KINDS, type MadeNoteable } from '../helpers/noteables.js'
import { setProjectColumns } from '../helpers/projects.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { GUEST, REPORTER } from '../../src/policies/access-levels.js'
import { addSystemNote } from '../../src/services/notes/system-notes.js'

describe('Notes API', () => {
  let t: TestApp
  let m: Matrix

  const noteRow = (id: number) => t.ctx.db.selectFrom('notes').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  const noteableRow = async (noteable: MadeNoteable) => {
    const table = noteable.type === 'Issue' ? 'issues' : noteable.type === 'MergeRequest' ? 'merge_requests' : 'snippets'
    const row = await t.ctx.db.selectFrom(table).selectAll().where('id', '=', noteable.id).executeTakeFirstOrThrow()
    return row as { updated_at: number; user_notes_count?: number; upvotes?: number }
  }
  const post = (noteable: MadeNoteable, body: unknown, token: string | null = t.root.token) =>
    t.api('POST', `${noteable.path}/notes`, { token, body })
  const ids = (body: { id: number }[]) => body.map((note) => note.id)

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
  })
  after(async () => { await t.close() })

  for (const kind of NOTEABLE_KINDS) {
    describe(`on ${kind}s`, () => {
      let noteable: MadeNoteable
      /** The persona that reads the noteable without being its author or a Maintainer. */
      let commenter: TestUser

      before(async () => {
        noteable = await makeNoteable(t, kind, m.project, m.users.developer, { title: `The ${kind}` })
        // A Guest of a private project does not read its merge requests (no code access).
        commenter = kind === 'merge_request' ? m.users.reporter : m.users.guest
      })

      it('creates a note: 201, the exact entity, the noteable counted and touched, a commented event', async () => {
        const before = await noteableRow(noteable)
        const res = await post(noteable, { body: 'First!' }, commenter.token)
        assert.equal(res.status, 201, res.text)
        const row = await noteRow(res.body.id)
        assert.deepEqual(res.body, {
          id: row.id,
          type: null,
          body: 'First!',
          attachment: null,
          author: basicUser(commenter.user),
          created_at: new Date(row.created_at).toISOString(),
          updated_at: new Date(row.updated_at).toISOString(),
          system: false,
          noteable_id: noteable.id,
          noteable_type: noteable.type,
          resolvable: false,
          noteable_iid: noteable.iid,
        })
        assert.equal(row.discussion_id?.length, 40)
        const after = await noteableRow(noteable)
        assert.ok(after.updated_at >= row.created_at && after.updated_at >= before.updated_at)
        if (kind !== 'snippet') assert.equal(after.user_notes_count, (before.user_notes_count ?? 0) + 1)
        const event = await t.ctx.db.selectFrom('events').selectAll()
          .where('target_type', '=', 'Note').where('target_id', '=', row.id).executeTakeFirstOrThrow()
        assert.deepEqual([event.action, event.author_id, event.project_id, event.target_title],
          ['commented', commenter.user.id, m.project.id, `The ${kind}`])
        assert.equal((await t.api('GET', `${noteable.path}/notes/${row.id}`, { token: commenter.token })).body.id, row.id)
      })

      it('lists notes newest first by default, in either order by created_at or updated_at, system notes included', async () => {
        const target = await makeNoteable(t, kind, m.project, m.users.developer)
        const made: number[] = []
        for (const day of ['01', '02', '03']) {
          const res = await post(target, { body: `Day ${day}`, created_at: `2020-01-${day}T10:00:00Z` })
          assert.equal(res.status, 201, res.text)
          assert.equal(res.body.created_at, `2020-01-${day}T10:00:00.000Z`)
          made.push(res.body.id)
        }
        await addSystemNote(t.ctx.db, {
          projectId: m.project.id, noteable: { type: target.type, id: target.id }, authorId: m.users.owner.user.id,
          body: 'changed the description', createdAt: Date.parse('2020-01-04T10:00:00Z'),
        })
        // updated_at: the first note edited last.
        for (const [i, id] of made.entries()) {
          await t.ctx.db.updateTable('notes').set({ updated_at: Date.parse(`2020-02-0${3 - i}T00:00:00Z`) }).where('id', '=', id).execute()
        }
        const [a, b, c] = made as [number, number, number]
        const list = (query: Record<string, string> = {}) => t.api('GET', `${target.path}/notes`, { token: commenter.token, query })
        const res = await list()
        assert.equal(res.status, 200, res.text)
        assert.equal(res.body.length, 4)
        const system = res.body[0]
        assert.deepEqual([system.system, system.body, system.author.id], [true, 'changed the description', m.users.owner.user.id])
        assert.deepEqual(ids(res.body).slice(1), [c, b, a])
        assert.deepEqual(ids((await list({ sort: 'asc' })).body).slice(0, 3), [a, b, c])
        // The system note was last updated before the others.
        assert.deepEqual(ids((await list({ order_by: 'updated_at', sort: 'desc' })).body).slice(0, 3), [a, b, c])
        assert.deepEqual(ids((await list({ order_by: 'updated_at', sort: 'asc' })).body).slice(1), [c, b, a])
        await expectPaginates({ t, path: `${target.path}/notes`, token: commenter.token, total: 4 })
        await expectRejectsBadPagination(t, `${target.path}/notes`, commenter.token)
        for (const query of [{ sort: 'up' }, { order_by: 'id' }] as Record<string, string>[]) {
          const bad = await list(query)
          assert.equal(bad.status, 400)
          assert.deepEqual(bad.body, { error: `${Object.keys(query)[0]} is invalid` })
        }
      })

      it('keeps created_at only for admins and owners of the project', async () => {
        const asked = '2019-05-05T05:05:05.000Z'
        for (const user of [null, m.users.owner]) {
          const res = await post(noteable, { body: 'Back-dated', created_at: asked }, user?.token ?? t.root.token)
          assert.equal(res.body.created_at, asked)
        }
        const res = await post(noteable, { body: 'Not back-dated', created_at: asked }, m.users.maintainer.token)
        assert.equal(res.status, 201)
        assert.notEqual(res.body.created_at, asked)
        const bad = await post(noteable, { body: 'x', created_at: 'yesterday' })
        assert.deepEqual([bad.status, bad.body], [400, { error: 'created_at is invalid' }])
      })

      it('refuses a missing, blank or oversized body', async () => {
        const missing = await post(noteable, {})
        assert.deepEqual([missing.status, missing.body], [400, { error: 'body is missing' }])
        const blank = await post(noteable, { body: '  ' })
        assert.deepEqual([blank.status, blank.body], [400, { message: '400 (Bad request) "Note {:note=>["can\'t be blank"]}" not given' }])
        const long = await post(noteable, { body: 'x'.repeat(1_000_001) })
        assert.equal(long.status, 400)
        assert.match(long.body.message, /is too long \(maximum is 1000000 characters\)/)
      })

      it('answers each caller as the noteable allows: 401, 404 when private, 403 for the blocked', async () => {
        const readers = kind === 'merge_request' ? { guest: 404 } : { guest: 200 }
        await expectStatuses(m, (token) => t.api('GET', `${noteable.path}/notes`, { token }), {
          anonymous: 401, nonMember: 404, external: 404, reporter: 200, developer: 200, admin: 200, blocked: 403, ...readers,
        })
        await expectStatuses(m, (token) => post(noteable, { body: 'hi' }, token), {
          anonymous: 401, nonMember: 404, external: 404, guest: kind === 'merge_request' ? 404 : 201, reporter: 201, admin: 201, blocked: 403,
        })
        const note = (await post(noteable, { body: 'to read' })).body
        await expectStatuses(m, (token) => t.api('GET', `${noteable.path}/notes/${note.id}`, { token }), {
          anonymous: 401, nonMember: 404, reporter: 200,
        })
      })

      it('answers 404 for unknown noteables and notes, and 400 for ids that are not numbers', async () => {
        const note = (await post(noteable, { body: 'mine' })).body
        const other = await makeNoteable(t, kind, m.project, m.users.developer)
        const missingParent = noteable.path.replace(/\/\d+$/, '/999999')
        assert.equal((await t.api('GET', `${missingParent}/notes`)).status, 404)
        assert.equal((await t.api('GET', `${noteable.path.replace(/\/\d+$/, '/99999999999')}/notes`)).status, 404)
        const wrongParent = await t.api('GET', `${other.path}/notes/${note.id}`)
        assert.deepEqual([wrongParent.status, wrongParent.body], [404, { message: '404 Note Not Found' }])
        assert.equal((await t.api('GET', `${noteable.path}/notes/99999999999`)).status, 404)
        const notNumber = await t.api('GET', `${noteable.path}/notes/abc`)
        assert.deepEqual([notNumber.status, notNumber.body], [400, { error: 'note_id is invalid' }])
        assert.equal((await t.api('GET', `${noteable.path.replace(/\/\d+$/, '/abc')}/notes`)).status, 400)
      })

      it('lets the author and Maintainers edit a note, nobody a system note', async () => {
        const note = (await post(noteable, { body: 'draft' }, commenter.token)).body
        const put = (id: number, body: unknown, token: string | null) => t.api('PUT', `${noteable.path}/notes/${id}`, { token, body })
        const edited = await put(note.id, { body: 'final' }, commenter.token)
        assert.equal(edited.status, 200, edited.text)
        assert.equal(edited.body.body, 'final')
        assert.ok(Date.parse(edited.body.updated_at) >= Date.parse(note.updated_at))
        assert.equal((await put(note.id, { body: 'by a maintainer' }, m.users.maintainer.token)).status, 200)
        await expectStatuses(m, (token) => put(note.id, { body: 'nope' }, token), {
          anonymous: 401, nonMember: 404, developer: 403, owner: 200, admin: 200,
        })
        const blank = await put(note.id, { body: '' }, commenter.token)
        assert.deepEqual([blank.status, blank.body],
          [400, { message: '400 (Bad request) "Failed to save note {:note=>["can\'t be blank"]}" not given' }])
        assert.deepEqual((await put(note.id, {}, commenter.token)).body, { error: 'body is missing' })
        assert.equal((await put(99999999, { body: 'x' }, commenter.token)).status, 404)
        await addSystemNote(t.ctx.db, {
          projectId: m.project.id, noteable: { type: noteable.type, id: noteable.id }, authorId: t.root.user.id, body: 'closed',
        })
        const system = (await t.api('GET', `${noteable.path}/notes`)).body.find((n: { system: boolean }) => n.system)
        assert.equal((await put(system.id, { body: 'reopened' }, t.root.token)).status, 403)
        assert.equal((await t.api('DELETE', `${noteable.path}/notes/${system.id}`)).status, 403)
      })

      it('deletes a note: 204, its count and event gone; 403 for others; 412 when it changed since', async () => {
        const note = (await post(noteable, { body: 'doomed' }, commenter.token)).body
        const before = await noteableRow(noteable)
        const del = (token: string | null, headers: Record<string, string> = {}) =>
          t.api('DELETE', `${noteable.path}/notes/${note.id}`, { token, headers })
        await expectStatuses(m, (token) => del(token), { anonymous: 401, nonMember: 404, developer: 403 })
        assert.equal((await del(commenter.token, { 'if-unmodified-since': 'Thu, 01 Jan 2015 00:00:00 GMT' })).status, 412)
        const res = await del(commenter.token)
        assert.equal(res.status, 204)
        assert.equal(res.text, '')
        const after = await noteableRow(noteable)
        if (kind !== 'snippet') assert.equal(after.user_notes_count, (before.user_notes_count ?? 0) - 1)
        const events = await t.ctx.db.selectFrom('events').select('id').where('target_type', '=', 'Note').where('target_id', '=', note.id).execute()
        assert.deepEqual(events, [])
        assert.equal((await del(commenter.token)).status, 404)
        const byMaintainer = (await post(noteable, { body: 'moderated' }, commenter.token)).body
        assert.equal((await t.api('DELETE', `${noteable.path}/notes/${byMaintainer.id}`, { token: m.users.maintainer.token })).status, 204)
      })

      it('awards a lone known emoji instead of noting it, and notes other colon words', async () => {
        const target = await makeNoteable(t, kind, m.project, m.users.developer)
        const res = await post(target, { body: ':+1:' }, commenter.token)
        assert.equal(res.status, 201, res.text)
        const award = await t.ctx.db.selectFrom('award_emoji').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
        assert.deepEqual(res.body, {
          id: award.id, name: 'thumbsup', user: basicUser(commenter.user),
          created_at: new Date(award.created_at).toISOString(), updated_at: new Date(award.updated_at).toISOString(),
          awardable_id: target.id, awardable_type: target.type,
        })
        const row = await noteableRow(target)
        if (kind !== 'snippet') assert.deepEqual([row.upvotes, row.user_notes_count], [1, 0])
        const again = await post(target, { body: ':thumbsup:' }, commenter.token)
        assert.deepEqual([again.status, again.body],
          [400, { message: '400 (Bad request) "Note {:name=>["has already been taken"]}" not given' }])
        const ownVote = await post(target, { body: ':thumbsdown:' }, m.users.developer.token)
        assert.equal(ownVote.status, 400)
        for (const body of [':not_an_emoji_at_all:', 'looks :smile: good', ':smile: :smile:']) {
          const note = await post(target, { body }, commenter.token)
          assert.equal(note.status, 201)
          assert.equal(note.body.body, body)
        }
        assert.equal((await t.api('GET', `${target.path}/notes`)).body.length, 3)
      })
    })
  }

  describe('confidential issues', () => {
    it('hides their notes like the issue: 404 unless the caller reads it', async () => {
      const assignee = await makeUser(t)
      await makeMember(t, { type: 'project', id: m.project.id }, assignee, GUEST)
      const issue = await makeIssue(t, m.project, m.users.developer, { confidential: true, assignees: [assignee] })
      const path = `/projects/${m.project.id}/issues/${issue.iid}/notes`
      const tokens = { ...m.tokens }
      const res = await t.api('POST', path, { body: { body: 'secret' } })
      assert.equal(res.status, 201)
      await expectStatuses(m, (token) => t.api('GET', path, { token }), {
        nonMember: 404, guest: 404, reporter: 200, developer: 200, admin: 200,
      })
      assert.equal((await t.api('GET', path, { token: assignee.token })).status, 200)
      assert.equal((await t.api('GET', `${path}/${res.body.id}`, { token: tokens.guest })).status, 404)
      assert.equal((await t.api('POST', path, { token: tokens.guest, body: { body: 'let me in' } })).status, 404)
    })
  })

  describe('locked discussions', () => {
    let publicProject: ProjectRow
    let owner: TestUser
    let outsider: TestUser
    let guest: TestUser

    before(async () => {
      owner = await makeUser(t)
      outsider = await makeUser(t)
      guest = await makeUser(t)
      publicProject = await makeProject(t, owner, { visibility: 'public' })
      await makeMember(t, { type: 'project', id: publicProject.id }, guest, GUEST)
    })

    it('take notes only from members and admins (403 for others), who can no longer edit theirs', async () => {
      const issue = await makeIssue(t, publicProject, owner)
      const path = `/projects/${publicProject.id}/issues/${issue.iid}/notes`
      const early = await t.api('POST', path, { token: outsider.token, body: { body: 'before the lock' } })
      assert.equal(early.status, 201)
      await t.ctx.db.updateTable('issues').set({ discussion_locked: 1 }).where('id', '=', issue.id).execute()
      const refused = await t.api('POST', path, { token: outsider.token, body: { body: 'after the lock' } })
      assert.deepEqual([refused.status, refused.body], [403, { message: '403 Forbidden' }])
      assert.equal((await t.api('PUT', `${path}/${early.body.id}`, { token: outsider.token, body: { body: 'edit' } })).status, 403)
      assert.equal((await t.api('GET', path, { token: outsider.token })).status, 200)
      for (const token of [guest.token, owner.token, t.root.token]) {
        assert.equal((await t.api('POST', path, { token, body: { body: 'members may' } })).status, 201)
      }
      const mr = await makeMergeRequest(t, publicProject, owner, { discussionLocked: true })
      const mrPath = `/projects/${publicProject.id}/merge_requests/${mr.iid}/notes`
      assert.equal((await t.api('POST', mrPath, { token: outsider.token, body: { body: 'no' } })).status, 403)
      assert.equal((await t.api('POST', mrPath, { token: guest.token, body: { body: 'yes' } })).status, 201)
    })

    it('comments from signed-in non-members on public projects otherwise', async () => {
      const issue = await makeIssue(t, publicProject, owner)
      const res = await t.api('POST', `/projects/${publicProject.id}/issues/${issue.iid}/notes`, { token: outsider.token, body: { body: 'drive-by' } })
      assert.equal(res.status, 201)
      assert.equal((await t.api('GET', `/projects/${publicProject.id}/issues/${issue.iid}/notes`, { token: null })).status, 401)
    })
  })

  describe('archived projects and disabled features', () => {
    it('keep notes readable but refuse writes (403)', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner, { visibility: 'private' })
      const issue = await makeIssue(t, project, owner)
      const path = `/projects/${project.id}/issues/${issue.iid}/notes`
      const note = (await t.api('POST', path, { token: owner.token, body: { body: 'before' } })).body
      await setProjectColumns(t, project.id, { archived: 1 })
      assert.equal((await t.api('GET', path, { token: owner.token })).status, 200)
      assert.equal((await t.api('POST', path, { token: owner.token, body: { body: 'after' } })).status, 403)
      assert.equal((await t.api('PUT', `${path}/${note.id}`, { token: owner.token, body: { body: 'after' } })).status, 403)
      assert.equal((await t.api('DELETE', `${path}/${note.id}`, { token: t.root.token })).status, 403)
      await setProjectColumns(t, project.id, { archived: 0, issues_enabled: 0 })
      assert.equal((await t.api('GET', path, { token: owner.token })).status, 404)
    })
  })

  describe('merge request notes', () => {
    it('are not resolvable when posted on their own', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer)
      const res = await t.api('POST', `/projects/${m.project.id}/merge_requests/${mr.iid}/notes`, {
        token: m.users.reporter.token, body: { body: 'LGTM' },
      })
      assert.equal(res.status, 201)
      assert.equal(res.body.resolvable, false)
      assert.equal('resolved' in res.body, false)
      assert.equal('resolved_by' in res.body, false)
      assert.equal(res.body.noteable_iid, mr.iid)
    })

    it('count only user notes, never system notes', async () => {
      const mr = await makeMergeRequest(t, m.project, m.users.developer)
      await addSystemNote(t.ctx.db, { projectId: m.project.id, noteable: { type: 'MergeRequest', id: mr.id }, authorId: t.root.user.id, body: 'merged' })
      await t.api('POST', `/projects/${m.project.id}/merge_requests/${mr.iid}/notes`, { body: { body: 'one' } })
      const row = await t.ctx.db.selectFrom('merge_requests').select('user_notes_count').where('id', '=', mr.id).executeTakeFirstOrThrow()
      assert.equal(row.user_notes_count, 1)
    })
  })

  describe('snippet notes', () => {
    it('follow the snippet: a private snippet\'s notes are hidden from non-members of an internal project', async () => {
      const owner = await makeUser(t)
      const project = await makeProject(t, owner, { visibility: 'internal' })
      const reporter = await makeUser(t)
      await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
      const outsider = await makeUser(t)
      const hidden = await makeNoteable(t, 'snippet', project, owner, { visibility: 'private' })
      const shown = await makeNoteable(t, 'snippet', project, owner, { visibility: 'internal' })
      assert.equal((await t.api('GET', `${hidden.path}/notes`, { token: outsider.token })).status, 404)
      assert.equal((await t.api('GET', `${hidden.path}/notes`, { token: reporter.token })).status, 200)
      const res = await t.api('POST', `${shown.path}/notes`, { token: outsider.token, body: { body: 'nice' } })
      assert.equal(res.status, 201)
      assert.equal(res.body.noteable_iid, null)
    })
  })
})
