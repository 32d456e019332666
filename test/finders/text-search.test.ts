// Text the same way on SQLite and PostgreSQL: lists ordered by name or path come in code point
// order even on a PostgreSQL database with a linguistic collation (where '_x' < 'a' < 'B' and
// spaces are ignored), and case-insensitive search folds every letter, not only ASCII ones.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeProject, makeUser, uniqueName } from '../helpers/factories.js'

const NAMES = ['beta', 'Alpha', 'alpha two', 'alphatwo', '_under', 'Zulu', 'Élan', 'ab-c', 'abd']
const inCodePointOrder = (names: readonly string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

describe('text ordering and matching on both databases', () => {
  let t: TestApp
  const marker = uniqueName('m')

  before(async () => {
    t = await buildTestApp({ icuLocale: 'en-US' })
    const owner = await makeUser(t)
    for (const [i, name] of NAMES.entries()) {
      await makeGroup(t, { name: `${name} ${marker}`, path: `${marker}-g${i}`, visibility: 'public' })
      await makeProject(t, owner, { name: `${name} ${marker}`, path: `${marker}-p${i}`, visibility: 'public' })
      await makeUser(t, { name: `${name} ${marker}`, username: `${marker}-u${i}` })
    }
  })
  after(async () => { await t.close() })

  const namesOf = async (path: string, query: Record<string, string>) => {
    const res = await t.api('GET', path, { query: { per_page: '100', search: marker, ...query } })
    assert.equal(res.status, 200, res.text)
    return (res.body as { name: string }[]).map((item) => item.name.replace(` ${marker}`, ''))
  }

  it('orders groups, projects and users by name in code point order, both ways', async () => {
    const expected = inCodePointOrder(NAMES)
    for (const path of ['/groups', '/projects', '/users']) {
      assert.deepEqual(await namesOf(path, { order_by: 'name', sort: 'asc' }), expected, path)
      assert.deepEqual(await namesOf(path, { order_by: 'name', sort: 'desc' }), [...expected].reverse(), path)
    }
  })

  it('folds the case of every letter when searching', async () => {
    for (const path of ['/groups', '/projects', '/users']) {
      const res = await t.api('GET', path, { query: { search: `éLAN ${marker.toUpperCase()}` } })
      assert.deepEqual(res.body.map((item: { name: string }) => item.name), [`Élan ${marker}`], path)
    }
  })
})
