// Discussions of issues, project snippets and merge requests (spec: Discussions): the entity, the
// list by first notes with pagination, starting one, replying (an individual note turned into a
// discussion, system notes refused, resolved discussions staying resolved), editing and deleting
// notes of a discussion, and on merge requests resolving notes and whole discussions — with who
// may (401, 404 private, 403) and bad input, on every kind of noteable.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { basicUser, makeMergeRequest, makeNoteable, NOTEABLE_KINDS, type MadeNoteable } from '../helpers/noteables.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { addSystemNote } from '../../src/services/notes/system-notes.js'
import { hasUnresolvedDiscussions } from '../../src/services/notes/resolve-notes.js'

interface NoteBody { id: number; type: string | null; body: string; resolvable: boolean; resolved?: boolean; resolved_by?: unknown }
interface DiscussionBody { id: string; individual_note: boolean; notes: NoteBody[] }

describe('Discussions API', () => {
  let t: TestApp
  let m: Matrix

  const start = (noteable: MadeNoteable, body: unknown, token: string | null = t.root.token) =>
    t.api('POST', `${noteable.path}/discussions`, { token, body })
  const reply = (noteable: MadeNoteable, discussionId: string, body: unknown, token: string | null = t.root.token) =>
    t.api('POST', `${noteable.path}/discussions/${discussionId}/notes`, { token, body })

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
  })
  after(async () => { await t.close() })

  for (const kind of NOTEABLE_KINDS) {
    describe(`of ${kind}s`, () => {
      const resolvable = kind === 'merge_request'
      let noteable: MadeNoteable

      before(async () => {
        noteable = await makeNoteable(t, kind, m.project, m.users.developer)
      })

      it('starts a discussion: 201 with the discussion, its note a DiscussionNote', async () => {
        const res = await start(noteable, { body: 'Shall we?' }, m.users.reporter.token)
        assert.equal(res.status, 201, res.text)
        const discussion = res.body as DiscussionBody
        assert.match(discussion.id, /^[0-9a-f]{40}$/)
        assert.equal(discussion.individual_note, false)
        assert.equal(discussion.notes.length, 1)
        const [note] = discussion.notes
        assert.deepEqual({ ...note, id: 0, created_at: '', updated_at: '' }, {
          id: 0, type: 'DiscussionNote', body: 'Shall we?', attachment: null, author: basicUser(m.users.reporter.user),
          created_at: '', updated_at: '', system: false, noteable_id: noteable.id, noteable_type: noteable.type,
          resolvable, noteable_iid: noteable.iid,
          ...(resolvable ? { resolved: false, resolved_by: null } : {}),
        })
        const got = await t.api('GET', `${noteable.path}/discussions/${discussion.id}`, { token: m.users.reporter.token })
        assert.deepEqual(got.body, discussion)
        const event = await t.ctx.db.selectFrom('events').select('action').where('target_type', '=', 'Note').where('target_id', '=', note?.id ?? 0).executeTakeFirst()
        assert.equal(event?.action, 'commented')
      })

      it('lists discussions by their first notes, individual and system notes each their own, paginated', async () => {
        const target = await makeNoteable(t, kind, m.project, m.users.developer)
        const individual = (await t.api('POST', `${target.path}/notes`, { body: { body: 'on its own', created_at: '2020-01-01T00:00:00Z' } })).body
        const started = (await start(target, { body: 'thread', created_at: '2020-01-02T00:00:00Z' })).body as DiscussionBody
        const answer = (await reply(target, started.id, { body: 'answer' })).body
        await addSystemNote(t.ctx.db, {
          projectId: m.project.id, noteable: { type: target.type, id: target.id }, authorId: t.root.user.id, body: 'closed',
          createdAt: Date.parse('2020-01-03T00:00:00Z'),
        })
        const res = await t.api('GET', `${target.path}/discussions`, { token: m.users.reporter.token })
        assert.equal(res.status, 200, res.text)
        const list = res.body as DiscussionBody[]
        assert.deepEqual(list.map((d) => [d.individual_note, d.notes.map((n) => n.body)]), [
          [true, ['on its own']], [false, ['thread', 'answer']], [true, ['closed']],
        ])
        assert.equal(list[0]?.notes[0]?.id, individual.id)
        assert.deepEqual(list[1]?.notes.map((n) => n.id), [started.notes[0]?.id, answer.id])
        assert.equal(res.headers['x-total'], '3')
        await expectPaginates({ t, path: `${target.path}/discussions`, token: m.users.reporter.token, total: 3 })
        await expectRejectsBadPagination(t, `${target.path}/discussions`, m.users.reporter.token)
      })

      it('turns an individual note replied to into a discussion; refuses replies to system notes', async () => {
        const note = (await t.api('POST', `${noteable.path}/notes`, { token: m.users.reporter.token, body: { body: 'alone' } })).body
        const discussionId = (await t.ctx.db.selectFrom('notes').select('discussion_id').where('id', '=', note.id).executeTakeFirstOrThrow()).discussion_id ?? ''
        const before = await t.api('GET', `${noteable.path}/discussions/${discussionId}`)
        assert.equal((before.body as DiscussionBody).individual_note, true)
        const res = await reply(noteable, discussionId, { body: 'not any more' }, m.users.developer.token)
        assert.equal(res.status, 201, res.text)
        assert.deepEqual([res.body.type, res.body.body, res.body.resolvable], ['DiscussionNote', 'not any more', resolvable])
        const afterwards = (await t.api('GET', `${noteable.path}/discussions/${discussionId}`)).body as DiscussionBody
        assert.equal(afterwards.individual_note, false)
        assert.deepEqual(afterwards.notes.map((n) => [n.type, n.resolvable]), [['DiscussionNote', resolvable], ['DiscussionNote', resolvable]])

        await addSystemNote(t.ctx.db, { projectId: m.project.id, noteable: { type: noteable.type, id: noteable.id }, authorId: t.root.user.id, body: 'locked' })
        const system = await t.ctx.db.selectFrom('notes').select('discussion_id')
          .where('noteable_type', '=', noteable.type).where('noteable_id', '=', noteable.id).where('system', '=', 1).executeTakeFirstOrThrow()
        const refused = await reply(noteable, system.discussion_id ?? '', { body: 'no' })
        assert.deepEqual([refused.status, refused.body], [400, { message: '400 (Bad request) "Discussion can not be replied to." not given' }])
      })

      it('edits and deletes a note of a discussion: the author or a Maintainer, the note in that discussion only', async () => {
        const discussion = (await start(noteable, { body: 'first' }, m.users.reporter.token)).body as DiscussionBody
        const other = (await start(noteable, { body: 'elsewhere' })).body as DiscussionBody
        const noteId = discussion.notes[0]?.id ?? 0
        const path = `${noteable.path}/discussions/${discussion.id}/notes/${noteId}`
        const edited = await t.api('PUT', path, { token: m.users.reporter.token, body: { body: 'first, edited' } })
        assert.equal(edited.status, 200, edited.text)
        assert.equal(edited.body.body, 'first, edited')
        await expectStatuses(m, (token) => t.api('PUT', path, { token, body: { body: 'x' } }), {
          anonymous: 401, nonMember: 404, developer: 403, maintainer: 200,
        })
        const elsewhere = await t.api('PUT', `${noteable.path}/discussions/${other.id}/notes/${noteId}`, { body: { body: 'x' } })
        assert.deepEqual([elsewhere.status, elsewhere.body], [404, { message: '404 Note Not Found' }])
        const blank = await t.api('PUT', path, { token: m.users.reporter.token, body: { body: ' ' } })
        assert.equal(blank.status, 400)
        const neither = await t.api('PUT', path, { token: m.users.reporter.token, body: {} })
        assert.deepEqual([neither.status, neither.body], [400, { error: 'body, resolved are missing, exactly one parameter must be provided' }])
        const both = await t.api('PUT', path, { token: m.users.reporter.token, body: { body: 'x', resolved: true } })
        assert.deepEqual([both.status, both.body], [400, { error: 'body, resolved are mutually exclusive' }])
        await expectStatuses(m, (token) => t.api('DELETE', path, { token }), { anonymous: 401, nonMember: 404, developer: 403 })
        assert.equal((await t.api('DELETE', `${noteable.path}/discussions/${other.id}/notes/${noteId}`)).status, 404)
        assert.equal((await t.api('DELETE', path, { token: m.users.reporter.token })).status, 204)
        const gone = await t.api('GET', `${noteable.path}/discussions/${discussion.id}`)
        assert.deepEqual([gone.status, gone.body], [404, { message: '404 Discussion Not Found' }])
      })

      it('answers each caller as the noteable allows, and 404 or 400 for bad ids and bodies', async () => {
        const discussion = (await start(noteable, { body: 'read me' })).body as DiscussionBody
        const readers = kind === 'merge_request' ? { guest: 404 } : { guest: 200 }
        await expectStatuses(m, (token) => t.api('GET', `${noteable.path}/discussions`, { token }), {
          anonymous: 401, nonMember: 404, external: 404, reporter: 200, admin: 200, blocked: 403, ...readers,
        })
        await expectStatuses(m, (token) => t.api('GET', `${noteable.path}/discussions/${discussion.id}`, { token }), {
          anonymous: 401, nonMember: 404, reporter: 200,
        })
        await expectStatuses(m, (token) => start(noteable, { body: 'hi' }, token), {
          anonymous: 401, nonMember: 404, reporter: 201, ...(kind === 'merge_request' ? { guest: 404 } : { guest: 201 }),
        })
        await expectStatuses(m, (token) => reply(noteable, discussion.id, { body: 'hi' }, token), {
          anonymous: 401, nonMember: 404, reporter: 201,
        })
        assert.deepEqual((await t.api('GET', `${noteable.path}/discussions/${'0'.repeat(40)}`)).body, { message: '404 Discussion Not Found' })
        assert.equal((await reply(noteable, 'nope', { body: 'x' })).status, 404)
        assert.deepEqual((await start(noteable, {})).body, { error: 'body is missing' })
        assert.equal((await start(noteable, { body: '' })).status, 400)
        assert.equal((await reply(noteable, discussion.id, { body: '' })).status, 400)
        assert.equal((await t.api('GET', `${noteable.path.replace(/\/\d+$/, '/999999')}/discussions`)).status, 404)
        const asked = '2019-01-01T00:00:00.000Z'
        const backDated = (await start(noteable, { body: 'old', created_at: asked }, m.users.owner.token)).body as DiscussionBody
        assert.equal((backDated.notes[0] as unknown as { created_at: string }).created_at, asked)
        const notBackDated = (await start(noteable, { body: 'new', created_at: asked }, m.users.developer.token)).body as DiscussionBody
        assert.notEqual((notBackDated.notes[0] as unknown as { created_at: string }).created_at, asked)
      })

      if (!resolvable) {
        it('has notes that cannot be resolved (400)', async () => {
          const discussion = (await start(noteable, { body: 'x' })).body as DiscussionBody
          const res = await t.api('PUT', `${noteable.path}/discussions/${discussion.id}/notes/${discussion.notes[0]?.id}`, { body: { resolved: true } })
          assert.deepEqual([res.status, res.body], [400, { message: '400 (Bad request) "Note is not resolvable" not given' }])
          assert.equal((await t.api('PUT', `${noteable.path}/discussions/${discussion.id}`, { query: { resolved: true } })).status, 404)
        })
      }
    })
  }

  describe('resolving merge request discussions', () => {
    let mr: Awaited<ReturnType<typeof makeMergeRequest>>
    let base: string

    before(async () => {
      // The author is a Reporter: resolving is for the author and Developers.
      mr = await makeMergeRequest(t, m.project, m.users.reporter)
      base = `/projects/${m.project.id}/merge_requests/${mr.iid}/discussions`
    })

    it('resolves and unresolves a whole discussion, as its merge request\'s author or a Developer', async () => {
      const discussion = (await t.api('POST', base, { token: m.users.developer.token, body: { body: 'fix this' } })).body as DiscussionBody
      await t.api('POST', `${base}/${discussion.id}/notes`, { token: m.users.maintainer.token, body: { body: 'and this' } })
      assert.equal(await hasUnresolvedDiscussions(t.ctx.db, mr.id), true)
      const resolve = (resolved: boolean, token: string | null) => t.api('PUT', `${base}/${discussion.id}`, { token, query: { resolved } })
      await expectStatuses(m, (token) => resolve(true, token), { anonymous: 401, nonMember: 404, guest: 404, external: 404 })
      const res = await resolve(true, m.users.reporter.token)
      assert.equal(res.status, 200, res.text)
      const resolved = res.body as DiscussionBody
      assert.equal(resolved.id, discussion.id)
      assert.deepEqual(resolved.notes.map((n) => [n.resolved, n.resolved_by]), [
        [true, basicUser(m.users.reporter.user)], [true, basicUser(m.users.reporter.user)],
      ])
      assert.equal(await hasUnresolvedDiscussions(t.ctx.db, mr.id), false)
      const reopened = await resolve(false, m.users.developer.token)
      assert.deepEqual((reopened.body as DiscussionBody).notes.map((n) => [n.resolved, n.resolved_by]), [[false, null], [false, null]])
      assert.equal(await hasUnresolvedDiscussions(t.ctx.db, mr.id), true)
      const missing = await t.api('PUT', `${base}/${discussion.id}`, { body: {} })
      assert.deepEqual([missing.status, missing.body], [400, { error: 'resolved is missing' }])
      assert.equal((await t.api('PUT', `${base}/${'f'.repeat(40)}`, { query: { resolved: true } })).status, 404)
    })

    it('refuses Reporters who are not the author, and discussions without resolvable notes (403)', async () => {
      const other = await makeMergeRequest(t, m.project, m.users.developer)
      const otherBase = `/projects/${m.project.id}/merge_requests/${other.iid}/discussions`
      const discussion = (await t.api('POST', otherBase, { body: { body: 'review' } })).body as DiscussionBody
      const put = (path: string, token: string | null) => t.api('PUT', path, { token, query: { resolved: true } })
      assert.equal((await put(`${otherBase}/${discussion.id}`, m.users.reporter.token)).status, 403)
      const notePath = `${otherBase}/${discussion.id}/notes/${discussion.notes[0]?.id}`
      assert.equal((await t.api('PUT', notePath, { token: m.users.reporter.token, body: { resolved: true } })).status, 403)
      const individual = (await t.api('POST', `/projects/${m.project.id}/merge_requests/${other.iid}/notes`, { body: { body: 'lone' } })).body
      const row = await t.ctx.db.selectFrom('notes').select('discussion_id').where('id', '=', individual.id).executeTakeFirstOrThrow()
      assert.equal((await put(`${otherBase}/${row.discussion_id}`, t.root.token)).status, 403)
    })

    it('resolves one note as its author, and keeps replies to a resolved discussion resolved', async () => {
      const started = (await t.api('POST', base, { token: m.users.maintainer.token, body: { body: 'nit' } })).body as DiscussionBody
      const notePath = `${base}/${started.id}/notes/${started.notes[0]?.id}`
      const res = await t.api('PUT', notePath, { token: m.users.maintainer.token, body: { resolved: 'true' } })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual([res.body.resolved, res.body.resolved_by.id], [true, m.users.maintainer.user.id])
      assert.equal(await hasUnresolvedDiscussions(t.ctx.db, mr.id), true)
      const answer = await t.api('POST', `${base}/${started.id}/notes`, { token: m.users.developer.token, body: { body: 'done' } })
      assert.equal(answer.status, 201)
      assert.deepEqual([answer.body.resolved, answer.body.resolved_by.id], [true, m.users.developer.user.id])
      assert.equal((await t.api('PUT', notePath, { token: m.users.external.token, body: { resolved: false } })).status, 404)
      const bad = await t.api('PUT', notePath, { token: m.users.maintainer.token, body: { resolved: 'maybe' } })
      assert.deepEqual([bad.status, bad.body], [400, { error: 'resolved is invalid' }])
      const unresolved = await t.api('PUT', notePath, { token: m.users.developer.token, body: { resolved: false } })
      assert.deepEqual([unresolved.body.resolved, unresolved.body.resolved_by], [false, null])
    })
  })
})
