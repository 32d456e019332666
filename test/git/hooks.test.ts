// The hook directory Ingot gives receive-pack: its pre-receive script, and no post-receive left
// from an earlier version (whose script would wait for an answer nobody gives).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { installHooks } from '../../src/git/hooks.js'

describe('installHooks', () => {
  it('writes an executable pre-receive and removes a post-receive an earlier version installed', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-hooks-'))
    try {
      await fs.writeFile(path.join(dir, 'post-receive'), '#!/bin/sh\nread -r recorded <&4\n', { mode: 0o755 })
      assert.equal(await installHooks(dir), dir)
      assert.deepEqual(await fs.readdir(dir), ['pre-receive'])
      const mode = (await fs.stat(path.join(dir, 'pre-receive'))).mode
      assert.equal(mode & 0o111, 0o111)
      assert.match(await fs.readFile(path.join(dir, 'pre-receive'), 'utf8'), /^#!\/bin\/sh\n# Installed by Ingot/)
    } finally {
      await fs.rm(dir, { recursive: true, force: true })
    }
  })
})
