// Deleting what holds issues: the issue count triggers keep counts only for projects that still
// exist, so a deletion cascading through projects and their issues in any order goes through.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeProject } from '../helpers/factories.js'

describe('deleting projects that hold issues', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(() => t.close())

  const openIssue = async (projectId: number, title: string) => {
    const res = await t.api('POST', `/projects/${projectId}/issues`, { body: { title } })
    assert.equal(res.status, 201, res.text)
    return res.body as { iid: number }
  }

  it('deletes a group whose projects hold issues, one moved between them', async () => {
    const group = await makeGroup(t)
    const [first, second] = [await makeProject(t, null, { namespace: group }), await makeProject(t, null, { namespace: group })]
    const moving = await openIssue(first.id, 'Moving')
    await openIssue(second.id, 'Staying')
    assert.equal((await t.api('POST', `/projects/${first.id}/issues/${moving.iid}/move`, { body: { to_project_id: second.id } })).status, 201)
    assert.equal((await t.api('DELETE', `/groups/${group.id}`)).status, 202)
    const left = await t.ctx.db.selectFrom('issue_counts').select('project_id').where('project_id', 'in', [first.id, second.id]).execute()
    assert.deepEqual(left, [])
  })

  it('deletes a project whose issues were counted, and keeps the counts of the others', async () => {
    const [doomed, kept] = [await makeProject(t, null), await makeProject(t, null)]
    await openIssue(doomed.id, 'Doomed')
    await openIssue(kept.id, 'Kept')
    assert.equal((await t.api('DELETE', `/projects/${doomed.id}`)).status, 202)
    const counts = await t.ctx.db.selectFrom('issue_counts').select(['project_id', 'value']).where('project_id', 'in', [doomed.id, kept.id]).execute()
    assert.deepEqual(counts.map((row) => [row.project_id, Number(row.value)]), [[kept.id, 1]])
  })
})
