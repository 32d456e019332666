// CI/CD variables reaching jobs (POST /jobs/request): the original's precedence, later ones winning
// in the job's shell (the file's global < the file's job < the groups' from the root down < the
// project's < the pipeline's), `public: false` for every CI/CD variable, protected ones only for
// pipelines of protected branches and tags, and the read of them not growing with their number.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, countQueries, type TestApp } from '../helpers/app.js'
import { makeGroup, makeProject } from '../helpers/factories.js'
import { commitFiles } from '../helpers/git.js'
import { makeRunner, requestJob, updateJob, type TestRunner } from '../helpers/runners.js'
import type { NamespaceRow, ProjectRow } from '../../src/db/schema.js'

const CI_FILE = `
variables: { K_YAML: global, K_GROUP: global, K_PROJECT: global }
build:
  script: [make]
  variables: { K_YAML: job, K_GROUP: job }
`

interface SentVariable { key: string; value: string; public: boolean; masked: boolean }

describe('CI/CD variables of jobs', () => {
  let t: TestApp
  let runner: TestRunner
  let root: NamespaceRow
  let child: NamespaceRow
  let project: ProjectRow

  const define = async (owner: string, key: string, value: string, isProtected = false) => {
    const res = await t.api('POST', `/${owner}/variables`, { body: { key, value, protected: isProtected } })
    assert.equal(res.status, 201, res.text)
  }

  /** The variables of the one job of a new pipeline on `ref`, taken by the runner and finished. */
  async function jobVariablesOn(ref: string, pipelineVariables: { key: string; value: string }[] = []): Promise<SentVariable[]> {
    const created = await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref, variables: pipelineVariables } })
    assert.equal(created.status, 201, created.text)
    const res = await requestJob(t, runner)
    assert.equal(res.status, 201, res.text)
    await updateJob(t, res.body.id, res.body.token, { state: 'success' })
    return res.body.variables
  }

  /** What the job's shell sees: the last value sent for each key. */
  const shellOf = (variables: SentVariable[]) => new Map(variables.map((variable) => [variable.key, variable]))

  before(async () => {
    t = await buildTestApp({ env: { INGOT_RUNNER_LONG_POLL_SECONDS: '0' } })
    runner = await makeRunner(t)
    root = await makeGroup(t)
    child = await makeGroup(t, { parent: root })
    project = await makeProject(t, null, { namespace: child })
    await commitFiles(t, project.id, { '.gitlab-ci.yml': CI_FILE })
    const tag = await t.api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v1.0', ref: 'master' } })
    assert.equal(tag.status, 201, tag.text)
    const branch = await t.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'feature', ref: 'master' } })
    assert.equal(branch.status, 201, branch.text)

    const groups = { root: `groups/${root.id}`, child: `groups/${child.id}`, project: `projects/${project.id}` }
    await define(groups.root, 'K_GROUP', 'root')
    await define(groups.root, 'ROOT_ONLY', 'root-only')
    await define(groups.child, 'K_GROUP', 'child')
    await define(groups.child, 'K_PROJECT', 'child')
    await define(groups.project, 'K_PROJECT', 'project')
    await define(groups.project, 'K_PIPELINE', 'project')
    await define(groups.project, 'PROTECTED_DEPLOY_KEY', 'only-protected', true)
    await define(groups.root, 'PROTECTED_GROUP_KEY', 'group-protected', true)
    // A variable of a group the project is not in reaches none of its jobs.
    await define(`groups/${(await makeGroup(t)).id}`, 'OTHER_GROUP', 'never')
  })
  after(async () => { await t.close() })

  it('sends them in the original\'s precedence, as secrets (public: false)', async () => {
    const variables = await jobVariablesOn('feature', [{ key: 'K_PIPELINE', value: 'pipeline' }])
    const shell = shellOf(variables)
    assert.equal(shell.get('K_YAML')?.value, 'job')
    assert.equal(shell.get('K_GROUP')?.value, 'child')
    assert.equal(shell.get('K_PROJECT')?.value, 'project')
    assert.equal(shell.get('K_PIPELINE')?.value, 'pipeline')
    assert.equal(shell.get('ROOT_ONLY')?.value, 'root-only')
    assert.ok(!shell.has('OTHER_GROUP'))
    // The groups' come root first, then the project's, each a secret.
    const sent = variables.filter((variable) => ['K_GROUP', 'K_PROJECT'].includes(variable.key) && !variable.public)
    assert.deepEqual(sent.map((variable) => `${variable.key}=${variable.value}`), ['K_GROUP=root', 'K_GROUP=child', 'K_PROJECT=child', 'K_PROJECT=project'])
    assert.ok(variables.findIndex((variable) => variable.key === 'GITLAB_USER_ID') < variables.findIndex((variable) => variable.value === 'root'))
    assert.equal(shell.get('ROOT_ONLY')?.public, false)
    assert.equal(shell.get('K_YAML')?.public, true)
  })

  it('gives protected variables only to jobs of protected branches and tags', async () => {
    for (const ref of ['master', 'feature']) {
      const shell = shellOf(await jobVariablesOn(ref))
      assert.ok(!shell.has('PROTECTED_DEPLOY_KEY') && !shell.has('PROTECTED_GROUP_KEY'), ref)
    }
    const protectedBranch = await t.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'mast*' } })
    assert.equal(protectedBranch.status, 201, protectedBranch.text)
    const onMaster = shellOf(await jobVariablesOn('master'))
    assert.equal(onMaster.get('PROTECTED_DEPLOY_KEY')?.value, 'only-protected')
    assert.equal(onMaster.get('PROTECTED_GROUP_KEY')?.value, 'group-protected')
    assert.ok(!shellOf(await jobVariablesOn('feature')).has('PROTECTED_DEPLOY_KEY'))

    assert.ok(!shellOf(await jobVariablesOn('v1.0')).has('PROTECTED_DEPLOY_KEY'))
    const protectedTag = await t.api('POST', `/projects/${project.id}/protected_tags`, { body: { name: 'v*' } })
    assert.equal(protectedTag.status, 201, protectedTag.text)
    const onTag = shellOf(await jobVariablesOn('v1.0'))
    assert.equal(onTag.get('PROTECTED_DEPLOY_KEY')?.value, 'only-protected')
    assert.equal(onTag.get('CI_COMMIT_TAG')?.value, 'v1.0')
    assert.ok(!onTag.has('CI_COMMIT_BRANCH'))
  })

  it('reads them with the same number of queries however many groups and variables there are', async () => {
    const queriesOfOneJob = async () => {
      await t.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'feature' } })
      const { queries, result } = await countQueries(t, () => requestJob(t, runner))
      await updateJob(t, result.body.id, result.body.token, { state: 'success' })
      return queries
    }
    const before = await queriesOfOneJob()
    for (let i = 0; i < 5; i += 1) {
      await define(`groups/${root.id}`, `MORE_ROOT_${i}`, 'x')
      await define(`projects/${project.id}`, `MORE_PROJECT_${i}`, 'x')
    }
    assert.equal(await queriesOfOneJob(), before)
  })

  // Last: its jobs stay pending, out of the other tests' way.
  it('lets `only: variables` test them, protected ones on protected refs only', async () => {
    const other = await makeProject(t, null)
    await commitFiles(t, other.id, { '.gitlab-ci.yml': [
      'build: { script: [make] }',
      'deploy: { script: [deploy], only: { variables: [\'$DEPLOY_ENABLED == "yes"\'] } }',
      'release: { script: [release], only: { variables: [$RELEASE_KEY] } }',
    ].join('\n') })
    await t.api('POST', `/projects/${other.id}/repository/branches`, { body: { branch: 'feature', ref: 'master' } })
    const jobNames = async (ref: string) => {
      const created = await t.api('POST', `/projects/${other.id}/pipeline`, { body: { ref } })
      assert.equal(created.status, 201, created.text)
      const jobs = await t.api('GET', `/projects/${other.id}/pipelines/${created.body.id}/jobs`)
      return jobs.body.map((job: { name: string }) => job.name).sort()
    }
    assert.deepEqual(await jobNames('master'), ['build'])
    await define(`projects/${other.id}`, 'DEPLOY_ENABLED', 'yes')
    await define(`projects/${other.id}`, 'RELEASE_KEY', 'release-secret', true)
    await t.api('POST', `/projects/${other.id}/protected_branches`, { body: { name: 'master' } })
    assert.deepEqual(await jobNames('master'), ['build', 'deploy', 'release'])
    assert.deepEqual(await jobNames('feature'), ['build', 'deploy'])
  })
})
