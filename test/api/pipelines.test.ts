// /projects/:id/pipelines and /projects/:id/pipeline: the list and its filters and pagination, one
// pipeline, creating one (refs, variables sealed at rest, the original's 400s), retry, cancel and
// delete, who may do each (Reporters read, Developers act, Owners delete, public jobs for everyone
// who reads the project), and a commit's status and last_pipeline.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeMember, makeProject } from '../helpers/factories.js'
import { DEVELOPER } from '../../src/policies/access-levels.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { finishJob, startJob } from '../../src/services/ci/transitions.js'

const CI_FILE = 'build: { stage: build, script: make }\ntest: { stage: test, script: make test }\n'

describe('pipelines API', () => {
  let t: TestApp
  let m: Matrix
  let base: string
  let masterSha: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t)
    base = `/projects/${m.project.id}`
    masterSha = await commitFiles(t, m.project.id, { '.gitlab-ci.yml': CI_FILE })
    await commitFiles(t, m.project.id, { 'README.md': 'no CI here' }, { branch: 'bare', parent: null })
    await commitFiles(t, m.project.id, { '.gitlab-ci.yml': 'test: { script: [[1]] }' }, { branch: 'broken', parent: null })
    await t.ctx.repositories.open(m.project.id).compareAndSwapRef('refs/tags/v1', masterSha, '0000000000000000000000000000000000000000')
  })
  after(async () => { await t.close() })

  async function create(ref = 'master', token: string | null = m.tokens.developer, body: Record<string, unknown> = {}) {
    return t.api('POST', `${base}/pipeline`, { token, body: { ref, ...body } })
  }

  async function jobsOf(pipelineId: number) {
    return t.ctx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipelineId).where('retried', '=', 0).orderBy('id').execute()
  }

  describe('POST /projects/:id/pipeline', () => {
    it('creates a pipeline of the branch with its jobs, variables sealed', async () => {
      const res = await create('master', m.tokens.developer, { variables: [{ key: 'DEPLOY', value: 'secret-value' }] })
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(Object.keys(res.body).sort(), [
        'before_sha', 'committed_at', 'coverage', 'created_at', 'duration', 'finished_at', 'id', 'ref', 'sha', 'started_at', 'status', 'tag',
        'updated_at', 'user', 'web_url', 'yaml_errors',
      ])
      assert.equal(res.body.ref, 'master')
      assert.equal(res.body.sha, masterSha)
      assert.equal(res.body.status, 'pending')
      assert.equal(res.body.tag, false)
      assert.equal(res.body.user.username, m.users.developer.user.username)
      assert.equal(res.body.web_url, `http://ingot.test/${m.group.full_path}/${m.project.path}/pipelines/${res.body.id}`)
      assert.deepEqual((await jobsOf(res.body.id)).map((job) => [job.name, job.status]), [['build', 'pending'], ['test', 'created']])
      const row = await t.ctx.db.selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', res.body.id).executeTakeFirstOrThrow()
      assert.equal(row.key, 'DEPLOY')
      assert.ok(!row.encrypted_value.includes('secret-value'))
      assert.equal(t.ctx.secrets.open('ci.pipeline_variables', row.encrypted_value), 'secret-value')
      const source = await t.ctx.db.selectFrom('ci_pipelines').select('source').where('id', '=', res.body.id).executeTakeFirstOrThrow()
      assert.equal(source.source, 'api')
    })

    it('creates a pipeline of a tag', async () => {
      const res = await create('v1')
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.tag, true)
    })

    it('answers the original\'s 400s', async () => {
      const cases: [string, Record<string, unknown>, unknown][] = [
        ['nope', {}, { message: { base: ['Reference not found'] } }],
        ['bare', {}, { message: { base: ['Missing CI config file'] } }],
        ['master', { variables: [{ key: 'bad key', value: 'x' }] }, { message: { 'variables.key': ['can contain only letters, digits and \'_\'.'] } }],
      ]
      for (const [ref, body, expected] of cases) {
        const res = await create(ref, m.tokens.developer, body)
        assert.equal(res.status, 400, ref)
        assert.deepEqual(res.body, expected)
      }
      const broken = await create('broken')
      assert.equal(broken.status, 400)
      assert.equal(broken.body.message.base.length, 1)
      const missing = await t.api('POST', `${base}/pipeline`, { token: m.tokens.developer, body: {} })
      assert.equal(missing.status, 400)
      assert.deepEqual(missing.body, { error: 'ref is missing' })
    })

    it('is for Developers', async () => {
      await expectStatuses(m, (token) => create('master', token), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 201, maintainer: 201, owner: 201, admin: 201,
      })
    })

    it('needs the right to update a protected branch, and so do acting on its pipelines and jobs', async () => {
      const project = await makeProject(t, m.users.owner)
      await commitFiles(t, project.id, { '.gitlab-ci.yml': CI_FILE })
      await makeMember(t, { type: 'project', id: project.id }, m.users.developer, DEVELOPER)
      const protect = await t.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'master', push_access_level: 40, merge_access_level: 40 } })
      assert.equal(protect.status, 201, protect.text)
      const res = await t.api('POST', `/projects/${project.id}/pipeline`, { token: m.tokens.developer, body: { ref: 'master' } })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body, { message: { base: ['Insufficient permissions for protected ref'] } })
      const owned = await t.api('POST', `/projects/${project.id}/pipeline`, { token: m.users.owner.token, body: { ref: 'master' } })
      assert.equal(owned.status, 201)
      const [job] = await jobsOf(owned.body.id)
      for (const path of [`pipelines/${owned.body.id}/cancel`, `pipelines/${owned.body.id}/retry`, `jobs/${job!.id}/cancel`, `jobs/${job!.id}/retry`, `jobs/${job!.id}/play`]) {
        assert.equal((await t.api('POST', `/projects/${project.id}/${path}`, { token: m.tokens.developer })).status, 403, path)
      }
      assert.equal((await t.api('GET', `/projects/${project.id}/jobs/${job!.id}`, { token: m.tokens.developer })).status, 200)
    })

    it('is refused while the project\'s jobs are disabled', async () => {
      const project = await makeProject(t, null, { jobs_enabled: false })
      await commitFiles(t, project.id, { '.gitlab-ci.yml': CI_FILE })
      const res = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'master' } })
      assert.equal(res.status, 403)
    })
  })

  describe('GET /projects/:id/pipelines', () => {
    it('lists PipelineBasic newest first, paginated', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await create()).status, 201)
      const res = await t.api('GET', `${base}/pipelines`, { token: m.tokens.reporter })
      assert.equal(res.status, 200)
      assert.deepEqual(Object.keys(res.body[0]).sort(), ['id', 'ref', 'sha', 'status', 'web_url'])
      const ids = res.body.map((p: { id: number }) => p.id)
      assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a))
      const total = Number(res.headers['x-total'])
      await expectPaginates({ t, path: `${base}/pipelines`, token: m.tokens.reporter, total })
      await expectRejectsBadPagination(t, `${base}/pipelines`, m.tokens.reporter)
    })

    it('filters by scope, status, ref, sha, yaml_errors and username, and orders', async () => {
      const tagged = await create('v1', m.tokens.maintainer)
      const list = async (query: string) => {
        const res = await t.api('GET', `${base}/pipelines?per_page=100&${query}`, { token: m.tokens.reporter })
        assert.equal(res.status, 200, res.text)
        return res.body as { id: number; ref: string; status: string; sha: string }[]
      }
      assert.deepEqual((await list('scope=tags')).map((p) => p.id), [tagged.body.id])
      const branches = await list('scope=branches')
      assert.equal(branches.length, 1, 'the latest of master only')
      assert.equal(branches[0]!.ref, 'master')
      assert.ok((await list('ref=v1')).every((p) => p.ref === 'v1'))
      assert.ok((await list(`sha=${masterSha}`)).length >= 2)
      const byMaintainer = await t.ctx.db.selectFrom('ci_pipelines').select('id').where('user_id', '=', m.users.maintainer.user.id).orderBy('id', 'desc').execute()
      assert.deepEqual((await list(`username=${m.users.maintainer.user.username.toUpperCase()}`)).map((p) => p.id), byMaintainer.map((p) => p.id))
      assert.ok(byMaintainer.some((p) => p.id === tagged.body.id))
      assert.deepEqual((await list(`name=${encodeURIComponent(m.users.maintainer.user.name)}`)).map((p) => p.id), byMaintainer.map((p) => p.id))
      assert.deepEqual(await list('yaml_errors=true'), [])
      assert.ok((await list('status=pending')).length >= 2)
      assert.deepEqual(await list('scope=running'), [])
      assert.deepEqual(await list('scope=finished'), [])
      const byRef = await list('order_by=ref&sort=asc')
      assert.deepEqual(byRef.map((p) => p.ref), [...byRef.map((p) => p.ref)].sort())
      for (const bad of ['scope=all', 'status=done', 'order_by=sha', 'sort=up', 'yaml_errors=maybe']) {
        assert.equal((await t.api('GET', `${base}/pipelines?${bad}`, { token: m.tokens.reporter })).status, 400, bad)
      }
    })

    it('is for Reporters on a private project, and for its Guests too while its jobs are public', async () => {
      await expectStatuses(m, (token) => t.api('GET', `${base}/pipelines`, { token }), {
        anonymous: 404, nonMember: 404, guest: 200, reporter: 200, developer: 200, admin: 200, external: 404,
      })
      const project = await makeProject(t, m.users.owner, { public_jobs: false })
      await expectStatuses(m, (token) => t.api('GET', `/projects/${project.id}/pipelines`, { token }), { anonymous: 404, admin: 200, owner: 200 })
    })

    it('is for everyone who reads a public project whose jobs are public, Reporters otherwise', async () => {
      const pub = await makeMatrix(t, 'public')
      await commitFiles(t, pub.project.id, { '.gitlab-ci.yml': CI_FILE })
      const path = `/projects/${pub.project.id}/pipelines`
      await expectStatuses(pub, (token) => t.api('GET', path, { token }), { anonymous: 200, nonMember: 200, guest: 200, reporter: 200 })
      assert.equal((await t.api('PUT', `/projects/${pub.project.id}`, { body: { public_jobs: false } })).status, 200)
      await expectStatuses(pub, (token) => t.api('GET', path, { token }), { anonymous: 403, nonMember: 403, guest: 403, reporter: 200 })
    })
  })

  describe('one pipeline', () => {
    it('GET answers the Pipeline entity; 404 for another project\'s or a missing pipeline', async () => {
      const created = (await create()).body
      const res = await t.api('GET', `${base}/pipelines/${created.id}`, { token: m.tokens.reporter })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, created)
      const other = await makeProject(t, null)
      assert.equal((await t.api('GET', `/projects/${other.id}/pipelines/${created.id}`)).status, 404)
      const missing = await t.api('GET', `${base}/pipelines/999999`, { token: m.tokens.reporter })
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { message: '404 Not found' })
      assert.equal((await t.api('GET', `${base}/pipelines/abc`, { token: m.tokens.reporter })).status, 400)
    })

    it('cancel, then retry, by Developers', async () => {
      const created = (await create()).body
      await expectStatuses(m, (token) => t.api('POST', `${base}/pipelines/${created.id}/cancel`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403,
      })
      const canceled = await t.api('POST', `${base}/pipelines/${created.id}/cancel`, { token: m.tokens.developer })
      assert.equal(canceled.status, 200, canceled.text)
      assert.equal(canceled.body.status, 'canceled')
      const retried = await t.api('POST', `${base}/pipelines/${created.id}/retry`, { token: m.tokens.developer })
      assert.equal(retried.status, 201, retried.text)
      assert.equal(retried.body.status, 'pending')
      assert.deepEqual((await jobsOf(created.id)).map((job) => [job.name, job.status, job.user_id]), [
        ['build', 'pending', m.users.developer.user.id], ['test', 'created', m.users.developer.user.id],
      ])
      assert.equal((await t.api('POST', `${base}/pipelines/${created.id}/retry`, { token: m.tokens.reporter })).status, 403)
    })

    it('DELETE is for Owners: 204, then 404', async () => {
      const created = (await create()).body
      await expectStatuses(m, (token) => t.api('DELETE', `${base}/pipelines/${created.id}`, { token }), {
        anonymous: 401, guest: 403, developer: 403, maintainer: 403,
      })
      const res = await t.api('DELETE', `${base}/pipelines/${created.id}`, { token: m.tokens.owner })
      assert.equal(res.status, 204)
      assert.equal((await t.api('GET', `${base}/pipelines/${created.id}`)).status, 404)
      assert.deepEqual(await jobsOf(created.id), [])
    })
  })

  it('a commit\'s status and last_pipeline are its latest pipeline\'s', async () => {
    const project = await makeProject(t, null)
    const sha = await commitFiles(t, project.id, { '.gitlab-ci.yml': 'only: { script: x }\n' })
    const before = await t.api('GET', `/projects/${project.id}/repository/commits/${sha}`)
    assert.equal(before.body.status, null)
    assert.equal(before.body.last_pipeline, null)
    const created = (await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'master' } })).body
    const [job] = await jobsOf(created.id)
    await startJob(t.ctx, job!.id)
    await finishJob(t.ctx, job!.id, 'success')
    const res = await t.api('GET', `/projects/${project.id}/repository/commits/${sha}`)
    assert.equal(res.body.status, 'success')
    assert.deepEqual(res.body.last_pipeline, { id: created.id, ref: 'master', sha, status: 'success' })
  })
})
