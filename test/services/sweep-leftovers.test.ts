// What crashed processes leave on disk is swept when a process starts: a push's quarantine
// directory (as git makes it, `objects/tmp_objdir-incoming-*`), temporary packs, stale locks and
// our temporary upload and index files, once older than anything still running could be; newer
// ones, which may belong to work in progress in another process, stay.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeProject } from '../helpers/factories.js'
import { leftoverAgeMs, startLeftoverSweeps, sweepDataDirectory } from '../../src/services/sweep-leftovers.js'
import { uploadsRoot } from '../../src/services/uploads/user-avatar.js'
import { STAGING_FOLDER } from '../../src/git/storage.js'

const exists = (file: string) => fs.access(file).then(() => true, () => false)

describe('sweeping leftovers at start', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(async () => { await t.close() })

  /** Makes `file` (a directory with a pack in it when `dir`) and dates it `ageMs` back. */
  async function plant(file: string, ageMs: number, dir = false): Promise<string> {
    if (dir) {
      await fs.mkdir(path.join(file, 'pack'), { recursive: true })
      await fs.writeFile(path.join(file, 'pack', 'tmp_pack_abc'), Buffer.alloc(4096))
    } else {
      await fs.mkdir(path.dirname(file), { recursive: true })
      await fs.writeFile(file, 'x')
    }
    const when = new Date(Date.now() - ageMs)
    await fs.utimes(file, when, when)
    return file
  }

  it('removes old quarantine directories, temporary packs, stale locks and temporary files, and keeps recent ones', async () => {
    const project = await makeProject(t, null)
    const gitDir = t.ctx.repositories.repositoryPath(project.id)
    const old = leftoverAgeMs(t.ctx) + 60_000
    const stale = [
      await plant(path.join(gitDir, 'objects', 'tmp_objdir-incoming-Ab12Cd'), old, true),
      await plant(path.join(gitDir, 'objects', 'pack', 'tmp_pack_Xy9'), old),
      await plant(path.join(gitDir, 'packed-refs.lock'), old),
      await plant(path.join(uploadsRoot(t.ctx.config.dataDir), '-', 'project', String(project.id), 'abc', '.upload-0011'), old),
      await plant(path.join(os.tmpdir(), 'ingot-index-sweeptest0001'), old),
      await plant(path.join(t.ctx.repositories.root, STAGING_FOLDER, 'a1b2.git'), old, true),
    ]
    const recent = [
      await plant(path.join(gitDir, 'objects', 'tmp_objdir-incoming-Ef34Gh'), 60_000, true),
      await plant(path.join(t.ctx.repositories.root, STAGING_FOLDER, 'c3d4.git'), 60_000, true),
      await plant(path.join(gitDir, 'packed-refs.lock.not-a-lock'), old),
      await plant(path.join(uploadsRoot(t.ctx.config.dataDir), '-', 'project', String(project.id), 'abc', '.upload-0022'), 60_000),
    ]
    const removed = await sweepDataDirectory(t.ctx)
    for (const file of stale) assert.equal(await exists(file), false, `${file} swept`)
    for (const file of recent) assert.equal(await exists(file), true, `${file} kept`)
    assert.deepEqual([...removed].sort(), [...stale].sort())
    // The repository still works.
    assert.equal(await t.ctx.repositories.open(project.id).isEmpty(), true)
  })

  it('sweeps in the background as a process starts', async () => {
    const project = await makeProject(t, null)
    const quarantine = await plant(path.join(t.ctx.repositories.repositoryPath(project.id), 'objects', 'tmp_objdir-incoming-Zz99'), leftoverAgeMs(t.ctx) + 60_000, true)
    const stop = startLeftoverSweeps(t.ctx)
    try {
      for (let i = 0; i < 100 && await exists(quarantine); i++) await new Promise((resolve) => setTimeout(resolve, 50))
      assert.equal(await exists(quarantine), false)
    } finally {
      stop()
    }
  })
})
