// python-gitlab (Debian's python3-gitlab) against a real Ingot socket: the script in
// python/smoke.py signs in, creates a group and a project with a README, edits files, creates
// commits, branches, protected branches and tags, reads trees and comparisons, lints a CI file,
// and runs a pipeline's create, list, jobs, cancel and retry. python-gitlab 3 parses a body only
// when Content-Type is exactly `application/json`, as the original sends it. python/oauth.py
// registers an OAuth application (gl.applications) and works with a token from it (oauth_token=).
// python/runners.py registers a runner (gl.runners.create) and works the runner API with it.
// python/ci_variables.py works project and group CI/CD variables (project.variables, group.variables).
// python/ci_triggers.py works pipeline triggers (and trigger_pipeline) and pipeline schedules.
// python/environments.py deploys through a pipeline and works environments and deployments.
// python/merge_when_pipeline_succeeds.py works a merge request's pipelines and merge when pipeline
// succeeds; its merge is a background job, so that test starts the server's job worker.
// python/badges.py works project and group badges (project.badges, group.badges, render).
// python/ci_notifications.py works hooks with pipeline_events and job_events, and the pipelines-email integration.
// Without python-gitlab on the machine the test is skipped, except in CI (.ci/run installs it).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT_PASSWORD } from '../helpers/app.js'
import { startCompatServer, type CompatServer } from './server.js'
import { pythonGitlabMissing, runPythonScript } from './python.js'


describe('compat: python-gitlab', () => {
  let server: CompatServer
  before(async () => { server = await startCompatServer() })
  after(async () => { await server.close() })

  it('runs the everyday script without a failure', { skip: pythonGitlabMissing() }, async () => {
    const stdout = await runPythonScript('smoke.py', [server.url, server.t.root.token])
    assert.equal(stdout.trim(), 'ok')
  })

  it('registers an OAuth application and works with a token of it', { skip: pythonGitlabMissing() }, async () => {
    const stdout = await runPythonScript('oauth.py', [server.url, server.t.root.token, 'root', ROOT_PASSWORD])
    assert.equal(stdout.trim(), 'ok')
  })

  it('registers a runner and works the runner API with it', { skip: pythonGitlabMissing() }, async () => {
    const stdout = await runPythonScript('runners.py', [server.url, server.t.root.token])
    assert.equal(stdout.trim(), 'ok')
  })

  it('creates, lists, reads, changes and deletes CI/CD variables of a project and a group', { skip: pythonGitlabMissing() }, async () => {
    const stdout = await runPythonScript('ci_variables.py', [server.url, server.t.root.token])
    assert.equal(stdout.trim(), 'ok')
  })

  it('works pipeline triggers and pipeline schedules', { skip: pythonGitlabMissing() }, async () => {
    const stdout = await runPythonScript('ci_triggers.py', [server.url, server.t.root.token])
    assert.equal(stdout.trim(), 'ok')
  })

  it('deploys through a pipeline and works environments and deployments', { skip: pythonGitlabMissing() }, async () => {
    const stdout = await runPythonScript('environments.py', [server.url, server.t.root.token])
    assert.equal(stdout.trim(), 'ok')
  })

  it('works project and group badges', { skip: pythonGitlabMissing() }, async () => {
    const stdout = await runPythonScript('badges.py', [server.url, server.t.root.token])
    assert.equal(stdout.trim(), 'ok')
  })

  it('works hooks with pipeline and job events and the pipelines-email integration', { skip: pythonGitlabMissing() }, async () => {
    const stdout = await runPythonScript('ci_notifications.py', [server.url, server.t.root.token])
    assert.equal(stdout.trim(), 'ok')
  })

  // Last: it starts the job worker (push pipelines, the automatic merge), which the others do not expect.
  it('works a merge request\'s pipelines and merge when pipeline succeeds', { skip: pythonGitlabMissing() }, async () => {
    await server.t.ctx.jobs.start()
    const stdout = await runPythonScript('merge_when_pipeline_succeeds.py', [server.url, server.t.root.token])
    assert.equal(stdout.trim(), 'ok')
  })
})
