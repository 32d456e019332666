// Events about notes and confidential issues: `commented` events show their note (the note entity,
// loaded for a whole page in a fixed number of queries), and events about a confidential issue —
// its own and those of notes on it — are shown only to those who may read the issue, on the
// project's, a user's and the caller's own event lists.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeIssue, makeNoteable, NOTEABLE_KINDS } from '../helpers/noteables.js'
import type { IssueRow, ProjectRow } from '../../src/db/schema.js'
import { GUEST, REPORTER } from '../../src/policies/access-levels.js'
import { recordEvent } from '../../src/services/events/record-event.js'

interface EventBody { action_name: string; target_type: string | null; target_id: number | null; target_title: string | null; note?: { id: number } }

describe('events of notes', () => {
  let t: TestApp
  let owner: TestUser
  let project: ProjectRow

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    project = await makeProject(t, owner, { visibility: 'public' })
  })
  after(async () => { await t.close() })

  it('show the note of a commented event, as the note endpoint shows it', async () => {
    const commenter = await makeUser(t)
    const issue = await makeNoteable(t, 'issue', project, owner, { title: 'Crash on start' })
    const posted = await t.api('POST', `${issue.path}/notes`, { token: commenter.token, body: { body: 'Me too' } })
    assert.equal(posted.status, 201)
    const note = (await t.api('GET', `${issue.path}/notes/${posted.body.id}`, { token: commenter.token })).body
    for (const path of ['/events', `/users/${commenter.user.id}/events`, `/projects/${project.id}/events?target_type=note`]) {
      const res = await t.api('GET', path, { token: commenter.token })
      assert.equal(res.status, 200, res.text)
      const event = (res.body as EventBody[]).find((e) => e.target_id === note.id)
      assert.ok(event !== undefined, path)
      assert.deepEqual([event.action_name, event.target_type, event.target_title], ['commented on', 'Note', 'Crash on start'])
      assert.deepEqual(event.note, note)
    }
    const other = (await t.api('GET', `/projects/${project.id}/events`, { token: commenter.token })).body as EventBody[]
    assert.ok(other.filter((e) => e.target_type !== 'Note').every((e) => !('note' in e)))
  })

  it('load the notes of a page in a fixed number of queries', async () => {
    const author = await makeUser(t)
    const own = await makeProject(t, author, { visibility: 'public' })
    const commentOn = async (count: number) => {
      for (let i = 0; i < count; i += 1) {
        const noteable = await makeNoteable(t, NOTEABLE_KINDS[i % NOTEABLE_KINDS.length] ?? 'issue', own, author)
        assert.equal((await t.api('POST', `${noteable.path}/notes`, { token: author.token, body: { body: `note ${i}` } })).status, 201)
      }
    }
    const list = () => t.api('GET', `/projects/${own.id}/events`, { token: author.token, query: { target_type: 'note', per_page: 100 } })
    await commentOn(2)
    const few = await countQueries(t, list)
    await commentOn(7)
    const many = await countQueries(t, list)
    assert.equal((many.result.body as EventBody[]).length, 9)
    assert.ok((many.result.body as EventBody[]).every((e) => e.note !== undefined))
    assert.equal(many.queries, few.queries)
  })

  it('leave out `note` once the note is deleted, with its event', async () => {
    const issue = await makeNoteable(t, 'issue', project, owner)
    const posted = (await t.api('POST', `${issue.path}/notes`, { token: owner.token, body: { body: 'gone soon' } })).body
    assert.equal((await t.api('DELETE', `${issue.path}/notes/${posted.id}`, { token: owner.token })).status, 204)
    const events = (await t.api('GET', `/projects/${project.id}/events`, { token: owner.token })).body as EventBody[]
    assert.equal(events.some((e) => e.target_id === posted.id && e.target_type === 'Note'), false)
  })
})

describe('events of confidential issues', () => {
  let t: TestApp
  let author: TestUser
  let assignee: TestUser
  let reporter: TestUser
  let guest: TestUser
  let outsider: TestUser
  let project: ProjectRow
  let secret: IssueRow
  let secretNoteId: number
  let openNoteId: number

  before(async () => {
    t = await buildTestApp()
    author = await makeUser(t)
    assignee = await makeUser(t)
    reporter = await makeUser(t)
    guest = await makeUser(t)
    outsider = await makeUser(t)
    const owner = await makeUser(t)
    project = await makeProject(t, owner, { visibility: 'public' })
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
    await makeMember(t, { type: 'project', id: project.id }, author, GUEST)
    secret = await makeIssue(t, project, author, { confidential: true, assignees: [assignee], title: 'Secret' })
    const open = await makeIssue(t, project, author, { title: 'Open' })
    await recordEvent(t.ctx.db, {
      action: 'created', authorId: author.user.id, projectId: project.id, target: { type: 'Issue', id: secret.id, iid: secret.iid, title: 'Secret' },
    })
    await recordEvent(t.ctx.db, {
      action: 'created', authorId: author.user.id, projectId: project.id, target: { type: 'Issue', id: open.id, iid: open.iid, title: 'Open' },
    })
    secretNoteId = (await t.api('POST', `/projects/${project.id}/issues/${secret.iid}/notes`, { token: author.token, body: { body: 'psst' } })).body.id
    openNoteId = (await t.api('POST', `/projects/${project.id}/issues/${open.iid}/notes`, { token: author.token, body: { body: 'hi' } })).body.id
  })
  after(async () => { await t.close() })

  /** The targets [type, id] of the list's Issue and Note events. */
  const targets = async (path: string, token: string | null) => {
    const res = await t.api('GET', path, { token })
    assert.equal(res.status, 200, res.text)
    return (res.body as EventBody[]).flatMap((e) => (e.target_type === 'Issue' || e.target_type === 'Note' ? [`${e.target_type}:${e.target_title}`] : []))
  }

  it('shows them on a project\'s events to the issue\'s author and assignees, Reporters and admins only', async () => {
    const all = ['Note:Open', 'Note:Secret', 'Issue:Open', 'Issue:Secret']
    const open = ['Note:Open', 'Issue:Open']
    const path = `/projects/${project.id}/events`
    assert.deepEqual(await targets(path, author.token), all)
    assert.deepEqual(await targets(path, assignee.token), all)
    assert.deepEqual(await targets(path, reporter.token), all)
    assert.deepEqual(await targets(path, t.root.token), all)
    assert.deepEqual(await targets(path, guest.token), open)
    assert.deepEqual(await targets(path, outsider.token), open)
    assert.deepEqual(await targets(path, null), open)
    const noteEvents = async (token: string) => {
      const res = await t.api('GET', path, { token, query: { target_type: 'note' } })
      return [res.headers['x-total'], (res.body as EventBody[]).map((e) => e.note?.id)]
    }
    assert.deepEqual(await noteEvents(outsider.token), ['1', [openNoteId]])
    assert.deepEqual(await noteEvents(reporter.token), ['2', [openNoteId, secretNoteId]])
  })

  it('shows them on a user\'s events and the caller\'s own by the same rule', async () => {
    const path = `/users/${author.user.id}/events`
    assert.deepEqual(await targets(path, reporter.token), ['Note:Open', 'Note:Secret', 'Issue:Open', 'Issue:Secret'])
    assert.deepEqual(await targets(path, assignee.token), ['Note:Open', 'Note:Secret', 'Issue:Open', 'Issue:Secret'])
    assert.deepEqual(await targets(path, outsider.token), ['Note:Open', 'Issue:Open'])
    assert.deepEqual(await targets(path, null), ['Note:Open', 'Issue:Open'])
    assert.deepEqual(await targets('/events', author.token), ['Note:Open', 'Note:Secret', 'Issue:Open', 'Issue:Secret'])
    // Once the issue is no longer confidential, everyone sees its events.
    await t.ctx.db.updateTable('issues').set({ confidential: 0 }).where('id', '=', secret.id).execute()
    try {
      assert.deepEqual(await targets(path, outsider.token), ['Note:Open', 'Note:Secret', 'Issue:Open', 'Issue:Secret'])
    } finally {
      await t.ctx.db.updateTable('issues').set({ confidential: 1 }).where('id', '=', secret.id).execute()
    }
  })
})
