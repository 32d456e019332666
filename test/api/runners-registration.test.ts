// POST /runners, DELETE /runners and POST /runners/verify, as runners from 9.x to today's call
// them: the three kinds of registration token, JSON and form bodies, `active` and the newer
// `paused`, tags as a list or as "a,b", the original's validations, the RUNNER-TOKEN header, and
// 403 for every token that is not one.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup, makeProject, makeUser } from '../helpers/factories.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { tokenDigest } from '../../src/auth/secrets.js'
import { groupRunnersToken, instanceRunnersToken } from '../../src/services/ci/runners/registration-tokens.js'

describe('runner registration', () => {
  let t: TestApp
  let project: ProjectRow
  let groupId: number
  let instanceToken: string
  let groupToken: string

  before(async () => {
    t = await buildTestApp()
    const owner = await makeUser(t)
    const group = await makeGroup(t, {}, owner)
    groupId = group.id
    project = await makeProject(t, owner)
    instanceToken = await instanceRunnersToken(t.ctx.db)
    groupToken = (await groupRunnersToken(t.ctx.db, group.id))!
  })
  after(async () => { await t.close() })

  const runnerRow = (id: number) => t.ctx.db.selectFrom('ci_runners').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  const register = (body: unknown) => t.api('POST', '/runners', { token: null, body })

  it('registers an instance runner with everything an older runner sends, and keeps only the token\'s digest', async () => {
    const res = await register({
      token: instanceToken, description: 'shell on ci-1', active: true, locked: false, run_untagged: false,
      tag_list: ['docker', 'linux'], maximum_timeout: 7200, access_level: 'ref_protected',
      info: { name: 'gitlab-runner', version: '11.5.0', revision: 'abcdef', platform: 'linux', architecture: 'amd64', executor: 'shell' },
    })
    assert.equal(res.status, 201, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), ['id', 'token', 'token_expires_at'])
    assert.equal(res.body.token_expires_at, null)
    assert.ok(!res.body.token.startsWith('glrt-'))
    const row = await runnerRow(res.body.id)
    assert.equal(row.runner_type, 'instance_type')
    assert.equal(row.token_digest, tokenDigest(res.body.token))
    assert.equal(row.description, 'shell on ci-1')
    assert.equal(row.active, 1)
    assert.equal(row.run_untagged, 0)
    assert.deepEqual(JSON.parse(row.tag_list), ['docker', 'linux'])
    assert.equal(row.maximum_timeout, 7200)
    assert.equal(row.access_level, 'ref_protected')
    assert.deepEqual([row.name, row.version, row.revision, row.platform, row.architecture], ['gitlab-runner', '11.5.0', 'abcdef', 'linux', 'amd64'])
    assert.equal(typeof row.ip_address, 'string')
    assert.equal(row.contacted_at, null)
  })

  it('registers a project runner with the project\'s token and a group runner with the group\'s', async () => {
    const forProject = await register({ token: project.runners_token })
    assert.equal(forProject.status, 201, forProject.text)
    assert.equal((await runnerRow(forProject.body.id)).runner_type, 'project_type')
    const projects = await t.ctx.db.selectFrom('ci_runner_projects').select('project_id').where('runner_id', '=', forProject.body.id).execute()
    assert.deepEqual(projects, [{ project_id: project.id }])

    const forGroup = await register({ token: groupToken })
    assert.equal(forGroup.status, 201, forGroup.text)
    assert.equal((await runnerRow(forGroup.body.id)).runner_type, 'group_type')
    const groups = await t.ctx.db.selectFrom('ci_runner_namespaces').select('namespace_id').where('runner_id', '=', forGroup.body.id).execute()
    assert.deepEqual(groups, [{ namespace_id: groupId }])
  })

  it('takes the defaults of the original when only the token is given', async () => {
    const res = await register({ token: instanceToken })
    assert.equal(res.status, 201)
    const row = await runnerRow(res.body.id)
    assert.deepEqual([row.active, row.locked, row.run_untagged, row.tag_list, row.access_level, row.maximum_timeout, row.description],
      [1, 0, 1, '[]', 'not_protected', null, null])
  })

  it('honours the newer `paused` (over `active`) and tags as one comma-separated string, as today\'s runners send them', async () => {
    const res = await register({ token: instanceToken, paused: true, active: true, tag_list: 'docker, linux,,docker', run_untagged: false })
    assert.equal(res.status, 201, res.text)
    const row = await runnerRow(res.body.id)
    assert.equal(row.active, 0)
    assert.deepEqual(JSON.parse(row.tag_list), ['docker', 'linux'])
    const running = await register({ token: instanceToken, paused: false })
    assert.equal((await runnerRow(running.body.id)).active, 1)
    const inactive = await register({ token: instanceToken, active: false })
    assert.equal((await runnerRow(inactive.body.id)).active, 0)
  })

  it('takes a form-encoded body, with info as a nested hash', async () => {
    const res = await t.api('POST', '/runners', {
      token: null,
      form: `token=${encodeURIComponent(instanceToken)}&description=form&tag_list=a,b&run_untagged=false&info[version]=9.5.0&active=false`,
    })
    assert.equal(res.status, 201, res.text)
    const row = await runnerRow(res.body.id)
    assert.deepEqual([row.description, row.tag_list, row.run_untagged, row.version, row.active], ['form', '["a","b"]', 0, '9.5.0', 0])
  })

  it('answers 403 for a token that registers nothing, 400 without one, and refuses what the original refuses', async () => {
    const before = await t.ctx.db.selectFrom('ci_runners').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    const unknown = await register({ token: 'not-a-registration-token' })
    assert.equal(unknown.status, 403)
    assert.deepEqual(unknown.body, { message: '403 Forbidden' })
    const missing = await register({ description: 'x' })
    assert.equal(missing.status, 400)
    assert.deepEqual(missing.body, { error: 'token is missing' })
    const untaggedWithoutTags = await register({ token: instanceToken, run_untagged: false })
    assert.equal(untaggedWithoutTags.status, 400)
    assert.deepEqual(untaggedWithoutTags.body, { message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } })
    const shortTimeout = await register({ token: instanceToken, maximum_timeout: 599 })
    assert.equal(shortTimeout.status, 400)
    assert.deepEqual(shortTimeout.body, { message: { maximum_timeout: ['needs to be at least 10 minutes'] } })
    const badLevel = await register({ token: instanceToken, access_level: 'everything' })
    assert.equal(badLevel.status, 400)
    const after = await t.ctx.db.selectFrom('ci_runners').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    assert.equal(Number(after.n), Number(before.n))
  })

  it('verifies a runner token (recording the contact), by body or by the RUNNER-TOKEN header, and 403 for an unknown one', async () => {
    const { body: { id, token } } = await register({ token: instanceToken })
    const verified = await t.api('POST', '/runners/verify', { token: null, body: { token, info: { version: '17.0.0' } } })
    assert.equal(verified.status, 200, verified.text)
    assert.deepEqual(verified.body, { id, token, token_expires_at: null })
    const row = await runnerRow(id)
    assert.ok(row.contacted_at !== null && Date.now() - row.contacted_at < 60_000)
    assert.equal(row.version, '17.0.0')
    const byHeader = await t.api('POST', '/runners/verify', { token: null, headers: { 'runner-token': token } })
    assert.equal(byHeader.status, 200, byHeader.text)
    const unknown = await t.api('POST', '/runners/verify', { token: null, body: { token: 'nope' } })
    assert.equal(unknown.status, 403)
    assert.deepEqual(unknown.body, { message: '403 Forbidden' })
    // A registration token is not a runner token.
    assert.equal((await t.api('POST', '/runners/verify', { token: null, body: { token: instanceToken } })).status, 403)
  })

  it('unregisters a runner: 204, then its token is unknown; 403 for an unknown token', async () => {
    const { body: { id, token } } = await register({ token: project.runners_token })
    const deleted = await t.api('DELETE', '/runners', { token: null, body: { token } })
    assert.equal(deleted.status, 204, deleted.text)
    assert.equal(await t.ctx.db.selectFrom('ci_runners').select('id').where('id', '=', id).executeTakeFirst(), undefined)
    assert.equal(await t.ctx.db.selectFrom('ci_runner_projects').select('id').where('runner_id', '=', id).executeTakeFirst(), undefined)
    const again = await t.api('DELETE', '/runners', { token: null, body: { token } })
    assert.equal(again.status, 403)
    const second = await register({ token: instanceToken })
    const byHeader = await t.api('DELETE', '/runners', { token: null, headers: { 'runner-token': second.body.token } })
    assert.equal(byHeader.status, 204, byHeader.text)
  })
})
