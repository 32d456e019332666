// Check-then-act writes at once: two Owners removing each other, two creations taking a user's last
// project place, two moves of one issue. Each pair runs concurrently through the API; the check and
// the write are one step (db/locks.ts), so exactly one of each pair goes through.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, uniqueName } from '../helpers/factories.js'
import { MAINTAINER, OWNER } from '../../src/policies/access-levels.js'

describe('concurrent check-then-act writes', () => {
  let t: TestApp

  before(async () => {
    t = await buildTestApp()
  })
  after(() => t.close())

  const statuses = (answers: { status: number }[]) => answers.map((answer) => answer.status).sort()

  it("leaves a group one Owner when its last two remove each other at once", async () => {
    const first = await makeUser(t)
    const second = await makeUser(t)
    const group = await makeGroup(t, {}, first)
    await makeMember(t, { type: 'group', id: group.id }, second, OWNER)
    const answers = await Promise.all([
      t.api('DELETE', `/groups/${group.id}/members/${second.user.id}`, { token: first.token }),
      t.api('DELETE', `/groups/${group.id}/members/${first.user.id}`, { token: second.token }),
    ])
    // The loser is refused as the last Owner (403), or, when the winner's removal of it has
    // committed before its request looks, no longer sees the private group at all (404).
    const [winner, loser] = statuses(answers)
    assert.equal(winner, 204)
    assert.ok(loser === 403 || loser === 404, `the second removal answered ${loser}`)
    const owners = await t.ctx.db.selectFrom('members').select('user_id')
      .where('source_type', '=', 'group').where('source_id', '=', group.id).where('access_level', '=', OWNER).execute()
    assert.equal(owners.length, 1)
  })

  it('leaves a group one Owner when its last two demote each other at once', async () => {
    const first = await makeUser(t)
    const second = await makeUser(t)
    const group = await makeGroup(t, {}, first)
    await makeMember(t, { type: 'group', id: group.id }, second, OWNER)
    const answers = await Promise.all([
      t.api('PUT', `/groups/${group.id}/members/${second.user.id}`, { token: first.token, body: { access_level: MAINTAINER } }),
      t.api('PUT', `/groups/${group.id}/members/${first.user.id}`, { token: second.token, body: { access_level: MAINTAINER } }),
    ])
    assert.deepEqual(statuses(answers), [200, 403])
  })

  it("creates one project where the user's limit leaves one place", async () => {
    const user = await makeUser(t, { projects_limit: 1 })
    const answers = await Promise.all([1, 2, 3].map(() =>
      t.api('POST', '/projects', { token: user.token, body: { name: uniqueName('project') } })))
    // The original refuses a reached limit on POST /projects with 403 and the messages alone.
    assert.deepEqual(statuses(answers), [201, 403, 403])
    const refused = answers.find((answer) => answer.status === 403)!
    assert.deepEqual(refused.body, { message: ['Your project limit is 1 projects! Please contact your administrator to increase it'] })
    const namespaces = await t.ctx.db.selectFrom('projects').innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
      .select('projects.id').where('namespaces.owner_id', '=', user.user.id).execute()
    assert.equal(namespaces.length, 1)
  })

  it('moves an issue once when two moves of it run at once', async () => {
    const user = await makeUser(t)
    const [source, first, second] = await Promise.all([makeProject(t, user), makeProject(t, user), makeProject(t, user)])
    const issue = await t.api('POST', `/projects/${source.id}/issues`, { token: user.token, body: { title: 'Moving' } })
    assert.equal(issue.status, 201)
    const answers = await Promise.all([first, second].map((target) =>
      t.api('POST', `/projects/${source.id}/issues/${issue.body.iid}/move`, { token: user.token, body: { to_project_id: target.id } })))
    assert.deepEqual(statuses(answers), [201, 400])
    const copies = await t.ctx.db.selectFrom('issues').select('id').where('project_id', 'in', [first.id, second.id]).execute()
    assert.equal(copies.length, 1)
  })
})
