// @gitbeaker/rest against a real Ingot socket: the version endpoint clients check first.
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
})
