// Award emoji on issues, merge requests, project snippets and their notes: the entity, list (in the
// order given, paginated) and get, awarding (aliases stored canonically; unknown names, repeats and
// votes on one's own work refused as the original refuses them), votes counted on issues and merge
// requests, taking an award back (its awarder or an admin), and who may (401, 404 private, 403).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { basicUser, makeNoteable, NOTEABLE_KINDS, type MadeNoteable } from '../helpers/noteables.js'
import { setProjectColumns } from '../helpers/projects.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'

describe('Award emoji API', () => {
  let t: TestApp
  let m: Matrix

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t, 'private')
  })
  after(async () => { await t.close() })

  const votes = async (noteable: MadeNoteable) => {
    if (noteable.type === 'Snippet') return null
    const table = noteable.type === 'Issue' ? 'issues' : 'merge_requests'
    const row = await t.ctx.db.selectFrom(table).select(['upvotes', 'downvotes']).where('id', '=', noteable.id).executeTakeFirstOrThrow()
    return [row.upvotes, row.downvotes]
  }

  for (const kind of NOTEABLE_KINDS) {
    for (const onNote of [false, true]) {
      describe(`on ${onNote ? `notes of ${kind}s` : `${kind}s`}`, () => {
        let noteable: MadeNoteable
        let path: string
        let awardableId: number
        const awardableType = onNote ? 'Note' : { issue: 'Issue', merge_request: 'MergeRequest', snippet: 'Snippet' }[kind]
        /** The author of the awardable: the developer (the awardable's author) cannot vote on it. */
        const author = () => m.users.developer

        before(async () => {
          noteable = await makeNoteable(t, kind, m.project, m.users.developer)
          if (onNote) {
            const note = await t.api('POST', `${noteable.path}/notes`, { token: m.users.developer.token, body: { body: 'a note' } })
            awardableId = note.body.id
            path = `${noteable.path}/notes/${awardableId}/award_emoji`
          } else {
            awardableId = noteable.id
            path = `${noteable.path}/award_emoji`
          }
        })

        it('awards an emoji: 201 with the exact entity, aliases stored canonically, votes counted', async () => {
          const res = await t.api('POST', path, { token: m.users.reporter.token, body: { name: '+1' } })
          assert.equal(res.status, 201, res.text)
          const row = await t.ctx.db.selectFrom('award_emoji').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
          assert.deepEqual(res.body, {
            id: row.id, name: 'thumbsup', user: basicUser(m.users.reporter.user),
            created_at: new Date(row.created_at).toISOString(), updated_at: new Date(row.updated_at).toISOString(),
            awardable_id: awardableId, awardable_type: awardableType,
          })
          const down = await t.api('POST', path, { token: m.users.maintainer.token, body: { name: 'thumbsdown' } })
          assert.equal(down.status, 201)
          if (!onNote && kind !== 'snippet') assert.deepEqual(await votes(noteable), [1, 1])
          if (onNote) assert.deepEqual(await votes(noteable), kind === 'snippet' ? null : [0, 0])
          const got = await t.api('GET', `${path}/${row.id}`, { token: m.users.reporter.token })
          assert.deepEqual(got.body, res.body)
        })

        it('refuses unknown names, repeats and votes on one\'s own work with 404, as the original', async () => {
          const unknown = await t.api('POST', path, { token: m.users.maintainer.token, body: { name: 'no_such_emoji' } })
          assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Award Emoji {:name=>["is not included in the list"]} Not Found' }])
          assert.equal((await t.api('POST', path, { token: m.users.maintainer.token, body: { name: 'tada' } })).status, 201)
          const again = await t.api('POST', path, { token: m.users.maintainer.token, body: { name: 'tada' } })
          assert.deepEqual([again.status, again.body], [404, { message: '404 Award Emoji {:name=>["has already been taken"]} Not Found' }])
          const ownVote = await t.api('POST', path, { token: author().token, body: { name: 'thumbsup' } })
          assert.deepEqual([ownVote.status, ownVote.body], [404, { message: '404 Award Emoji Not Found' }])
          assert.equal((await t.api('POST', path, { token: author().token, body: { name: 'heart' } })).status, 201)
          assert.deepEqual((await t.api('POST', path, { body: {} })).body, { error: 'name is missing' })
        })

        it('lists awards in the order given, paginated', async () => {
          const res = await t.api('GET', path, { token: m.users.reporter.token })
          assert.equal(res.status, 200)
          const names = (res.body as { name: string }[]).map((a) => a.name)
          assert.deepEqual(names, ['thumbsup', 'thumbsdown', 'tada', 'heart'])
          await expectPaginates({ t, path, token: m.users.reporter.token, total: 4 })
          await expectRejectsBadPagination(t, path, m.users.reporter.token)
        })

        it('takes an award back: its awarder or an admin (403 for others), votes counted down', async () => {
          const award = (await t.api('POST', path, { token: m.users.owner.token, body: { name: 'thumbsup' } })).body
          const before = await votes(noteable)
          const del = (token: string | null) => t.api('DELETE', `${path}/${award.id}`, { token })
          await expectStatuses(m, del, { anonymous: 401, nonMember: 404, maintainer: 403 })
          assert.equal((await del(m.users.owner.token)).status, 204)
          if (!onNote && kind !== 'snippet') assert.deepEqual(await votes(noteable), [(before?.[0] ?? 0) - 1, before?.[1]])
          assert.equal((await del(m.users.owner.token)).status, 404)
          const byAdmin = (await t.api('POST', path, { token: m.users.owner.token, body: { name: 'rocket' } })).body
          assert.equal((await t.api('DELETE', `${path}/${byAdmin.id}`)).status, 204)
        })

        it('answers each caller as the awardable allows, and 404 or 400 for bad ids', async () => {
          const readers = kind === 'merge_request' ? { guest: 404 } : { guest: 200 }
          await expectStatuses(m, (token) => t.api('GET', path, { token }), {
            anonymous: 401, nonMember: 404, external: 404, reporter: 200, admin: 200, blocked: 403, ...readers,
          })
          await expectStatuses(m, (token) => t.api('POST', path, { token, body: { name: 'eyes' } }), {
            anonymous: 401, nonMember: 404, external: 404, reporter: 201, admin: 201, blocked: 403,
          })
          assert.deepEqual((await t.api('GET', `${path}/99999999`)).body, { message: '404 Award Emoji Not Found' })
          assert.deepEqual((await t.api('GET', `${path}/abc`)).body, { error: 'award_id is invalid' })
          if (onNote) assert.deepEqual((await t.api('GET', path.replace(/notes\/\d+/, 'notes/99999999'))).body, { message: '404 Note Not Found' })
        })
      })
    }
  }

  it('refuses awards on archived projects (403) and keeps them readable', async () => {
    const owner = m.users.owner
    const noteable = await makeNoteable(t, 'issue', m.project, m.users.developer)
    await setProjectColumns(t, m.project.id, { archived: 1 })
    try {
      assert.equal((await t.api('POST', `${noteable.path}/award_emoji`, { token: owner.token, body: { name: 'tada' } })).status, 403)
      assert.equal((await t.api('GET', `${noteable.path}/award_emoji`, { token: owner.token })).status, 200)
    } finally {
      await setProjectColumns(t, m.project.id, { archived: 0 })
    }
  })
})
