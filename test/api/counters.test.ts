// The maintained counts behind the X-Total of unfiltered GET /users and GET /projects stay equal to
// counting the rows, through creates, visibility changes and every kind of delete.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser, type TestUser } from '../helpers/factories.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'

describe('maintained list totals', () => {
  let t: TestApp
  let reader: TestUser
  let external: TestUser
  before(async () => {
    t = await buildTestApp()
    reader = await makeUser(t)
    external = await makeUser(t, { external: true })
  })
  after(async () => { await t.close() })

  const total = async (path: string, token: string | null) => {
    const res = await t.api('GET', path, { token, query: { per_page: 1 } })
    assert.equal(res.status, 200, res.text)
    return Number(res.headers['x-total'])
  }
  /** What counting the rows gives, for each kind of caller. */
  const counted = async () => {
    const all = await t.ctx.db.selectFrom('projects').select(['id', 'visibility_level']).execute()
    const granted = new Set((await t.ctx.db.selectFrom('members').select('source_id')
      .where('source_type', '=', 'project').where('user_id', '=', reader.user.id).execute()).map((m) => m.source_id))
    return {
      admin: all.length,
      anonymous: all.filter((p) => p.visibility_level === 20).length,
      reader: all.filter((p) => p.visibility_level >= 10 || granted.has(p.id)).length,
      external: all.filter((p) => p.visibility_level === 20).length,
      users: (await t.ctx.db.selectFrom('users').select('id').where('ghost', '=', 0).execute()).length,
    }
  }
  const expectTotalsMatch = async () => {
    const expected = await counted()
    assert.deepEqual({
      admin: await total('/projects', t.root.token),
      anonymous: await total('/projects', null),
      reader: await total('/projects', reader.token),
      external: await total('/projects', external.token),
      users: await total('/users', t.root.token),
    }, expected)
  }

  it('match counting after creates, visibility changes and deletes', async () => {
    const owner = await makeUser(t)
    const group = await makeGroup(t, { visibility: 'public' }, owner)
    const inGroup = [
      await makeProject(t, owner, { namespace: group, visibility: 'public' }),
      await makeProject(t, owner, { namespace: group, visibility: 'internal' }),
      await makeProject(t, owner, { namespace: group, visibility: 'private' }),
    ]
    const personal = await makeProject(t, owner, { visibility: 'private' })
    await makeMember(t, { type: 'project', id: personal.id }, reader, DEVELOPER)
    await expectTotalsMatch()

    await t.api('PUT', `/projects/${inGroup[2]!.id}`, { body: { visibility: 'public' } })
    await expectTotalsMatch()
    await t.api('DELETE', `/projects/${inGroup[0]!.id}`)
    await expectTotalsMatch()
    await t.api('DELETE', `/groups/${group.id}`)
    await expectTotalsMatch()
    const res = await t.api('DELETE', `/users/${owner.user.id}`)
    assert.equal(res.status, 204)
    await expectTotalsMatch()
  })
})
