// python-gitlab (Debian's python3-gitlab) against a real Ingot socket: python/project_export.py
// starts an export (project.exports.create), follows it (export.refresh) and downloads the archive
// (export.download), checking its layout. The export is a background job, so the server's job
// worker runs. Without python-gitlab on the machine the test is skipped, except in CI.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
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

describe('compat: python-gitlab project export', () => {
  let server: CompatServer
  before(async () => {
    server = await startCompatServer()
    await server.t.ctx.jobs.start()
  })
  after(async () => { await server.close() })

  it('creates an export, follows it to finished and downloads the archive', { skip: pythonGitlabMissing() }, async () => {
    const script = path.join(import.meta.dirname, 'python', 'project_export.py')
    const { stdout } = await run(PYTHON, [script, server.url, server.t.root.token], { timeout: 120_000 }).catch((err: { stderr?: string; message: string }) => {
      assert.fail(`python-gitlab project export script failed:\n${err.stderr ?? err.message}`)
    })
    assert.equal(stdout.trim(), 'ok')
  })
})
