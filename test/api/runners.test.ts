// The runner administration API as the original 11.5's: the caller's runners and every runner,
// with the original's scopes, types, statuses and tags; one runner's details, its update and
// removal; the jobs it took; a project's runners, enabling a runner on one more project and
// disabling it; who may do each (admins everything, Maintainers their own runners, anyone signed
// in reading an instance runner), and a job's runner in the Job entity.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeGroup, makeMember, makeProject, makeUser, uniqueName, type TestUser } from '../helpers/factories.js'
import { expectPaginates } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import type { ProjectRow } from '../../src/db/schema.js'
import { MAINTAINER } from '../../src/policies/access-levels.js'
import { groupRunnersToken, instanceRunnersToken } from '../../src/services/ci/runners/registration-tokens.js'

const HOUR = 60 * 60 * 1000

describe('runners API', () => {
  let t: TestApp
  let m: Matrix
  let instanceToken: string
  /** A project of the matrix's maintainer, outside the matrix's group. */
  let otherProject: ProjectRow

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t)
    instanceToken = await instanceRunnersToken(t.ctx.db)
    otherProject = await makeProject(t, m.users.maintainer)
  })
  after(async () => { await t.close() })

  async function register(token: string, body: Record<string, unknown> = {}): Promise<number> {
    const res = await t.api('POST', '/runners', { token: null, body: { token, ...body } })
    assert.equal(res.status, 201, res.text)
    return res.body.id
  }
  const setRunner = (id: number, values: { contacted_at?: number | null; active?: 0 | 1 }) =>
    t.ctx.db.updateTable('ci_runners').set(values).where('id', '=', id).execute()
  const ids = (body: Array<{ id: number }>) => body.map((runner) => runner.id)

  it('lists the caller\'s runners: of the projects they maintain and the groups they own, with the original\'s filters', async () => {
    const tag = uniqueName('tag')
    const projectRunner = await register(m.project.runners_token, { tag_list: [tag, 'linux'] })
    const groupRunner = await register((await groupRunnersToken(t.ctx.db, m.group.id))!, { tag_list: [tag] })
    const instanceRunner = await register(instanceToken, { tag_list: [tag] })
    const elsewhere = await register((await makeProject(t, null)).runners_token, { tag_list: [tag] })
    const list = async (token: string | null, query = '') => {
      const res = await t.api('GET', `/runners?per_page=100&tag_list=${tag}${query}`, { token })
      assert.equal(res.status, 200, res.text)
      return ids(res.body)
    }
    assert.deepEqual(await list(m.tokens.maintainer), [projectRunner])
    assert.deepEqual(await list(m.tokens.owner), [projectRunner, groupRunner])
    assert.deepEqual(await list(m.tokens.developer), [])
    // An admin's list is of their own runners too: root made the project `elsewhere` belongs to.
    assert.deepEqual(await list(m.tokens.admin), [elsewhere])
    assert.ok(!(await list(m.tokens.owner)).includes(instanceRunner) && !(await list(m.tokens.owner)).includes(elsewhere))
    assert.equal((await t.api('GET', '/runners', { token: null })).status, 401)

    assert.deepEqual(await list(m.tokens.owner, '&type=group_type'), [groupRunner])
    const bothTags = await t.api('GET', `/runners?tag_list[]=${tag}&tag_list[]=linux`, { token: m.tokens.owner })
    assert.deepEqual(ids(bothTags.body), [projectRunner])
    await setRunner(projectRunner, { contacted_at: Date.now(), active: 1 })
    await setRunner(groupRunner, { contacted_at: Date.now() - 2 * HOUR, active: 0 })
    assert.deepEqual(await list(m.tokens.owner, '&scope=online'), [projectRunner])
    assert.deepEqual(await list(m.tokens.owner, '&status=offline'), [groupRunner])
    assert.deepEqual(await list(m.tokens.owner, '&scope=paused'), [groupRunner])
    assert.deepEqual(await list(m.tokens.owner, '&status=active'), [projectRunner])
    // `shared` and `specific` are scopes of the full lists only.
    const refused = await t.api('GET', '/runners?scope=shared', { token: m.tokens.owner })
    assert.equal(refused.status, 400)
    assert.deepEqual(refused.body, { error: 'scope is invalid' })
    assert.equal((await t.api('GET', '/runners?type=everything', { token: m.tokens.owner })).status, 400)
  })

  it('lists every runner for admins only, with the legacy scopes shared and specific; paginated', async () => {
    const tag = uniqueName('tag')
    const shared = await register(instanceToken, { tag_list: [tag] })
    const specific = await register(m.project.runners_token, { tag_list: [tag] })
    const third = await register(otherProject.runners_token, { tag_list: [tag] })
    const all = await t.api('GET', `/runners/all?tag_list=${tag}`)
    assert.equal(all.status, 200)
    assert.deepEqual(ids(all.body), [shared, specific, third])
    assert.deepEqual(ids((await t.api('GET', `/runners/all?tag_list=${tag}&scope=shared`)).body), [shared])
    assert.deepEqual(ids((await t.api('GET', `/runners/all?tag_list=${tag}&scope=specific`)).body), [specific, third])
    // Later releases' statuses are not 11.5's.
    assert.equal((await t.api('GET', `/runners/all?tag_list=${tag}&scope=never_contacted`)).status, 400)
    await expectStatuses(m, (token) => t.api('GET', '/runners/all', { token }), { anonymous: 401, maintainer: 403, owner: 403, admin: 200 })
    assert.deepEqual((await t.api('GET', '/runners/all', { token: m.tokens.maintainer })).body, { message: '403 Forbidden' })
    await expectPaginates({ t, path: `/runners/all?tag_list=${tag}`, token: t.root.token, total: 3 })
  })

  it('shows a runner\'s details and its status as the original computes it', async () => {
    const id = await register(m.project.runners_token, {
      description: 'details', tag_list: ['b', 'a'], maximum_timeout: 3600, access_level: 'ref_protected',
      info: { name: 'gitlab-runner', version: '11.5.0', revision: 'abc', platform: 'linux', architecture: 'amd64' },
    })
    const res = await t.api('GET', `/runners/${id}`, { token: m.tokens.maintainer })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), [
      'access_level', 'active', 'architecture', 'contacted_at', 'description', 'groups', 'id', 'ip_address', 'is_shared', 'locked',
      'maximum_timeout', 'name', 'online', 'platform', 'projects', 'revision', 'run_untagged', 'status', 'tag_list', 'version',
    ])
    assert.equal(res.body.description, 'details')
    assert.deepEqual(res.body.tag_list, ['b', 'a'])
    assert.equal(res.body.maximum_timeout, 3600)
    assert.equal(res.body.access_level, 'ref_protected')
    assert.equal(res.body.is_shared, false)
    assert.deepEqual([res.body.name, res.body.version, res.body.revision, res.body.platform, res.body.architecture],
      ['gitlab-runner', '11.5.0', 'abc', 'linux', 'amd64'])
    assert.deepEqual([res.body.status, res.body.online, res.body.contacted_at], ['not_connected', false, null])
    assert.deepEqual(res.body.projects.map((project: { id: number }) => project.id), [m.project.id])
    assert.equal(res.body.projects[0].path_with_namespace, `${m.group.full_path}/${m.project.path}`)
    assert.deepEqual(res.body.groups, [])

    const contacted = Date.now() - 1000
    await setRunner(id, { contacted_at: contacted })
    const online = (await t.api('GET', `/runners/${id}`, { token: m.tokens.maintainer })).body
    assert.deepEqual([online.status, online.online, online.contacted_at], ['online', true, new Date(contacted).toISOString()])
    await setRunner(id, { contacted_at: Date.now() - 2 * HOUR })
    assert.deepEqual(((await t.api('GET', `/runners/${id}`)).body).status, 'offline')
    await setRunner(id, { active: 0 })
    assert.deepEqual(((await t.api('GET', `/runners/${id}`)).body).status, 'paused')

    await expectStatuses(m, (token) => t.api('GET', `/runners/${id}`, { token }), {
      anonymous: 401, nonMember: 403, developer: 403, maintainer: 200, owner: 200, admin: 200,
    })
    assert.deepEqual((await t.api('GET', `/runners/${id}`, { token: m.tokens.developer })).body, { message: '403 Forbidden - No access granted' })
    const missing = await t.api('GET', '/runners/99999999')
    assert.equal(missing.status, 404)
    assert.deepEqual(missing.body, { message: '404 Not found' })
  })

  it('shows an instance runner to anyone signed in, and a group runner with its group', async () => {
    const shared = await register(instanceToken)
    await expectStatuses(m, (token) => t.api('GET', `/runners/${shared}`, { token }), { anonymous: 401, nonMember: 200, admin: 200 })
    assert.equal((await t.api('GET', `/runners/${shared}`, { token: m.tokens.nonMember })).body.is_shared, true)
    const groupRunner = await register((await groupRunnersToken(t.ctx.db, m.group.id))!)
    const res = await t.api('GET', `/runners/${groupRunner}`, { token: m.tokens.owner })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(res.body.groups, [{ id: m.group.id, name: m.group.name, web_url: `http://ingot.test/groups/${m.group.full_path}` }])
    assert.equal((await t.api('GET', `/runners/${groupRunner}`, { token: m.tokens.maintainer })).status, 403)
  })

  it('shows a non-admin only the runner\'s projects they are a member of', async () => {
    const id = await register(otherProject.runners_token)
    const stranger = await makeUser(t)
    const strangerProject = await makeProject(t, stranger)
    await t.ctx.db.insertInto('ci_runner_projects').values({ runner_id: id, project_id: strangerProject.id, created_at: Date.now() }).execute()
    const seen = async (token: string | null) => (await t.api('GET', `/runners/${id}`, { token })).body.projects.map((p: { id: number }) => p.id)
    assert.deepEqual(await seen(m.tokens.maintainer), [otherProject.id])
    assert.deepEqual(await seen(stranger.token), [strangerProject.id])
    assert.deepEqual(await seen(t.root.token), [otherProject.id, strangerProject.id])
  })

  it('updates a runner\'s settings, with the original\'s rules and answers', async () => {
    const id = await register(m.project.runners_token)
    const res = await t.api('PUT', `/runners/${id}`, {
      token: m.tokens.maintainer,
      body: { description: 'renamed', active: false, tag_list: 'x,y', run_untagged: false, locked: true, access_level: 'ref_protected', maximum_timeout: 900 },
    })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(
      [res.body.description, res.body.active, res.body.tag_list, res.body.run_untagged, res.body.locked, res.body.access_level, res.body.maximum_timeout],
      ['renamed', false, ['x', 'y'], false, true, 'ref_protected', 900],
    )
    const form = await t.api('PUT', `/runners/${id}`, { token: m.tokens.maintainer, form: 'tag_list[]=z&active=true' })
    assert.equal(form.status, 200, form.text)
    assert.deepEqual([form.body.tag_list, form.body.active, form.body.description], [['z'], true, 'renamed'])

    const nothing = await t.api('PUT', `/runners/${id}`, { token: m.tokens.maintainer, body: { maximum_timeout: 1200 } })
    assert.equal(nothing.status, 400)
    assert.deepEqual(nothing.body, { error: 'description, active, tag_list, run_untagged, locked, access_level are missing, at least one parameter must be provided' })
    const noTags = await t.api('PUT', `/runners/${id}`, { token: m.tokens.maintainer, body: { tag_list: [] } })
    assert.equal(noTags.status, 400)
    assert.deepEqual(noTags.body, { message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } })
    const short = await t.api('PUT', `/runners/${id}`, { token: m.tokens.maintainer, body: { description: 'x', maximum_timeout: 60 } })
    assert.equal(short.status, 400)
    assert.deepEqual(short.body, { message: { maximum_timeout: ['needs to be at least 10 minutes'] } })
    await expectStatuses(m, (token) => t.api('PUT', `/runners/${id}`, { token, body: { description: 'd' } }), {
      anonymous: 401, developer: 403, maintainer: 200, admin: 200,
    })
    assert.equal((await t.api('PUT', '/runners/99999999', { body: { description: 'x' } })).status, 404)
  })

  it('removes a runner: its Maintainer unless it serves several projects, admins always', async () => {
    const single = await register(otherProject.runners_token)
    assert.equal((await t.api('DELETE', `/runners/${single}`, { token: m.tokens.developer })).status, 403)
    const removed = await t.api('DELETE', `/runners/${single}`, { token: m.tokens.maintainer })
    assert.equal(removed.status, 204, removed.text)
    assert.equal((await t.api('GET', `/runners/${single}`)).status, 404)

    const several = await register(otherProject.runners_token)
    const enabled = await t.api('POST', `/projects/${m.project.id}/runners`, { token: m.tokens.maintainer, body: { runner_id: several } })
    assert.equal(enabled.status, 201, enabled.text)
    const refused = await t.api('DELETE', `/runners/${several}`, { token: m.tokens.maintainer })
    assert.equal(refused.status, 403)
    assert.deepEqual(refused.body, { message: '403 Forbidden - Runner associated with more than one project' })
    assert.equal((await t.api('DELETE', `/runners/${several}`)).status, 204)
    assert.equal((await t.api('DELETE', '/runners/99999999')).status, 404)
  })

  it('lists a project\'s runners (its own, its group\'s, the instance\'s) to its Maintainers', async () => {
    const tag = uniqueName('tag')
    const own = await register(m.project.runners_token, { tag_list: [tag] })
    const ofGroup = await register((await groupRunnersToken(t.ctx.db, m.group.id))!, { tag_list: [tag] })
    const shared = await register(instanceToken, { tag_list: [tag] })
    await register(otherProject.runners_token, { tag_list: [tag] })
    const path = `/projects/${m.project.id}/runners?tag_list=${tag}`
    const res = await t.api('GET', path, { token: m.tokens.maintainer })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(ids(res.body), [own, ofGroup, shared])
    assert.deepEqual(Object.keys(res.body[0]).sort(), ['active', 'description', 'id', 'ip_address', 'is_shared', 'name', 'online', 'status'])
    assert.deepEqual(ids((await t.api('GET', `${path}&scope=shared`, { token: m.tokens.maintainer })).body), [shared])
    assert.deepEqual(ids((await t.api('GET', `${path}&type=project_type`, { token: m.tokens.maintainer })).body), [own])
    await expectPaginates({ t, path, token: m.tokens.maintainer, total: 3 })
    await expectStatuses(m, (token) => t.api('GET', path, { token }), {
      anonymous: 401, nonMember: 404, guest: 403, developer: 403, maintainer: 200, owner: 200, admin: 200,
    })
  })

  it('enables a runner on one more project and disables it there, as the original allows', async () => {
    const runner = await register(otherProject.runners_token)
    const base = `/projects/${m.project.id}/runners`
    const enabled = await t.api('POST', base, { token: m.tokens.maintainer, body: { runner_id: runner } })
    assert.equal(enabled.status, 201, enabled.text)
    assert.equal(enabled.body.id, runner)
    const again = await t.api('POST', base, { token: m.tokens.maintainer, body: { runner_id: runner } })
    assert.equal(again.status, 400)
    assert.deepEqual(again.body, { message: { assign_to: ['Validation failed: Runner has already been taken'] } })

    const disabled = await t.api('DELETE', `${base}/${runner}`, { token: m.tokens.maintainer })
    assert.equal(disabled.status, 204, disabled.text)
    const last = await t.api('DELETE', `/projects/${otherProject.id}/runners/${runner}`, { token: m.tokens.maintainer })
    assert.equal(last.status, 403)
    assert.deepEqual(last.body, { message: '403 Forbidden - Only one project associated with the runner. Please remove the runner instead' })
    const notThere = await t.api('DELETE', `${base}/${runner}`, { token: m.tokens.maintainer })
    assert.equal(notThere.status, 404)
    assert.deepEqual(notThere.body, { message: '404 Runner Not Found' })

    // A Developer may not manage the project's runners.
    assert.equal((await t.api('POST', base, { token: m.tokens.developer, body: { runner_id: runner } })).status, 403)
    assert.equal((await t.api('POST', base, { token: m.tokens.maintainer, body: { runner_id: 99999999 } })).status, 404)
  })

  it('refuses to enable locked, group and (but for admins) instance runners, and runners the caller does not own', async () => {
    const base = `/projects/${m.project.id}/runners`
    const locked = await register(otherProject.runners_token, { locked: true })
    const lockedRes = await t.api('POST', base, { token: m.tokens.maintainer, body: { runner_id: locked } })
    assert.equal(lockedRes.status, 403)
    assert.deepEqual(lockedRes.body, { message: '403 Forbidden - Runner is locked' })
    assert.equal((await t.api('POST', base, { body: { runner_id: locked } })).status, 201)

    const ofGroup = await register((await groupRunnersToken(t.ctx.db, (await makeGroup(t)).id))!)
    const groupRes = await t.api('POST', base, { body: { runner_id: ofGroup } })
    assert.equal(groupRes.status, 403)
    assert.deepEqual(groupRes.body, { message: '403 Forbidden - Runner is a group runner' })

    const stranger = await makeUser(t)
    const notOwned = await register((await makeProject(t, stranger)).runners_token)
    const notOwnedRes = await t.api('POST', base, { token: m.tokens.maintainer, body: { runner_id: notOwned } })
    assert.deepEqual([notOwnedRes.status, notOwnedRes.body], [403, { message: '403 Forbidden - No access granted' }])

    const shared = await register(instanceToken)
    assert.equal((await t.api('POST', base, { token: m.tokens.maintainer, body: { runner_id: shared } })).status, 403)
    const byAdmin = await t.api('POST', base, { body: { runner_id: shared } })
    assert.equal(byAdmin.status, 201, byAdmin.text)
    // Enabled on a project, an instance runner becomes that project's, as the original's assign_to makes it.
    assert.equal(byAdmin.body.is_shared, false)
    assert.equal((await t.api('GET', `/runners/${shared}`)).body.projects[0].id, m.project.id)
  })

  describe('jobs', () => {
    let runner: number
    let jobIds: Record<string, number>
    let maintainerOfOther: TestUser

    before(async () => {
      runner = await register(m.project.runners_token, { description: 'jobs runner' })
      await commitFiles(t, m.project.id, { '.gitlab-ci.yml': 'build: { stage: build, script: make }\ntest: { stage: build, script: make test }\nlint: { script: make lint }\n' })
      const pipeline = await t.api('POST', `/projects/${m.project.id}/pipeline`, { token: m.tokens.developer, body: { ref: 'master' } })
      assert.equal(pipeline.status, 201, pipeline.text)
      const rows = await t.ctx.db.selectFrom('ci_builds').select(['id', 'name']).where('pipeline_id', '=', pipeline.body.id).execute()
      jobIds = Object.fromEntries(rows.map((row) => [row.name, row.id]))
      // The runner protocol's job requests are not this file's subject: the jobs are given to the runner directly.
      await t.ctx.db.updateTable('ci_builds').set({ runner_id: runner, status: 'running' }).where('id', '=', jobIds.build!).execute()
      await t.ctx.db.updateTable('ci_builds').set({ runner_id: runner, status: 'success' }).where('id', '=', jobIds.test!).execute()
      maintainerOfOther = await makeUser(t)
      await makeMember(t, { type: 'project', id: otherProject.id }, maintainerOfOther, MAINTAINER)
    })

    it('lists the jobs a runner took, with their project, filtered by status', async () => {
      const res = await t.api('GET', `/runners/${runner}/jobs`, { token: m.tokens.maintainer })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(ids(res.body), [jobIds.build, jobIds.test])
      assert.deepEqual(Object.keys(res.body[0]).sort(), [
        'commit', 'coverage', 'created_at', 'duration', 'finished_at', 'id', 'name', 'pipeline', 'project', 'ref', 'stage', 'started_at',
        'status', 'tag', 'user', 'web_url',
      ])
      assert.deepEqual(res.body[0].project, {
        id: m.project.id, description: m.project.description, name: m.project.name,
        name_with_namespace: `${m.group.name} / ${m.project.name}`, path: m.project.path,
        path_with_namespace: `${m.group.full_path}/${m.project.path}`, created_at: new Date(m.project.created_at).toISOString(),
      })
      assert.deepEqual(ids((await t.api('GET', `/runners/${runner}/jobs?status=success`, { token: m.tokens.maintainer })).body), [jobIds.test])
      assert.equal((await t.api('GET', `/runners/${runner}/jobs?status=pending`, { token: m.tokens.maintainer })).status, 400)
      await expectStatuses(m, (token) => t.api('GET', `/runners/${runner}/jobs`, { token }), {
        anonymous: 401, developer: 403, maintainer: 200, admin: 200,
      })
      assert.equal((await t.api('GET', `/runners/${runner}/jobs`, { token: maintainerOfOther.token })).status, 403)
      assert.equal((await t.api('GET', '/runners/99999999/jobs')).status, 404)
    })

    it('shows the job\'s runner in the Job entity, the runners of a page loaded in one query', async () => {
      const one = await t.api('GET', `/projects/${m.project.id}/jobs/${jobIds.build}`, { token: m.tokens.reporter })
      assert.equal(one.status, 200, one.text)
      assert.deepEqual(one.body.runner, {
        id: runner, description: 'jobs runner', ip_address: one.body.runner.ip_address, active: true, is_shared: false, name: null,
        online: false, status: 'not_connected',
      })
      const path = `/projects/${m.project.id}/jobs?per_page=100`
      const { queries: withOneRunner } = await countQueries(t, () => t.api('GET', path, { token: m.tokens.reporter }))
      const second = await register(m.project.runners_token)
      await t.ctx.db.updateTable('ci_builds').set({ runner_id: second }).where('id', '=', jobIds.lint!).execute()
      const { queries: withTwoRunners, result } = await countQueries(t, () => t.api('GET', path, { token: m.tokens.reporter }))
      assert.equal(withTwoRunners, withOneRunner)
      const runners = new Map(result.body.map((job: { id: number; runner: { id: number } | null }) => [job.id, job.runner?.id ?? null]))
      assert.equal(runners.get(jobIds.lint), second)
    })
  })
})
