// What the runner keeps in its directory: the saved runner token (mode 0600, replaced whole), and
// the lock that keeps a second runner process out of a directory a live one uses.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { lockDirectory, readSavedRunner, saveRunner } from '../../src/runner/state.js'

describe('runner state', () => {
  let dir: string
  before(async () => { dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-runner-state-')) })
  after(() => fs.rm(dir, { recursive: true, force: true }))

  it('saves the runner token readable by its owner only, and reads it back', async () => {
    assert.equal(await readSavedRunner(dir), null)
    await saveRunner(dir, { url: 'http://localhost:8080', id: 7, token: 'secret-token' })
    await saveRunner(dir, { url: 'http://localhost:8080', id: 8, token: 'newer-token' })
    assert.deepEqual(await readSavedRunner(dir), { url: 'http://localhost:8080', id: 8, token: 'newer-token' })
    assert.equal((await fs.stat(path.join(dir, 'runner.json'))).mode & 0o777, 0o600)
    assert.deepEqual((await fs.readdir(dir)).sort(), ['runner.json'])
  })

  it('refuses a directory a live runner process holds, and takes over one a dead process left', async () => {
    const holder = spawn('sleep', ['30'])
    try {
      await fs.writeFile(path.join(dir, 'runner.pid'), `${holder.pid}\n`)
      assert.equal(await lockDirectory(dir), false)
    } finally {
      holder.kill('SIGKILL')
      await new Promise((resolve) => holder.once('exit', resolve))
    }
    assert.equal(await lockDirectory(dir), true)
    assert.equal((await fs.readFile(path.join(dir, 'runner.pid'), 'utf8')).trim(), String(process.pid))
  })
})
