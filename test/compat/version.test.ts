// @gitbeaker/rest against a real Ingot socket: the version endpoints clients check first.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startCompatServer, type CompatServer } from './server.js'

describe('compat: version', () => {
  let server: CompatServer
  before(async () => { server = await startCompatServer() })
  after(async () => { await server.close() })

  it('reads the version', async () => {
    const version = await server.client().Metadata.show()
    assert.equal(version.version, '11.5.0')
  })

  // gitbeaker v43 knows only /metadata; clients of the 11.5 era read /version, here through its raw requester.
  it('reads /version with a raw request', async () => {
    const response = await server.client().requester.get('version')
    assert.equal(response.status, 200)
    const body = response.body as { version: string; revision: string }
    assert.equal(body.version, '11.5.0')
    assert.equal(typeof body.revision, 'string')
  })
})
