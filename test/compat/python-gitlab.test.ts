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
import { execFile, execFileSync } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { ROOT_PASSWORD } from '../helpers/app.js'
import { startCompatServer, type CompatServer } from './server.js'

const run = promisify(execFile)
const PYTHON = '/usr/bin/python3'

function pythonGitlabMissing(): string | false {
  try {
    execFileSync(PYTHON, ['-c', 'import gitlab'], { stdio: 'ignore' })
    return false
  } catch {
    if (process.env.CI === 'true') throw new Error('CI must have python-gitlab: apt-get install python3-gitlab')
    return 'python-gitlab is not installed (apt-get install python3-gitlab)'
  }
}

describe('compat: python-gitlab', () => {
  let server: CompatServer
  before(async () => { server = await startCompatServer() })
  after(async () => { await server.close() })

  it('runs the everyday script without a failure', { skip: pythonGitlabMissing() }, async () => {
    const script = path.join(import.meta.dirname, 'python', 'smoke.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })

  it('registers an OAuth application and works with a token of it', { skip: pythonGitlabMissing() }, async () => {
    const script = path.join(import.meta.dirname, 'python', 'oauth.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token, 'root', ROOT_PASSWORD], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab OAuth script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })

  it('registers a runner and works the runner API with it', { skip: pythonGitlabMissing() }, async () => {
    const script = path.join(import.meta.dirname, 'python', 'runners.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab runners script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })

  it('creates, lists, reads, changes and deletes CI/CD variables of a project and a group', { skip: pythonGitlabMissing() }, async () => {
    const script = path.join(import.meta.dirname, 'python', 'ci_variables.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab CI/CD variables script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })

  it('works pipeline triggers and pipeline schedules', { skip: pythonGitlabMissing() }, async () => {
    const script = path.join(import.meta.dirname, 'python', 'ci_triggers.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab triggers script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })

  it('deploys through a pipeline and works environments and deployments', { skip: pythonGitlabMissing() }, async () => {
    const script = path.join(import.meta.dirname, 'python', 'environments.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab environments script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })

  it('works project and group badges', { skip: pythonGitlabMissing() }, async () => {
    const script = path.join(import.meta.dirname, 'python', 'badges.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab badges script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })

  it('works hooks with pipeline and job events and the pipelines-email integration', { skip: pythonGitlabMissing() }, async () => {
    const script = path.join(import.meta.dirname, 'python', 'ci_notifications.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab notifications script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })

  // Last: it starts the job worker (push pipelines, the automatic merge), which the others do not expect.
  it('works a merge request\'s pipelines and merge when pipeline succeeds', { skip: pythonGitlabMissing() }, async () => {
    await server.t.ctx.jobs.start()
    const script = path.join(import.meta.dirname, 'python', 'merge_when_pipeline_succeeds.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab merge when pipeline succeeds script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })
})
