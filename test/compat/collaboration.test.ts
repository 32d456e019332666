// @gitbeaker/rest against a real Ingot socket: the planning and review calls clients make every
// day — labels, milestones, issues (create, filter, edit, close, time tracking), notes, discussions,
// award emoji and boards — each answer read through the client's own types. (This client creates
// snippets with the later multi-file `files` parameter; python-gitlab's 11.5-era form is in smoke.py.)
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { expectStatus, startCompatServer, type Client, type CompatServer } from './server.js'
import { makeProject } from '../helpers/factories.js'

describe('compat: collaboration', () => {
  let server: CompatServer
  let root: Client
  let projectId: number

  before(async () => {
    server = await startCompatServer()
    root = server.client()
    projectId = (await makeProject(server.t, null, { visibility: 'private' })).id
  })
  after(async () => { await server.close() })

  it('plans with labels, milestones and issues', async () => {
    const label = await root.ProjectLabels.create(projectId, 'bug', '#FF0000')
    assert.equal(label.name, 'bug')
    const milestone = await root.ProjectMilestones.create(projectId, 'v1.0', { dueDate: '2030-01-31' })
    assert.equal(milestone.iid, 1)
    const issue = await root.Issues.create(projectId, 'It crashes', { labels: 'bug,ui', milestoneId: milestone.id, description: 'On start' })
    assert.equal(issue.iid, 1)
    assert.deepEqual(issue.labels, ['bug', 'ui'])
    await root.Issues.create(projectId, 'Unrelated')
    const filtered = await root.Issues.all({ projectId, labels: 'bug', state: 'opened' })
    assert.deepEqual(filtered.map((item) => item.iid), [1])
    const closed = await root.Issues.edit(projectId, 1, { stateEvent: 'close', title: 'It crashes on start' })
    assert.equal(closed.state, 'closed')
    assert.equal(typeof closed.closed_at, 'string')
    const stats = await root.Issues.addTimeEstimate(projectId, 1, '1d 2h')
    assert.equal(stats.human_time_estimate, '1d 2h')
    const inMilestone = await root.ProjectMilestones.allAssignedIssues(projectId, milestone.id)
    assert.deepEqual(inMilestone.map((item) => item.iid), [1])
    await expectStatus(root.Issues.show(99, { projectId }), 404)
    assert.equal((await root.Issues.show(1, { projectId })).title, 'It crashes on start')
  })

  it('discusses with notes, discussions and award emoji', async () => {
    const issue = await root.Issues.create(projectId, 'Discuss me')
    const note = await root.IssueNotes.create(projectId, issue.iid, 'First!')
    assert.equal(note.body, 'First!')
    const notes = await root.IssueNotes.all(projectId, issue.iid)
    assert.deepEqual(notes.map((item) => item.id), [note.id])
    const discussion = await root.IssueDiscussions.create(projectId, issue.iid, 'Shall we?')
    assert.equal(discussion.individual_note, false)
    const reply = await root.IssueDiscussions.addNote(projectId, issue.iid, discussion.id, 'Yes')
    assert.equal(reply.body, 'Yes')
    const award = await root.IssueAwardEmojis.award(projectId, issue.iid, 'tada')
    assert.equal(award.name, 'tada')
    assert.deepEqual((await root.IssueAwardEmojis.all(projectId, issue.iid)).map((item) => item.name), ['tada'])
  })

  it('organizes with boards', async () => {
    const label = await root.ProjectLabels.create(projectId, 'doing', '#00FF00')
    const boards = await root.ProjectIssueBoards.all(projectId)
    assert.equal(boards.length, 1)
    const board = boards[0]!
    const list = await root.ProjectIssueBoards.createList(projectId, board.id, { labelId: label.id })
    assert.equal(list.position, 0)
    assert.deepEqual((await root.ProjectIssueBoards.allLists(projectId, board.id)).map((item) => item.label?.name), ['doing'])
  })
})
