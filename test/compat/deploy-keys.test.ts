// python-gitlab (Debian's python3-gitlab) against a real Ingot socket: python/deploy_keys.py works
// a project's deploy keys through project.keys (create, list, get, save, enable, delete) and the
// instance's through gl.deploykeys. Without python-gitlab on the machine the test is skipped,
// except in CI.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startCompatServer, type CompatServer } from './server.js'
import { pythonGitlabMissing, runPythonScript } from './python.js'
import { makeKey } from '../helpers/public-keys.js'

describe('compat: python-gitlab deploy keys', () => {
  let server: CompatServer
  before(async () => { server = await startCompatServer() })
  after(async () => { await server.close() })

  it('creates, lists, changes, enables and deletes deploy keys through project.keys', { skip: pythonGitlabMissing() }, async () => {
    const keys = [makeKey({ type: 'ed25519' }, 'ci@example.com'), makeKey({ type: 'rsa', bits: 2048 }, 'pusher@example.com')]
    const stdout = await runPythonScript('deploy_keys.py', [server.url, server.t.root.token, ...keys])
    assert.equal(stdout.trim(), 'ok')
  })
})
