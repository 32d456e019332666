// python-gitlab (Debian's python3-gitlab) against a real Ingot socket: python/project_export.py
// starts an export (project.exports.create), follows it (export.refresh) and downloads the archive
// (export.download), checking its layout. The export is a background job, so the server's job
// worker runs. Without python-gitlab on the machine the test is skipped, except in CI.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startCompatServer, type CompatServer } from './server.js'
import { pythonGitlabMissing, runPythonScript } from './python.js'


describe('compat: python-gitlab project export', () => {
  let server: CompatServer
  before(async () => {
    server = await startCompatServer()
    await server.t.ctx.jobs.start()
  })
  after(async () => { await server.close() })

  it('creates an export, follows it to finished and downloads the archive', { skip: pythonGitlabMissing() }, async () => {
    const stdout = await runPythonScript('project_export.py', [server.url, server.t.root.token])
    assert.equal(stdout.trim(), 'ok')
  })
})
