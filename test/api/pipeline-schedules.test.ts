// /projects/:id/pipeline_schedules: Developers read and create schedules, Maintainers or a schedule's
// owner change them, the cron and time zone are checked as the original does and next_run_at is
// computed; the recurring job runs a due schedule once even when two workers run at once, as the
// owner, with the schedule's variables and `only: [schedules]`, and not for a gone owner or ref.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { blockUser, makeMember, makeProject, makeUser } from '../helpers/factories.js'
import { expectPaginates } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'
import { RUN_PIPELINE_SCHEDULES } from '../../src/services/ci/jobs.js'
import { nextRunAt, runDueSchedules } from '../../src/services/ci/pipeline-schedules.js'
import type { RunningJob } from '../../src/jobs/kind.js'

const CI_FILE = [
  'build: { script: make }',
  'nightly: { script: "make nightly", only: [schedules] }',
  'pushed: { script: lint, except: [schedules] }',
  '',
].join('\n')

const SCHEDULE = { description: 'nightly', ref: 'master', cron: '0 4 * * *', cron_timezone: 'Asia/Tokyo' }

describe('pipeline schedules API', () => {
  let t: TestApp
  let m: Matrix
  let base: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t)
    base = `/projects/${m.project.id}`
    await commitFiles(t, m.project.id, { '.gitlab-ci.yml': CI_FILE })
  })
  after(async () => { await t.close() })

  async function create(token: string | null = m.tokens.developer, body: Record<string, unknown> = {}) {
    return t.api('POST', `${base}/pipeline_schedules`, { token, body: { ...SCHEDULE, ...body } })
  }

  /** Makes the schedule due a minute ago. */
  async function makeDue(id: number) {
    await t.ctx.db.updateTable('ci_pipeline_schedules').set({ next_run_at: Date.now() - 60_000 }).where('id', '=', id).execute()
  }

  async function pipelinesOf(scheduleId: number) {
    return t.ctx.db.selectFrom('ci_pipelines').selectAll().where('pipeline_schedule_id', '=', scheduleId).execute()
  }

  describe('managing schedules', () => {
    it('creates a schedule with its next run in its time zone, active by default', async () => {
      const res = await create()
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(Object.keys(res.body).sort(), [
        'active', 'created_at', 'cron', 'cron_timezone', 'description', 'id', 'last_pipeline', 'next_run_at', 'owner', 'ref', 'updated_at', 'variables',
      ])
      assert.equal(res.body.active, true)
      assert.equal(res.body.owner.username, m.users.developer.user.username)
      assert.equal(res.body.last_pipeline, null)
      assert.deepEqual(res.body.variables, [])
      // 04:00 in Tokyo is 19:00 UTC.
      assert.match(res.body.next_run_at, /T19:00:00\.000Z$/)
      assert.ok(Date.parse(res.body.next_run_at) > Date.now())
      const utc = await create(m.tokens.developer, { cron_timezone: undefined, active: false })
      assert.equal(utc.body.cron_timezone, 'UTC')
      assert.equal(utc.body.active, false)
      assert.match(utc.body.next_run_at, /T04:00:00\.000Z$/)
    })

    it('answers the original\'s 400s', async () => {
      const cases: [Record<string, unknown>, unknown][] = [
        [{ cron: '* * * *' }, { message: { cron: [' is invalid syntax'] } }],
        [{ cron: '0 0 * * * *' }, { message: { cron: [' is invalid syntax'] } }],
        [{ cron: '61 * * * *' }, { message: { cron: [' is invalid syntax'] } }],
        [{ cron_timezone: 'Mars/Olympus' }, { message: { cron_timezone: [' is invalid syntax'] } }],
        [{ description: '' }, { message: { description: ['can\'t be blank'] } }],
        [{ cron: undefined }, { error: 'cron is missing' }],
        [{ active: 'maybe' }, { error: 'active is invalid' }],
      ]
      for (const [body, expected] of cases) {
        const res = await create(m.tokens.developer, body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(res.body, expected)
      }
      const { body: schedule } = await create()
      const bad = await t.api('PUT', `${base}/pipeline_schedules/${schedule.id}`, { token: m.tokens.developer, body: { cron: 'nope' } })
      assert.equal(bad.status, 400)
      assert.deepEqual(bad.body, { message: { cron: [' is invalid syntax'] } })
    })

    it('lists newest first, by scope, and paginates', async () => {
      const project = await makeProject(t, m.users.maintainer)
      const path = `/projects/${project.id}/pipeline_schedules`
      const ids = []
      for (const active of [true, false, true]) {
        ids.push((await t.api('POST', path, { token: m.users.maintainer.token, body: { ...SCHEDULE, active } })).body.id)
      }
      const all = await t.api('GET', path, { token: m.users.maintainer.token })
      assert.deepEqual(all.body.map((item: { id: number }) => item.id), [...ids].reverse())
      assert.ok(!('variables' in all.body[0]))
      const active = await t.api('GET', path, { token: m.users.maintainer.token, query: { scope: 'active' } })
      assert.deepEqual(active.body.map((item: { id: number }) => item.id), [ids[2], ids[0]])
      const inactive = await t.api('GET', path, { token: m.users.maintainer.token, query: { scope: 'inactive' } })
      assert.deepEqual(inactive.body.map((item: { id: number }) => item.id), [ids[1]])
      assert.equal((await t.api('GET', path, { token: m.users.maintainer.token, query: { scope: 'all' } })).status, 400)
      await expectPaginates({ t, path, token: m.users.maintainer.token, total: 3 })
    })

    it('lets Developers read and create, Maintainers and the owner change; private projects are 404 to others', async () => {
      const { body: schedule } = await create()
      const path = `${base}/pipeline_schedules/${schedule.id}`
      await expectStatuses(m, (token) => t.api('GET', `${base}/pipeline_schedules`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 200, maintainer: 200, owner: 200, admin: 200,
      })
      await expectStatuses(m, (token) => t.api('GET', path, { token }), {
        anonymous: 401, nonMember: 404, guest: 404, reporter: 404, developer: 200, maintainer: 200, admin: 200,
      })
      assert.deepEqual((await t.api('GET', path, { token: m.tokens.reporter })).body, { message: '404 Pipeline Schedule Not Found' })
      await expectStatuses(m, (token) => create(token), { nonMember: 404, reporter: 403, developer: 201, maintainer: 201 })
      // Another Developer may not change the developer's schedule; Maintainers may.
      const other = await makeUser(t)
      await makeMember(t, { type: 'project', id: m.project.id }, other, DEVELOPER)
      const put = (token: string | null) => t.api('PUT', path, { token, body: { description: 'changed' } })
      assert.equal((await put(other.token)).status, 403)
      await expectStatuses(m, put, { reporter: 404, developer: 200, maintainer: 200, admin: 200 })
      const variable = (token: string | null) => t.api('POST', `${path}/variables`, { token, body: { key: `K${Math.random().toString(36).slice(2)}`, value: 'v' } })
      assert.equal((await variable(other.token)).status, 403)
      await expectStatuses(m, variable, { developer: 201, maintainer: 201 })
      const variablePath = `${path}/variables/SHARED`
      await t.api('POST', `${path}/variables`, { token: m.tokens.developer, body: { key: 'SHARED', value: 'v' } })
      await expectStatuses(m, (token) => t.api('PUT', variablePath, { token, body: { value: 'w' } }), {
        anonymous: 401, nonMember: 404, reporter: 404, developer: 200, maintainer: 200,
      })
      assert.equal((await t.api('PUT', variablePath, { token: other.token, body: { value: 'x' } })).status, 403)
      assert.equal((await t.api('DELETE', variablePath, { token: other.token })).status, 403)
      await expectStatuses(m, (token) => t.api('DELETE', path, { token }), { anonymous: 401, nonMember: 404, guest: 404, reporter: 404 })
      assert.equal((await t.api('DELETE', variablePath, { token: m.tokens.maintainer })).status, 202)
      assert.equal((await t.api('DELETE', path, { token: other.token })).status, 403)
      assert.equal((await t.api('DELETE', path, { token: m.tokens.developer })).status, 204)
      assert.equal((await t.api('GET', path, { token: m.tokens.developer })).status, 404)
      assert.equal((await t.api('GET', `${base}/pipeline_schedules/999999`, { token: m.tokens.developer })).status, 404)
    })

    it('updates and hands over a schedule, next_run_at following its cron', async () => {
      const { body: schedule } = await create()
      const path = `${base}/pipeline_schedules/${schedule.id}`
      const updated = await t.api('PUT', path, { token: m.tokens.developer, body: { cron: '30 2 * * *', cron_timezone: 'UTC', active: false, ref: 'other' } })
      assert.equal(updated.status, 200, updated.text)
      assert.equal(updated.body.active, false)
      assert.equal(updated.body.ref, 'other')
      assert.equal(updated.body.description, 'nightly')
      assert.match(updated.body.next_run_at, /T02:30:00\.000Z$/)
      assert.equal((await t.api('POST', `${path}/take_ownership`, { token: m.tokens.reporter })).status, 404)
      const taken = await t.api('POST', `${path}/take_ownership`, { token: m.tokens.maintainer })
      assert.equal(taken.status, 201, taken.text)
      assert.equal(taken.body.owner.username, m.users.maintainer.user.username)
      // No longer the owner, the developer may not change it.
      assert.equal((await t.api('PUT', path, { token: m.tokens.developer, body: { description: 'x' } })).status, 403)
    })

    it('keeps variables sealed, and edits and deletes them by key', async () => {
      const { body: schedule } = await create()
      const path = `${base}/pipeline_schedules/${schedule.id}/variables`
      const added = await t.api('POST', path, { token: m.tokens.developer, body: { key: 'DEPLOY_KEY', value: 'secret-value' } })
      assert.equal(added.status, 201, added.text)
      assert.deepEqual(added.body, { key: 'DEPLOY_KEY', value: 'secret-value' })
      const row = await t.ctx.db.selectFrom('ci_pipeline_schedule_variables').selectAll().where('pipeline_schedule_id', '=', schedule.id).executeTakeFirstOrThrow()
      assert.ok(!row.encrypted_value.includes('secret-value'))
      const again = await t.api('POST', path, { token: m.tokens.developer, body: { key: 'DEPLOY_KEY', value: 'x' } })
      assert.deepEqual([again.status, again.body], [400, { message: { key: ['has already been taken'] } }])
      const badKey = await t.api('POST', path, { token: m.tokens.developer, body: { key: 'bad key', value: 'x' } })
      assert.deepEqual([badKey.status, badKey.body], [400, { message: { key: ['can contain only letters, digits and \'_\'.'] } }])
      assert.deepEqual((await t.api('POST', path, { token: m.tokens.developer, body: { key: 'A' } })).body, { error: 'value is missing' })
      const edited = await t.api('PUT', `${path}/DEPLOY_KEY`, { token: m.tokens.developer, body: { value: 'new' } })
      assert.deepEqual([edited.status, edited.body], [200, { key: 'DEPLOY_KEY', value: 'new' }])
      const details = await t.api('GET', `${base}/pipeline_schedules/${schedule.id}`, { token: m.tokens.developer })
      assert.deepEqual(details.body.variables, [{ key: 'DEPLOY_KEY', value: 'new' }])
      const missing = await t.api('PUT', `${path}/NOPE`, { token: m.tokens.developer, body: { value: 'x' } })
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Pipeline Schedule Variable Not Found' }])
      const deleted = await t.api('DELETE', `${path}/DEPLOY_KEY`, { token: m.tokens.developer })
      assert.deepEqual([deleted.status, deleted.body], [202, { key: 'DEPLOY_KEY', value: 'new' }])
      assert.equal((await t.api('DELETE', `${path}/DEPLOY_KEY`, { token: m.tokens.developer })).status, 404)
    })
  })

  describe('running schedules', () => {
    const fakeJob = (): RunningJob => ({
      id: 'test', kind: RUN_PIPELINE_SCHEDULES.name, attempt: 1, attempts: 1, signal: new AbortController().signal, log: t.ctx.log, requestId: null,
    })

    it('runs a due schedule once when two workers run at once, as its owner, with its variables', async () => {
      const { body: schedule } = await create()
      await t.api('POST', `${base}/pipeline_schedules/${schedule.id}/variables`, { token: m.tokens.developer, body: { key: 'NIGHTLY', value: 'yes' } })
      await makeDue(schedule.id)
      await Promise.all([RUN_PIPELINE_SCHEDULES.run(t.ctx, null, fakeJob()), RUN_PIPELINE_SCHEDULES.run(t.ctx, null, fakeJob())])
      const pipelines = await pipelinesOf(schedule.id)
      assert.equal(pipelines.length, 1)
      const [pipeline] = pipelines
      assert.equal(pipeline!.source, 'schedule')
      assert.equal(pipeline!.user_id, m.users.developer.user.id)
      const jobs = await t.ctx.db.selectFrom('ci_builds').select('name').where('pipeline_id', '=', pipeline!.id).orderBy('name').execute()
      assert.deepEqual(jobs.map((job) => job.name), ['build', 'nightly'])
      const variables = await t.ctx.db.selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', pipeline!.id).execute()
      assert.deepEqual(variables.map((row) => [row.key, t.ctx.secrets.open('ci.pipeline_variables', row.encrypted_value)]), [['NIGHTLY', 'yes']])
      const after = await t.api('GET', `${base}/pipeline_schedules/${schedule.id}`, { token: m.tokens.developer })
      assert.equal(after.body.last_pipeline.id, pipeline!.id)
      assert.ok(Date.parse(after.body.next_run_at) > Date.now())
      // Not due any more: a later run makes nothing.
      assert.equal(await runDueSchedules(t.ctx, Date.now()), 0)
      assert.equal((await pipelinesOf(schedule.id)).length, 1)
    })

    it('skips inactive schedules and makes no pipeline for a blocked or gone owner or a missing ref', async () => {
      const owner = await makeUser(t)
      await makeMember(t, { type: 'project', id: m.project.id }, owner, DEVELOPER)
      const ids = {
        inactive: (await create(m.tokens.developer, { active: false })).body.id,
        blocked: (await create(owner.token)).body.id,
        gone: (await create()).body.id,
        noRef: (await create(m.tokens.developer, { ref: 'missing' })).body.id,
      }
      await blockUser(t, owner.user.id)
      await t.ctx.db.updateTable('ci_pipeline_schedules').set({ owner_id: null }).where('id', '=', ids.gone).execute()
      for (const id of Object.values(ids)) await makeDue(id)
      await runDueSchedules(t.ctx, Date.now())
      for (const [name, id] of Object.entries(ids)) assert.equal((await pipelinesOf(id)).length, 0, name)
      const inactive = await t.ctx.db.selectFrom('ci_pipeline_schedules').select('next_run_at').where('id', '=', ids.inactive).executeTakeFirstOrThrow()
      assert.ok(inactive.next_run_at! < Date.now(), 'an inactive schedule is left as it was')
      const moved = await t.ctx.db.selectFrom('ci_pipeline_schedules').select('next_run_at').where('id', '=', ids.noRef).executeTakeFirstOrThrow()
      assert.ok(moved.next_run_at! > Date.now(), 'a tick that made no pipeline is still spent')
    })

    it('computes the next run in the schedule\'s time zone, across daylight saving time', () => {
      // 2026-03-08 is the day New York moves to daylight saving time.
      const after = Date.parse('2026-03-07T12:00:00Z')
      assert.equal(new Date(nextRunAt('0 9 * * *', 'America/New_York', after)!).toISOString(), '2026-03-07T14:00:00.000Z')
      assert.equal(new Date(nextRunAt('0 9 * * *', 'America/New_York', Date.parse('2026-03-08T12:00:00Z'))!).toISOString(), '2026-03-08T13:00:00.000Z')
      assert.equal(nextRunAt('0 9 * * *', 'Nowhere/City', after), null)
    })
  })
})
