// Merge request lists (global, group, project) show exactly the merge requests the caller may open:
// an external Guest of an internal project, or a Guest of a private one, gets 404 on the merge
// request and does not find it listed either.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { makeMergeRequest } from '../helpers/noteables.js'
import type { MergeRequestRow, NamespaceRow, ProjectRow } from '../../src/db/schema.js'
import { GUEST, REPORTER } from '../../src/policies/access-levels.js'

describe('merge request lists and who may open their items', () => {
  let t: TestApp
  let owner: TestUser
  let group: NamespaceRow
  const projects: Record<'internal' | 'private', { project: ProjectRow; mr: MergeRequestRow }> = {} as never

  before(async () => {
    t = await buildTestApp()
    owner = await makeUser(t)
    group = await makeGroup(t, { visibility: 'internal' }, owner)
    for (const visibility of ['internal', 'private'] as const) {
      const project = await makeProject(t, owner, { visibility, namespace: group })
      projects[visibility] = { project, mr: await makeMergeRequest(t, project, owner, { title: `${visibility} change` }) }
    }
  })
  after(async () => { await t.close() })

  /** What each list shows the caller, as titles, and which of the merge requests they may open. */
  const seenBy = async (token: string) => {
    const titles = async (path: string) => {
      const res = await t.api('GET', path, { token, query: { scope: 'all', per_page: 100 } })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.headers['x-total'], String(res.body.length))
      return (res.body as { title: string }[]).map((mr) => mr.title).sort()
    }
    const opens: string[] = []
    for (const { project, mr } of Object.values(projects)) {
      const res = await t.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}`, { token })
      if (res.status === 200) opens.push(mr.title)
      else assert.equal(res.status, 404)
    }
    return { global: await titles('/merge_requests'), group: await titles(`/groups/${group.id}/merge_requests`), opens: opens.sort() }
  }

  const expectSeen = (seen: Awaited<ReturnType<typeof seenBy>>, titles: string[]) =>
    assert.deepEqual(seen, { global: titles, group: titles, opens: titles })

  it('lists none to an external Guest, who may open none', async () => {
    const external = await makeUser(t, { external: true })
    await makeMember(t, { type: 'group', id: group.id }, external, GUEST)
    expectSeen(await seenBy(external.token), [])
  })

  it('lists an internal project’s to every signed-in user who is not external', async () => {
    expectSeen(await seenBy((await makeUser(t)).token), ['internal change'])
    const guest = await makeUser(t)
    await makeMember(t, { type: 'group', id: group.id }, guest, GUEST)
    expectSeen(await seenBy(guest.token), ['internal change'])
  })

  it('lists a private project’s to Reporters and up, and to external Reporters', async () => {
    const external = await makeUser(t, { external: true })
    await makeMember(t, { type: 'group', id: group.id }, external, REPORTER)
    expectSeen(await seenBy(external.token), ['internal change', 'private change'])
    expectSeen(await seenBy(owner.token), ['internal change', 'private change'])
  })
})
