// The migration list itself. Kysely undoes a migration without `down` by leaving its record in
// place, so migrating back past it (as the backfill tests do) leaves the records out of order and
// every later migration refuses to run: each migration has a `down`.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SecretBox } from '../../src/common/secret-box.js'
import { migrations } from '../../src/db/migrations/index.js'

describe('the migration list', () => {
  it('gives every migration a way back', () => {
    const list = migrations({ secrets: new SecretBox('0'.repeat(64)) })
    const withoutDown = Object.entries(list).filter(([, migration]) => typeof migration.down !== 'function').map(([name]) => name)
    assert.deepEqual(withoutDown, [])
  })
})
