// /projects/:id/triggers and /projects/:id/(ref/:ref/)trigger/pipeline: Maintainers manage triggers
// and only a trigger's owner sees its whole token (sealed at rest, found by digest) and may edit
// it; a trigger's token creates a pipeline as its owner with variables that reach the jobs
// (CI_PIPELINE_TRIGGERED, `only: [triggers]`), a running job's token one of source `pipeline`,
// and anything else is 404.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeProject, makeUser } from '../helpers/factories.js'
import { makeRunner, requestJob } from '../helpers/runners.js'
import { MULTIPART_TYPE, multipartBody, newPipeline, rawRequest, runJob } from '../helpers/running-jobs.js'
import { expectPaginates } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { createTrigger, openTriggerToken } from '../../src/services/ci/triggers.js'
import { tokenDigest } from '../../src/auth/secrets.js'

const CI_FILE = [
  'build: { script: make }',
  'triggered: { script: deploy, only: [triggers] }',
  'untriggered: { script: lint, except: [triggers] }',
  '',
].join('\n')

describe('pipeline triggers API', () => {
  let t: TestApp
  let m: Matrix
  let base: string
  let sha: string

  before(async () => {
    t = await buildTestApp()
    m = await makeMatrix(t)
    base = `/projects/${m.project.id}`
    sha = await commitFiles(t, m.project.id, { '.gitlab-ci.yml': CI_FILE })
    await commitFiles(t, m.project.id, { 'a.txt': 'x' }, { branch: 'feature/slash', parent: sha })
  })
  after(async () => { await t.close() })

  async function create(token: string | null = m.tokens.maintainer, description = 'deploy') {
    return t.api('POST', `${base}/triggers`, { token, body: { description } })
  }

  describe('managing triggers', () => {
    it('creates a trigger owned by its creator, the token sealed and found by digest', async () => {
      const res = await create()
      assert.equal(res.status, 201, res.text)
      assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'description', 'id', 'last_used', 'owner', 'token', 'updated_at'])
      assert.match(res.body.token, /^[0-9a-f]{30}$/)
      assert.equal(res.body.description, 'deploy')
      assert.equal(res.body.last_used, null)
      assert.equal(res.body.owner.username, m.users.maintainer.user.username)
      const row = await t.ctx.db.selectFrom('ci_triggers').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow()
      assert.equal(row.token_digest, tokenDigest(res.body.token))
      assert.ok(!row.encrypted_token.includes(res.body.token))
      assert.equal(openTriggerToken(t.ctx, row), res.body.token)
    })

    it('shows the whole token to the owner only, four characters to other Maintainers and admins', async () => {
      const { body: trigger } = await create()
      const mine = await t.api('GET', `${base}/triggers/${trigger.id}`, { token: m.tokens.maintainer })
      assert.equal(mine.body.token, trigger.token)
      for (const token of [m.tokens.owner, m.tokens.admin]) {
        const theirs = await t.api('GET', `${base}/triggers/${trigger.id}`, { token })
        assert.equal(theirs.status, 200)
        assert.equal(theirs.body.token, trigger.token.slice(0, 4))
      }
      const list = await t.api('GET', `${base}/triggers`, { token: m.tokens.owner })
      assert.equal(list.body.find((item: { id: number }) => item.id === trigger.id).token, trigger.token.slice(0, 4))
    })

    it('lets Maintainers only list, read, create, take over and delete; private projects are 404 to others', async () => {
      const { body: trigger } = await create()
      const expected = { anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, owner: 200, admin: 200 }
      await expectStatuses(m, (token) => t.api('GET', `${base}/triggers`, { token }), expected)
      await expectStatuses(m, (token) => t.api('GET', `${base}/triggers/${trigger.id}`, { token }), expected)
      await expectStatuses(m, (token) => create(token), { ...expected, maintainer: 201, owner: 201, admin: 201 })
      await expectStatuses(m, (token) => t.api('POST', `${base}/triggers/${trigger.id}/take_ownership`, { token }),
        { anonymous: 401, nonMember: 404, reporter: 403, developer: 403, maintainer: 200 })
      await expectStatuses(m, (token) => t.api('DELETE', `${base}/triggers/${trigger.id}`, { token }),
        { anonymous: 401, nonMember: 404, developer: 403, maintainer: 204 })
      assert.equal((await t.api('GET', `${base}/triggers/${trigger.id}`, { token: m.tokens.maintainer })).status, 404)
    })

    it('lets only the owner update a trigger; taking it over moves the token to the new owner', async () => {
      const { body: trigger } = await create()
      const refused = await t.api('PUT', `${base}/triggers/${trigger.id}`, { token: m.tokens.owner, body: { description: 'x' } })
      assert.equal(refused.status, 403)
      const updated = await t.api('PUT', `${base}/triggers/${trigger.id}`, { token: m.tokens.maintainer, body: { description: 'renamed' } })
      assert.equal(updated.status, 200, updated.text)
      assert.equal(updated.body.description, 'renamed')
      const taken = await t.api('POST', `${base}/triggers/${trigger.id}/take_ownership`, { token: m.tokens.owner })
      assert.equal(taken.status, 200, taken.text)
      assert.equal(taken.body.owner.username, m.users.owner.user.username)
      assert.equal(taken.body.token, trigger.token)
      const before = await t.api('GET', `${base}/triggers/${trigger.id}`, { token: m.tokens.maintainer })
      assert.equal(before.body.token, trigger.token.slice(0, 4))
    })

    it('answers the original\'s 400s and 404s', async () => {
      assert.deepEqual((await t.api('POST', `${base}/triggers`, { token: m.tokens.maintainer, body: {} })).body, { error: 'description is missing' })
      assert.equal((await t.api('GET', `${base}/triggers/abc`, { token: m.tokens.maintainer })).status, 400)
      const missing = await t.api('GET', `${base}/triggers/999999`, { token: m.tokens.maintainer })
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { message: '404 Not found' })
      const other = await makeProject(t, m.users.maintainer)
      const { body: foreign } = await t.api('POST', `/projects/${other.id}/triggers`, { token: m.users.maintainer.token, body: { description: 'x' } })
      assert.equal((await t.api('GET', `${base}/triggers/${foreign.id}`, { token: m.tokens.maintainer })).status, 404)
    })

    it('paginates the list', async () => {
      const project = await makeProject(t, m.users.maintainer)
      for (let i = 0; i < 3; i++) await t.api('POST', `/projects/${project.id}/triggers`, { token: m.users.maintainer.token, body: { description: `t${i}` } })
      await expectPaginates({ t, path: `/projects/${project.id}/triggers`, token: m.users.maintainer.token, total: 3 })
    })
  })

  describe('POST /projects/:id/trigger/pipeline', () => {
    let token: string

    before(async () => {
      token = (await create()).body.token
    })

    async function pipelineRow(id: number) {
      return t.ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    }

    async function pipelineVariables(id: number) {
      const rows = await t.ctx.db.selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', id).orderBy('key').execute()
      return rows.map((row) => [row.key, t.ctx.secrets.open('ci.pipeline_variables', row.encrypted_value)])
    }

    async function jobNames(id: number) {
      const rows = await t.ctx.db.selectFrom('ci_builds').select('name').where('pipeline_id', '=', id).orderBy('name').execute()
      return rows.map((row) => row.name)
    }

    it('creates a pipeline as the trigger\'s owner with the variables, without other credentials', async () => {
      const res = await t.api('POST', `${base}/trigger/pipeline`, { token: null, body: { token, ref: 'master', variables: { DEPLOY_TO: 'staging' } } })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.ref, 'master')
      assert.equal(res.body.sha, sha)
      assert.equal(res.body.user.username, m.users.maintainer.user.username)
      assert.ok('before_sha' in res.body && 'yaml_errors' in res.body)
      const row = await pipelineRow(res.body.id)
      assert.equal(row.source, 'trigger')
      assert.deepEqual(await pipelineVariables(res.body.id), [['DEPLOY_TO', 'staging']])
      assert.deepEqual(await jobNames(res.body.id), ['build', 'triggered'])
      const trigger = await t.ctx.db.selectFrom('ci_triggers').select('last_used_at').where('token_digest', '=', tokenDigest(token)).executeTakeFirstOrThrow()
      assert.ok(trigger.last_used_at !== null)
      const shown = await t.api('GET', `${base}/triggers`, { token: m.tokens.maintainer })
      assert.ok(shown.body.some((item: { token: string; last_used: string | null }) => item.token === token && item.last_used !== null))
    })

    it('takes form variables[KEY]=value, and the token and ref in the query or the path', async () => {
      const form = await t.api('POST', `${base}/trigger/pipeline`, {
        token: null, form: `token=${token}&ref=master&variables[ONE]=1&variables[TWO]=two`,
      })
      assert.equal(form.status, 201, form.text)
      assert.deepEqual(await pipelineVariables(form.body.id), [['ONE', '1'], ['TWO', 'two']])
      // curl --form, as the original's documentation shows it.
      const multipart = await rawRequest(t, 'POST', `${base}/trigger/pipeline`, { 'content-type': MULTIPART_TYPE },
        multipartBody(null, { token, ref: 'master', 'variables[FORM]': 'multi' }))
      assert.equal(multipart.status, 201, multipart.text)
      assert.deepEqual(await pipelineVariables((multipart.body as { id: number }).id), [['FORM', 'multi']])
      const query = await t.api('POST', `${base}/ref/master/trigger/pipeline`, { token: null, query: { token } })
      assert.equal(query.status, 201, query.text)
      assert.equal(query.body.ref, 'master')
      const slashed = await t.api('POST', `${base}/ref/feature/slash/trigger/pipeline`, { token: null, body: { token } })
      assert.equal(slashed.status, 201, slashed.text)
      assert.equal(slashed.body.ref, 'feature/slash')
      const byPath = await t.api('POST', `/projects/${encodeURIComponent(`${m.group.full_path}/${m.project.path}`)}/trigger/pipeline`, {
        token: null, body: { token, ref: 'master' },
      })
      assert.equal(byPath.status, 201, byPath.text)
    })

    it('answers 404 for a token of nothing, of another project, or a project that does not exist', async () => {
      const other = await makeProject(t, m.users.maintainer)
      const { body: foreign } = await t.api('POST', `/projects/${other.id}/triggers`, { token: m.users.maintainer.token, body: { description: 'x' } })
      for (const [path, body] of [
        [`${base}/trigger/pipeline`, { token: 'nope', ref: 'master' }],
        [`${base}/trigger/pipeline`, { token: '', ref: 'master' }],
        [`${base}/trigger/pipeline`, { token: foreign.token, ref: 'master' }],
        ['/projects/999999/trigger/pipeline', { token, ref: 'master' }],
      ] as const) {
        const res = await t.api('POST', path, { token: null, body })
        assert.equal(res.status, 404, `${path} ${JSON.stringify(body)}`)
        assert.deepEqual(res.body, { message: '404 Not Found' })
      }
    })

    it('answers the original\'s 400s', async () => {
      const cases: [Record<string, unknown>, unknown][] = [
        [{ token }, { error: 'ref is missing' }],
        [{ ref: 'master' }, { error: 'token is missing' }],
        [{ token, ref: '' }, { error: 'ref is empty' }],
        [{ token, ref: 'master', variables: { A: 1 } }, { message: 'variables needs to be a map of key-valued strings' }],
        [{ token, ref: 'master', variables: ['A'] }, { error: 'variables is invalid' }],
        [{ token, ref: 'master', variables: { 'bad key': 'x' } }, { message: { base: ['Failed to persist the pipeline: Validation failed: Variables is invalid'] } }],
        [{ token, ref: 'nope' }, { message: { base: ['Reference not found'] } }],
      ]
      for (const [body, expected] of cases) {
        const res = await t.api('POST', `${base}/trigger/pipeline`, { token: null, body })
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(res.body, expected)
      }
    })

    it('creates nothing for an owner who is blocked or no longer a Developer', async () => {
      for (const user of [m.users.blocked, m.users.reporter]) {
        const trigger = await createTrigger(t.ctx, m.project.id, user.user.id, 'stale')
        const res = await t.api('POST', `${base}/trigger/pipeline`, { token: null, body: { token: openTriggerToken(t.ctx, trigger), ref: 'master' } })
        assert.equal(res.status, 400)
        assert.deepEqual(res.body, { message: { base: ['Insufficient permissions to create a new pipeline'] } })
      }
    })

    it('gives the jobs the trigger variables and CI_PIPELINE_TRIGGERED', async () => {
      const res = await t.api('POST', `${base}/trigger/pipeline`, { token: null, body: { token, ref: 'master', variables: { DEPLOY_TO: 'prod' } } })
      assert.equal(res.status, 201, res.text)
      const runner = await makeRunner(t)
      // Earlier pipelines' jobs come first: take jobs until one of this pipeline.
      const pipelineOf = async (jobId: number) =>
        (await t.ctx.db.selectFrom('ci_builds').select('pipeline_id').where('id', '=', jobId).executeTakeFirstOrThrow()).pipeline_id
      let job: { id: number; variables: { key: string; value: string }[] } | undefined
      while (job === undefined || await pipelineOf(job.id) !== res.body.id) {
        const taken = await requestJob(t, runner)
        assert.equal(taken.status, 201, taken.text)
        job = taken.body
      }
      const variables = Object.fromEntries(job!.variables.map((variable) => [variable.key, variable.value]))
      assert.equal(variables.DEPLOY_TO, 'prod')
      assert.equal(variables.CI_PIPELINE_TRIGGERED, 'true')
      assert.equal(variables.CI_BUILD_TRIGGERED, 'true')
      assert.equal(variables.CI_PIPELINE_SOURCE, 'trigger')
    })

    it('takes a running job\'s token as a pipeline of source `pipeline` for the job\'s user', async () => {
      const { jobs } = await newPipeline(t, m.project.id, m.tokens.developer!)
      const job = await runJob(t, jobs.build!)
      const res = await t.api('POST', `${base}/trigger/pipeline`, { token: null, body: { token: job.token, ref: 'master' } })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.user.username, m.users.developer.user.username)
      assert.equal((await pipelineRow(res.body.id)).source, 'pipeline')
      assert.deepEqual(await jobNames(res.body.id), ['build', 'untriggered'])
      const outsider = await makeUser(t)
      const hidden = await makeProject(t, outsider)
      await commitFiles(t, hidden.id, { '.gitlab-ci.yml': CI_FILE })
      const refused = await t.api('POST', `/projects/${hidden.id}/trigger/pipeline`, { token: null, body: { token: job.token, ref: 'master' } })
      assert.equal(refused.status, 404)
    })
  })
})
