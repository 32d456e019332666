// The hook directory Ingot gives receive-pack: its pre-receive script, and no post-receive left
// from an earlier version (whose script would wait for an answer nobody gives). Ingot's side of the
// hook's pipes: the verdict, and the push recorded as soon as receive-pack's report is whole.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { installHooks, serveHooks, type HookRefUpdate } from '../../src/git/hooks.js'
import { pktLine } from '../../src/git/pkt-line.js'

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

describe('serveHooks', () => {
  const OLD = 'a'.repeat(40)
  const NEW = 'b'.repeat(40)

  it('answers the pre-receive request, and records the push once the report is whole, before receive-pack ends', async () => {
    const fromHooks = new PassThrough()
    const toHooks = new PassThrough()
    const recorded: HookRefUpdate[][] = []
    const watch = serveHooks(fromHooks, toHooks, {
      preReceive: async () => ({ allow: true, messages: [] }),
      pushed: async (updates) => { recorded.push(updates) },
      refTarget: async () => { throw new Error('a report was given') },
      onError: (err) => { throw err },
    })
    fromHooks.write(`pre-receive\nQ=/q\nO=/o\nA=/a\n${OLD} ${NEW} refs/heads/main\n${OLD} ${NEW} refs/heads/side\n.\n`)
    const [verdict] = await once(toHooks, 'data') as [Buffer]
    assert.equal(verdict.toString(), 'allow\n.\n')
    const report = Buffer.from(`${pktLine('unpack ok\n')}${pktLine('ok refs/heads/main\n')}${pktLine('ng refs/heads/side failed\n')}0000`)
    watch.observe(report.subarray(0, 20))
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(recorded, [], 'not before the report is whole')
    watch.observe(report.subarray(20))
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(recorded, [[{ oldId: OLD, newId: NEW, ref: 'refs/heads/main' }]])
    // receive-pack's end finds the push recorded, and records it no second time.
    await watch.finish()
    assert.equal(recorded.length, 1)
  })
})
