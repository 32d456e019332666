// Environments and deployments: the slug of a name and the expansion of variables in a job's
// environment; a pipeline whose deploy job, run through the runner protocol, gets CI_ENVIRONMENT_*
// and deploys (iid 1, 2) when it succeeds; stopping an environment plays its on_stop job; and the
// environments and deployments APIs (who may do what, 404 for private projects, the 400s).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { commitFiles } from '../helpers/git.js'
import { makeRunner, requestJob, updateJob, type TestRunner } from '../helpers/runners.js'
import { expectPaginates, expectRejectsBadPagination } from '../shared/pagination.js'
import { expectStatuses, makeMatrix, type Matrix } from '../shared/permission-matrix.js'
import { environmentSlug, expandVariables } from '../../src/services/ci/environments.js'
import { finishJob, startJob } from '../../src/services/ci/transitions.js'
import { deleteProject } from '../../src/services/projects/delete-project.js'

describe('environment slugs', () => {
  it('makes the original\'s slugs', () => {
    const cases: [string, string][] = [
      ['production', 'production'],
      ['PRODUCTION', 'production-qwerty'],
      ['review/1-foo', 'review-1-foo-qwerty'],
      ['1-foo', 'env-1-foo-qwerty'],
      ['1/foo', 'env-1-foo-qwerty'],
      ['foo-', 'foo-qwerty'],
      ['foo--bar', 'foo-bar-qwerty'],
      ['foo**bar', 'foo-bar-qwerty'],
      ['*-foo', 'env-foo-qwerty'],
      ['staging-12345678901234567', 'staging-123456789-qwerty'],
      ['9-staging-123456789012345', 'env-9-staging-123-qwerty'],
      ['staging-1234567890123456', 'staging-1234567890123456'],
      ['staging-12345678-', 'staging-12345678-qwerty'],
      ['staging-12345678-01234567', 'staging-12345678-qwerty'],
    ]
    for (const [name, slug] of cases) assert.equal(environmentSlug(name, () => 'qwerty'), slug, name)
  })

  it('suffixes with 6 random lower-case letters and digits', () => {
    const slug = environmentSlug('Review/Fix')
    assert.match(slug, /^review-fix-[a-z0-9]{6}$/)
  })

  it('expands $NAME, ${NAME} and %NAME%, unknown names to nothing', () => {
    const variables = { CI_COMMIT_REF_SLUG: 'feature-x', NAME: 'n' }
    assert.equal(expandVariables('review/$CI_COMMIT_REF_SLUG', variables), 'review/feature-x')
    assert.equal(expandVariables('${NAME}-%NAME%-$MISSING.', variables), 'n-n-.')
  })
})

const CI_FILE = `
stages: [build, deploy]
build: { stage: build, script: make }
deploy:
  stage: deploy
  script: ./deploy
  environment:
    name: review/$CI_COMMIT_REF_NAME
    url: https://$CI_ENVIRONMENT_SLUG.example.com
    on_stop: stop_review
stop_review:
  stage: deploy
  script: ./stop
  when: manual
  environment: { name: review/$CI_COMMIT_REF_NAME, action: stop }
`

describe('environments and deployments', () => {
  let t: TestApp
  let m: Matrix
  let base: string
  let runner: TestRunner

  before(async () => {
    t = await buildTestApp({ env: { INGOT_RUNNER_LONG_POLL_SECONDS: '0' } })
    m = await makeMatrix(t)
    base = `/projects/${m.project.id}`
    runner = await makeRunner(t, { type: 'project_type', projectIds: [m.project.id] })
    await commitFiles(t, m.project.id, { '.gitlab-ci.yml': CI_FILE })
  })
  after(async () => { await t.close() })

  async function environmentNamed(name: string) {
    return t.ctx.db.selectFrom('environments').selectAll().where('project_id', '=', m.project.id).where('name', '=', name).executeTakeFirst()
  }

  /** Takes the next job through the runner protocol; its payload. */
  async function takeJob(name: string) {
    const res = await requestJob(t, runner)
    assert.equal(res.status, 201, res.text)
    assert.equal(res.body.job_info.name, name)
    return res.body
  }

  async function succeed(job: { id: number; token: string }) {
    const res = await updateJob(t, job.id, job.token, { state: 'success' })
    assert.equal(res.status, 200, res.text)
  }

  /** A pipeline on master by the developer whose build and deploy jobs succeed; the deploy job's payload. */
  async function deployPipeline() {
    const res = await t.api('POST', `${base}/pipeline`, { token: m.tokens.developer, body: { ref: 'master' } })
    assert.equal(res.status, 201, res.text)
    await succeed(await takeJob('build'))
    const deploy = await takeJob('deploy')
    await succeed(deploy)
    return { pipelineId: res.body.id as number, deploy }
  }

  describe('a pipeline with a deploy job', () => {
    it('creates the environment with the pipeline, its name expanded', async () => {
      const res = await t.api('POST', `${base}/pipeline`, { token: m.tokens.developer, body: { ref: 'master' } })
      assert.equal(res.status, 201, res.text)
      const environment = await environmentNamed('review/master')
      assert.ok(environment !== undefined)
      assert.match(environment.slug, /^review-master-[a-z0-9]{6}$/)
      assert.equal(environment.state, 'available')
      assert.equal(environment.external_url, null)
      await t.api('POST', `${base}/pipelines/${res.body.id}/cancel`, { token: m.tokens.developer })
    })

    it('gives the deploy job CI_ENVIRONMENT_* and records deployments numbered 1, 2 when it succeeds', async () => {
      const first = await deployPipeline()
      const environment = (await environmentNamed('review/master'))!
      const variables = Object.fromEntries((first.deploy.variables as { key: string; value: string }[]).map((v) => [v.key, v.value]))
      assert.equal(variables.CI_ENVIRONMENT_NAME, 'review/master')
      assert.equal(variables.CI_ENVIRONMENT_SLUG, environment.slug)
      assert.equal(variables.CI_ENVIRONMENT_URL, `https://${environment.slug}.example.com`)
      assert.equal(environment.external_url, `https://${environment.slug}.example.com`)
      await deployPipeline()
      const rows = await t.ctx.db.selectFrom('deployments').selectAll().where('project_id', '=', m.project.id).orderBy('id').execute()
      assert.deepEqual(rows.map((row) => [row.iid, row.environment_id, row.ref, row.on_stop, row.user_id]), [
        [1, environment.id, 'master', 'stop_review', m.users.developer.user.id],
        [2, environment.id, 'master', 'stop_review', m.users.developer.user.id],
      ])
      assert.equal(rows[0]!.deployable_id, first.deploy.id)
    })

    it('stops the environment and plays its on_stop job, which stops it again when it succeeds', async () => {
      const environment = (await environmentNamed('review/master'))!
      const res = await t.api('POST', `${base}/environments/${environment.id}/stop`, { token: m.tokens.developer })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.id, environment.id)
      assert.equal((await environmentNamed('review/master'))!.state, 'stopped')
      const last = await t.ctx.db.selectFrom('deployments').select('deployable_id').where('environment_id', '=', environment.id)
        .orderBy('id', 'desc').executeTakeFirstOrThrow()
      const deployJob = await t.ctx.db.selectFrom('ci_builds').select('pipeline_id').where('id', '=', last.deployable_id!).executeTakeFirstOrThrow()
      const stopJob = await t.ctx.db.selectFrom('ci_builds').selectAll()
        .where('pipeline_id', '=', deployJob.pipeline_id).where('name', '=', 'stop_review').executeTakeFirstOrThrow()
      assert.equal(stopJob.status, 'pending')
      assert.equal(stopJob.user_id, m.users.developer.user.id)
      // Stopping a stopped environment changes nothing.
      const again = await t.api('POST', `${base}/environments/${environment.id}/stop`, { token: m.tokens.developer })
      assert.equal(again.status, 200)
      await succeed(await takeJob('stop_review'))
      assert.equal((await environmentNamed('review/master'))!.state, 'stopped')
      assert.equal((await t.ctx.db.selectFrom('deployments').select('id').where('environment_id', '=', environment.id).execute()).length, 2)
    })

    it('makes a stopped environment available again when it deploys', async () => {
      await deployPipeline()
      assert.equal((await environmentNamed('review/master'))!.state, 'available')
    })
  })

  describe('GET /projects/:id/deployments', () => {
    it('lists deployments with their user, environment and job', async () => {
      const res = await t.api('GET', `${base}/deployments`, { token: m.tokens.reporter })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.map((d: { iid: number }) => d.iid), [1, 2, 3])
      const [first] = res.body
      assert.deepEqual(Object.keys(first).sort(), ['created_at', 'deployable', 'environment', 'id', 'iid', 'ref', 'sha', 'user'])
      assert.equal(first.ref, 'master')
      assert.match(first.sha, /^[0-9a-f]{40}$/)
      assert.equal(first.user.username, m.users.developer.user.username)
      assert.deepEqual(Object.keys(first.user).sort(), ['avatar_url', 'id', 'name', 'state', 'username', 'web_url'])
      assert.deepEqual(Object.keys(first.environment).sort(), ['external_url', 'id', 'name', 'slug'])
      assert.equal(first.environment.name, 'review/master')
      assert.equal(first.deployable.name, 'deploy')
      assert.equal(first.deployable.status, 'success')
      assert.equal(first.deployable.stage, 'deploy')
      assert.equal(first.deployable.pipeline.ref, 'master')
      assert.equal(first.deployable.commit.id, first.sha)
    })

    it('orders by id, iid, created_at or ref, either way', async () => {
      for (const orderBy of ['id', 'iid', 'created_at', 'ref']) {
        const desc = await t.api('GET', `${base}/deployments`, { token: m.tokens.reporter, query: { order_by: orderBy, sort: 'desc' } })
        assert.equal(desc.status, 200, desc.text)
        assert.deepEqual(desc.body.map((d: { iid: number }) => d.iid), [3, 2, 1], orderBy)
      }
    })

    it('paginates and refuses a bad order or sort', async () => {
      await expectPaginates({ t, path: `${base}/deployments`, token: m.tokens.reporter, total: 3 })
      await expectRejectsBadPagination(t, `${base}/deployments`, m.tokens.reporter)
      const badOrder = await t.api('GET', `${base}/deployments`, { token: m.tokens.reporter, query: { order_by: 'sha' } })
      assert.equal(badOrder.status, 400)
      assert.deepEqual(badOrder.body, { error: 'order_by is invalid' })
      const badSort = await t.api('GET', `${base}/deployments`, { token: m.tokens.reporter, query: { sort: 'up' } })
      assert.equal(badSort.status, 400)
    })

    it('loads a page with one query each for environments, users and jobs, however long', async () => {
      const few = await countQueries(t, () => t.api('GET', `${base}/deployments?per_page=1`, { token: m.tokens.reporter }))
      const many = await countQueries(t, () => t.api('GET', `${base}/deployments?per_page=3`, { token: m.tokens.reporter }))
      assert.equal(many.result.body.length, 3)
      assert.equal(many.queries, few.queries)
    })

    it('is for signed-in Reporters and up; a private project is 404 to others', async () => {
      await expectStatuses(m, (token) => t.api('GET', `${base}/deployments`, { token }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 403, reporter: 200, developer: 200, maintainer: 200, owner: 200, admin: 200,
      })
    })
  })

  describe('GET /projects/:id/deployments/:deployment_id', () => {
    it('shows one deployment by its id', async () => {
      const list = await t.api('GET', `${base}/deployments`, { token: m.tokens.reporter })
      const res = await t.api('GET', `${base}/deployments/${list.body[1].id}`, { token: m.tokens.reporter })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, list.body[1])
    })

    it('answers 404 for another project\'s or no deployment, 401/403/404 as the list', async () => {
      const list = await t.api('GET', `${base}/deployments`, { token: m.tokens.reporter })
      const other = await makeMatrix(t)
      assert.equal((await t.api('GET', `/projects/${other.project.id}/deployments/${list.body[0].id}`)).status, 404)
      const missing = await t.api('GET', `${base}/deployments/999999`, { token: m.tokens.reporter })
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { message: '404 Not found' })
      await expectStatuses(m, (token) => t.api('GET', `${base}/deployments/${list.body[0].id}`, { token }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 200,
      })
    })

    it('shows a null deployable once the job is gone', async () => {
      const list = await t.api('GET', `${base}/deployments`, { token: m.tokens.reporter })
      const pipelineId = list.body[2].deployable.pipeline.id
      assert.equal((await t.api('DELETE', `${base}/pipelines/${pipelineId}`, { token: m.tokens.owner })).status, 204)
      const res = await t.api('GET', `${base}/deployments/${list.body[2].id}`, { token: m.tokens.reporter })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.deployable, null)
    })
  })

  describe('/projects/:id/environments', () => {
    it('lists environments with their project', async () => {
      const res = await t.api('GET', `${base}/environments`, { token: m.tokens.reporter })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.length, 1)
      assert.deepEqual(Object.keys(res.body[0]).sort(), ['external_url', 'id', 'name', 'project', 'slug'])
      assert.equal(res.body[0].project.id, m.project.id)
      assert.equal(res.body[0].project.path_with_namespace, `${m.group.full_path}/${m.project.path}`)
      await expectStatuses(m, (token) => t.api('GET', `${base}/environments`, { token }), {
        anonymous: 401, nonMember: 404, external: 404, guest: 403, reporter: 200, developer: 200, admin: 200,
      })
    })

    it('creates an environment with a slug, 201; a taken name, a bad name or URL, or a slug is 400', async () => {
      const res = await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name: 'production', external_url: 'https://example.com' } })
      assert.equal(res.status, 201, res.text)
      assert.equal(res.body.slug, 'production')
      assert.equal(res.body.external_url, 'https://example.com')
      const taken = await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name: 'production' } })
      assert.equal(taken.status, 400)
      assert.deepEqual(taken.body, { message: { name: ['has already been taken'] } })
      const badName = await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name: 'what?' } })
      assert.equal(badName.status, 400)
      assert.deepEqual(badName.body, { message: { name: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces"] } })
      const badUrl = await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name: 'staging', external_url: 'not a url' } })
      assert.equal(badUrl.status, 400)
      assert.deepEqual(badUrl.body, { message: { external_url: ['must be a valid URL'] } })
      const control = await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name: 'staging', external_url: 'https://x.example.com/\u0001' } })
      assert.equal(control.status, 400)
      assert.equal((await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name: 'staging\u0000' } })).status, 400)
      const slug = await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name: 'staging', slug: 'mine' } })
      assert.equal(slug.status, 400)
      assert.deepEqual(slug.body, { error: 'slug is automatically generated and cannot be changed' })
      const missing = await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: {} })
      assert.equal(missing.status, 400)
    })

    it('lets Developers create; others 401/403/404', async () => {
      let n = 0
      await expectStatuses(m, (token) => t.api('POST', `${base}/environments`, { token, body: { name: `env ${n++}` } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 201, maintainer: 201, admin: 201,
      })
    })

    it('renames an environment and changes its URL, keeping its slug', async () => {
      const created = await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name: 'Review App' } })
      const path = `${base}/environments/${created.body.id}`
      const res = await t.api('PUT', path, { token: m.tokens.developer, body: { name: 'review-app', external_url: 'http://review.example.com' } })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.name, 'review-app')
      assert.equal(res.body.external_url, 'http://review.example.com')
      assert.equal(res.body.slug, created.body.slug)
      const cleared = await t.api('PUT', path, { token: m.tokens.developer, body: { external_url: '' } })
      assert.equal(cleared.body.external_url, null)
      const taken = await t.api('PUT', path, { token: m.tokens.developer, body: { name: 'production' } })
      assert.equal(taken.status, 400)
      assert.deepEqual(taken.body, { message: { name: ['has already been taken'] } })
      const slug = await t.api('PUT', path, { token: m.tokens.developer, body: { slug: 'x' } })
      assert.equal(slug.status, 400)
      assert.equal((await t.api('PUT', `${base}/environments/999999`, { token: m.tokens.developer, body: { name: 'x' } })).status, 404)
      await expectStatuses(m, (token) => t.api('PUT', path, { token, body: { external_url: 'https://x.example.com' } }), {
        anonymous: 401, nonMember: 404, guest: 403, reporter: 403, developer: 200, admin: 200,
      })
    })

    it('deletes an environment with its deployments, 204', async () => {
      const environment = (await environmentNamed('review/master'))!
      const path = `${base}/environments/${environment.id}`
      await expectStatuses(m, (token) => t.api('DELETE', path, { token }), { anonymous: 401, nonMember: 404, guest: 403, reporter: 403 })
      const res = await t.api('DELETE', path, { token: m.tokens.developer })
      assert.equal(res.status, 204)
      assert.equal(await environmentNamed('review/master'), undefined)
      assert.equal((await t.ctx.db.selectFrom('deployments').select('id').where('environment_id', '=', environment.id).execute()).length, 0)
      assert.equal((await t.api('DELETE', path, { token: m.tokens.developer })).status, 404)
    })

    it('stops an environment without a stop job: only its state; Reporters may not', async () => {
      const created = await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name: 'qa' } })
      const path = `${base}/environments/${created.body.id}/stop`
      await expectStatuses(m, (token) => t.api('POST', path, { token }), { anonymous: 401, nonMember: 404, guest: 403, reporter: 403 })
      const res = await t.api('POST', path, { token: m.tokens.developer })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.name, 'qa')
      assert.equal((await environmentNamed('qa'))!.state, 'stopped')
      assert.equal((await t.api('POST', `${base}/environments/999999/stop`, { token: m.tokens.developer })).status, 404)
    })

    it('paginates environments', async () => {
      for (const name of ['page 1', 'page 2', 'page 3']) await t.api('POST', `${base}/environments`, { token: m.tokens.developer, body: { name } })
      const total = Number((await t.api('GET', `${base}/environments`, { token: m.tokens.reporter })).headers['x-total'])
      await expectPaginates({ t, path: `${base}/environments`, token: m.tokens.reporter, total })
      await expectRejectsBadPagination(t, `${base}/environments`, m.tokens.reporter)
    })

    it('refuses everything when the project\'s jobs are disabled', async () => {
      await t.ctx.db.updateTable('projects').set({ jobs_enabled: 0 }).where('id', '=', m.project.id).execute()
      try {
        assert.equal((await t.api('GET', `${base}/environments`)).status, 403)
        assert.equal((await t.api('GET', `${base}/deployments`)).status, 403)
      } finally {
        await t.ctx.db.updateTable('projects').set({ jobs_enabled: 1 }).where('id', '=', m.project.id).execute()
      }
    })
  })

  describe('on a protected branch or an archived project', () => {
    let other: Matrix

    before(async () => {
      other = await makeMatrix(t)
      await commitFiles(t, other.project.id, { '.gitlab-ci.yml': CI_FILE })
      const protect = await t.api('POST', `/projects/${other.project.id}/protected_branches`, {
        token: other.tokens.owner, body: { name: 'master', push_access_level: 40, merge_access_level: 40 },
      })
      assert.equal(protect.status, 201, protect.text)
      const pipeline = await t.api('POST', `/projects/${other.project.id}/pipeline`, { token: other.tokens.maintainer, body: { ref: 'master' } })
      assert.equal(pipeline.status, 201, pipeline.text)
      for (const name of ['build', 'deploy']) {
        const job = await t.ctx.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', pipeline.body.id).where('name', '=', name).executeTakeFirstOrThrow()
        await startJob(t.ctx, job.id)
        await finishJob(t.ctx, job.id, 'success')
      }
    })

    it('refuses to stop for a Developer who may not run CI for the ref, before anything changes', async () => {
      const environment = await t.ctx.db.selectFrom('environments').selectAll().where('project_id', '=', other.project.id).executeTakeFirstOrThrow()
      const path = `/projects/${other.project.id}/environments/${environment.id}/stop`
      assert.equal((await t.api('POST', path, { token: other.tokens.developer })).status, 403)
      const unchanged = await t.ctx.db.selectFrom('environments').select('state').where('id', '=', environment.id).executeTakeFirstOrThrow()
      assert.equal(unchanged.state, 'available')
      assert.equal((await t.api('POST', path, { token: other.tokens.maintainer })).status, 200)
    })

    it('refuses changes while the project is archived, reads still work', async () => {
      assert.equal((await t.api('POST', `/projects/${other.project.id}/archive`, { token: other.tokens.owner })).status, 201)
      const create = await t.api('POST', `/projects/${other.project.id}/environments`, { token: other.tokens.maintainer, body: { name: 'late' } })
      assert.equal(create.status, 403)
      assert.equal((await t.api('GET', `/projects/${other.project.id}/deployments`, { token: other.tokens.reporter })).status, 200)
    })

    it('goes with its project: environments and deployments deleted', async () => {
      await deleteProject(t.ctx, other.project)
      assert.deepEqual(await t.ctx.db.selectFrom('environments').select('id').where('project_id', '=', other.project.id).execute(), [])
      assert.deepEqual(await t.ctx.db.selectFrom('deployments').select('id').where('project_id', '=', other.project.id).execute(), [])
    })
  })
})
