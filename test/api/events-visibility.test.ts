// Events show only what the caller may read of their targets, as the original's
// Event#visible_to_user?: pushes and merge requests need the repository (not a Guest of a private
// project, nor an external Guest of an internal one), comments on snippets need the snippet, and a
// disabled feature hides its events; on a project's, a user's and the caller's own lists, with
// X-Total counting only what is shown and a page read in a fixed number of queries.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeIssue, makeMergeRequest, makeSnippet } from '../helpers/noteables.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { GUEST, REPORTER } from '../../src/policies/access-levels.js'
import { recordEvent } from '../../src/services/events/record-event.js'

interface EventBody { action_name: string; target_type: string | null; target_title: string | null; push_data?: unknown }

/** A short name per event: the target type, or the action of events without one. */
const kinds = (events: EventBody[]) => events.map((e) => e.target_type ?? e.action_name).sort()

describe('events the caller may read', () => {
  let t: TestApp
  let owner: TestUser

  /** Gives the project a push, an issue, a merge request and a comment on it, all by `owner`. */
  const fill = async (project: ProjectRow) => {
    await recordEvent(t.ctx.db, {
      action: 'pushed', authorId: owner.user.id, projectId: project.id,
      pushData: { commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: 'a'.repeat(40), commit_to: 'b'.repeat(40), ref: 'secret-branch', commit_title: 'Secret commit' },
    })
    const issue = await makeIssue(t, project, owner, { title: 'Readable issue' })
    await recordEvent(t.ctx.db, { action: 'created', authorId: owner.user.id, projectId: project.id, target: { type: 'Issue', id: issue.id, iid: issue.iid, title: issue.title } })
    const mr = await makeMergeRequest(t, project, owner, { title: 'Secret merge request' })
    await recordEvent(t.ctx.db, { action: 'created', authorId: owner.user.id, projectId: project.id, target: { type: 'MergeRequest', id: mr.id, iid: mr.iid, title: mr.title } })
    const noted = await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/notes`, { token: owner.token, body: { body: 'Secret note' } })
    assert.equal(noted.status, 201, noted.text)
  }

  const eventsOf = async (path: string, token: string | null) => {
    const res = await t.api('GET', path, { token, query: { per_page: 100 } })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.headers['x-total'], String(res.body.length))
    return res.body as EventBody[]
  }

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
  })
  after(async () => { await t.close() })

  it('hides pushes, merge requests and comments on them from Guests of a private project', async () => {
    const project = await makeProject(t, owner, { visibility: 'private' })
    const guest = await makeUser(t)
    const reporter = await makeUser(t)
    await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
    await makeMember(t, { type: 'project', id: project.id }, reporter, REPORTER)
    await fill(project)

    const everything = ['Issue', 'MergeRequest', 'Note', 'created', 'joined', 'joined', 'pushed to']
    for (const path of [`/projects/${project.id}/events`, `/users/${owner.user.id}/events`]) {
      const seenByGuest = await eventsOf(path, guest.token)
      assert.deepEqual(kinds(seenByGuest), path.startsWith('/users') ? ['Issue', 'created'] : ['Issue', 'created', 'joined', 'joined'])
      assert.ok(!JSON.stringify(seenByGuest).includes('Secret'))
      assert.deepEqual(kinds(await eventsOf(path, reporter.token)), path.startsWith('/users') ? ['Issue', 'MergeRequest', 'Note', 'created', 'pushed to'] : everything)
      assert.deepEqual(kinds(await eventsOf(path, t.root.token)), path.startsWith('/users') ? ['Issue', 'MergeRequest', 'Note', 'created', 'pushed to'] : everything)
    }
  })

  it('hides the caller’s own events about what they may no longer read', async () => {
    const project = await makeProject(t, owner, { visibility: 'private' })
    const demoted = await makeUser(t)
    await makeMember(t, { type: 'project', id: project.id }, demoted, REPORTER)
    const mr = await makeMergeRequest(t, project, owner)
    assert.equal((await t.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}/notes`, { token: demoted.token, body: { body: 'Mine' } })).status, 201)
    assert.deepEqual(kinds(await eventsOf('/events', demoted.token)), ['Note', 'joined'])
    await t.ctx.db.updateTable('members').set({ access_level: GUEST })
      .where('source_type', '=', 'project').where('source_id', '=', project.id).where('user_id', '=', demoted.user.id).execute()
    assert.deepEqual(kinds(await eventsOf('/events', demoted.token)), ['joined'])
  })

  it('hides pushes and merge requests of an internal project from its external Guests', async () => {
    const project = await makeProject(t, owner, { visibility: 'internal' })
    const external = await makeUser(t, { external: true })
    const internal = await makeUser(t)
    await makeMember(t, { type: 'project', id: project.id }, external, GUEST)
    await fill(project)
    assert.deepEqual(kinds(await eventsOf(`/projects/${project.id}/events`, external.token)), ['Issue', 'created', 'joined'])
    assert.deepEqual(kinds(await eventsOf(`/projects/${project.id}/events`, internal.token)), ['Issue', 'MergeRequest', 'Note', 'created', 'joined', 'pushed to'])
  })

  it('hides comments on a private snippet of a public project from those who may not read it', async () => {
    const project = await makeProject(t, owner, { visibility: 'public' })
    const member = await makeUser(t)
    await makeMember(t, { type: 'project', id: project.id }, member, GUEST)
    for (const visibility of ['private', 'public'] as const) {
      const snippet = await makeSnippet(t, project, owner, { visibility, title: `${visibility} snippet` })
      const res = await t.api('POST', `/projects/${project.id}/snippets/${snippet.id}/notes`, { token: owner.token, body: { body: `On the ${visibility} one` } })
      assert.equal(res.status, 201, res.text)
    }
    const snippetNotes = async (token: string | null) =>
      (await eventsOf(`/projects/${project.id}/events?target_type=note`, token)).map((e) => e.target_title)
    assert.deepEqual(await snippetNotes(null), ['public snippet'])
    assert.deepEqual(await snippetNotes((await makeUser(t)).token), ['public snippet'])
    assert.deepEqual(await snippetNotes(member.token), ['public snippet', 'private snippet'])
  })

  it('hides the events of disabled features', async () => {
    const project = await makeProject(t, owner, { visibility: 'public' })
    await fill(project)
    const seen = async () => kinds(await eventsOf(`/projects/${project.id}/events`, null))
    assert.deepEqual(await seen(), ['Issue', 'MergeRequest', 'Note', 'created', 'pushed to'])
    await t.ctx.db.updateTable('projects').set({ issues_enabled: 0, merge_requests_enabled: 0 }).where('id', '=', project.id).execute()
    assert.deepEqual(await seen(), ['created', 'pushed to'])
  })

  it('reads a page in a fixed number of queries, whatever its events’ targets', async () => {
    const project = await makeProject(t, owner, { visibility: 'private' })
    const guest = await makeUser(t)
    await makeMember(t, { type: 'project', id: project.id }, guest, GUEST)
    const list = () => t.api('GET', `/projects/${project.id}/events`, { token: guest.token, query: { per_page: 100 } })
    await fill(project)
    const few = await countQueries(t, list)
    for (let i = 0; i < 6; i += 1) await fill(project)
    const many = await countQueries(t, list)
    assert.equal((many.result.body as EventBody[]).length, 2 + 7)
    assert.equal(many.queries, few.queries)
  })
})
