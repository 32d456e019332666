// The daily clean-up jobs, run through the real job queue: ending memberships whose expiry date has
// come (with `expired` events for projects) and pruning events older than two years. (How recurring
// kinds are scheduled is test/jobs/queue.test.ts's.)
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeMember, makeProject, makeUser } from '../helpers/factories.js'
import { today } from '../../src/db/values.js'
import type { JobKind } from '../../src/jobs/kind.js'
import { PRUNE_OLD_EVENTS } from '../../src/services/events/jobs.js'
import { END_EXPIRED_MEMBERSHIPS } from '../../src/services/members/jobs.js'
import { EVENT_RETENTION_MS } from '../../src/services/events/prune-old-events.js'
import { recordEvent } from '../../src/services/events/record-event.js'
import { removeExpiredMembers } from '../../src/services/members/remove-expired-members.js'
import { DEVELOPER, GUEST, REPORTER } from '../../src/policies/access-levels.js'

const DAY_MS = 24 * 60 * 60 * 1000
const inDays = (days: number) => today(Date.now() + days * DAY_MS)

describe('housekeeping', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  const runJob = async (kind: JobKind<null>) => {
    await t.ctx.jobs.enqueue(kind, null)
    assert.ok(await t.ctx.jobs.runDue() >= 1)
  }

  it('ends memberships whose expiry date is today or earlier, recording expired for projects', async () => {
    const project = await makeProject(t, null)
    const group = await makeGroup(t)
    const [yesterday, todays, tomorrow, never, groupExpired, groupKept] =
      [await makeUser(t), await makeUser(t), await makeUser(t), await makeUser(t), await makeUser(t), await makeUser(t)]
    await makeMember(t, { type: 'project', id: project.id }, yesterday, DEVELOPER, inDays(-1))
    await makeMember(t, { type: 'project', id: project.id }, todays, GUEST, today())
    await makeMember(t, { type: 'project', id: project.id }, tomorrow, REPORTER, inDays(1))
    await makeMember(t, { type: 'project', id: project.id }, never, REPORTER)
    await makeMember(t, { type: 'group', id: group.id }, groupExpired, REPORTER, inDays(-30))
    await makeMember(t, { type: 'group', id: group.id }, groupKept, REPORTER, inDays(30))
    const eventsBefore = await t.ctx.db.selectFrom('events').select('id').execute()

    await runJob(END_EXPIRED_MEMBERSHIPS)

    const projectMembers = await t.ctx.db.selectFrom('members').select('user_id')
      .where('source_type', '=', 'project').where('source_id', '=', project.id).execute()
    assert.deepEqual(new Set(projectMembers.map((m) => m.user_id)), new Set([t.root.user.id, tomorrow.user.id, never.user.id]))
    const groupMembers = await t.ctx.db.selectFrom('members').select('user_id')
      .where('source_type', '=', 'group').where('source_id', '=', group.id).execute()
    assert.deepEqual(new Set(groupMembers.map((m) => m.user_id)), new Set([t.root.user.id, groupKept.user.id]))

    const events = await t.ctx.db.selectFrom('events').selectAll()
      .where('id', 'not in', eventsBefore.length ? eventsBefore.map((e) => e.id) : [0]).orderBy('id').execute()
    assert.deepEqual(events.map((e) => [e.action, e.author_id, e.project_id]).sort(), [
      ['expired', todays.user.id, project.id],
      ['expired', yesterday.user.id, project.id],
    ].sort())

    const res = await t.api('GET', `/projects/${project.id}/events`, { query: { action: 'expired' } })
    assert.deepEqual(res.body.map((e: { action_name: string }) => e.action_name),
      ['removed due to membership expiration from', 'removed due to membership expiration from'])
  })

  it('ends large backlogs in batches', async () => {
    const project = await makeProject(t, null)
    const users = []
    for (let i = 0; i < 12; i += 1) users.push(await makeUser(t))
    const now = Date.now()
    await t.ctx.db.insertInto('members').values(users.map(({ user }) => ({
      source_type: 'project' as const, source_id: project.id, user_id: user.id, access_level: GUEST,
      expires_at: inDays(-2), created_by_id: null, created_at: now, updated_at: now,
    }))).execute()

    assert.equal(await removeExpiredMembers(t.ctx.db, Date.now(), 5), 12)
    await runJob(END_EXPIRED_MEMBERSHIPS)

    const left = await t.ctx.db.selectFrom('members').select('id').where('expires_at', '<=', today()).execute()
    assert.equal(left.length, 0)
    const expired = await t.ctx.db.selectFrom('events').select('id')
      .where('project_id', '=', project.id).where('action', '=', 'expired').execute()
    assert.equal(expired.length, 12)
  })

  it('prunes events older than two years and keeps younger ones', async () => {
    const author = await makeUser(t)
    const project = await makeProject(t, author)
    const now = Date.now()
    await recordEvent(t.ctx.db, { action: 'joined', authorId: author.user.id, projectId: project.id, createdAt: now - EVENT_RETENTION_MS - DAY_MS })
    await recordEvent(t.ctx.db, { action: 'left', authorId: author.user.id, projectId: project.id, createdAt: now - EVENT_RETENTION_MS - 60_000 })
    await recordEvent(t.ctx.db, { action: 'joined', authorId: author.user.id, projectId: null, createdAt: now - EVENT_RETENTION_MS + DAY_MS })

    await runJob(PRUNE_OLD_EVENTS)

    const events = await t.ctx.db.selectFrom('events').selectAll().where('author_id', '=', author.user.id).orderBy('created_at').execute()
    assert.deepEqual(events.map((e) => [e.action, e.project_id]), [['joined', null], ['created', project.id]])
    const oldest = await t.ctx.db.selectFrom('events').select((eb) => eb.fn.min('created_at').as('at')).executeTakeFirstOrThrow()
    assert.ok(Number(oldest.at) >= now - EVENT_RETENTION_MS)
  })
})
