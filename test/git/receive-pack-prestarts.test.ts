// receive-packs started ahead of their push's POST, on real bare repositories: the one started is
// the one taken, only for the same options, stopped when not taken in time or when the server
// closes, and never more than the limit at once.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { installHooks } from '../../src/git/hooks.js'
import { gitProcessCounts } from '../../src/git/processes.js'
import { ReceivePackPrestarts } from '../../src/git/receive-pack-prestarts.js'
import { outputOf, type ServiceOptions, type ServiceProcess } from '../../src/git/smart-http.js'
import { plainGit } from '../helpers/git.js'
import { until } from '../helpers/jobs.js'

describe('receive-packs started ahead of their POST', () => {
  let scratch: string
  let hooksDir: string
  const gitDirs: string[] = []
  const optionsFor = (gitDir: string, more: Partial<ServiceOptions> = {}): ServiceOptions => ({
    gitDir, protocol: null, hooksDir, maxInputBytes: 0, timeoutMs: 60_000, idleTimeoutMs: 60_000, ...more,
  })
  const running = () => gitProcessCounts().get('receive-pack')?.running ?? 0
  const exited = (service: ServiceProcess) => service.child.exitCode !== null || service.child.signalCode !== null
    ? Promise.resolve()
    : once(service.child, 'exit').then(() => {})

  before(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-prestarts-'))
    hooksDir = await installHooks(path.join(scratch, 'hooks'))
    for (const name of ['a.git', 'b.git']) {
      const gitDir = path.join(scratch, name)
      await plainGit(() => scratch, () => gitDir).git('init', '--bare', '-q', gitDir)
      gitDirs.push(gitDir)
    }
  })
  after(async () => {
    await fs.rm(scratch, { recursive: true, force: true })
  })

  it('hands the started receive-pack to the POST with the same options, once, and it serves the request', async () => {
    const prestarts = new ReceivePackPrestarts()
    const before = running()
    prestarts.prestart(optionsFor(gitDirs[0]!))
    prestarts.prestart(optionsFor(gitDirs[0]!))
    assert.equal(running(), before + 1, 'one waits per kind')
    assert.equal(prestarts.take(optionsFor(gitDirs[0]!, { maxInputBytes: 1024 })), null, 'not for other options')
    assert.equal(prestarts.take(optionsFor(gitDirs[1]!)), null, 'not for another repository')
    const taken = prestarts.take(optionsFor(gitDirs[0]!))
    assert.ok(taken)
    assert.equal(prestarts.take(optionsFor(gitDirs[0]!)), null, 'taken once')
    // A request with no commands: receive-pack answers nothing and succeeds.
    taken.child.stdin.end('0000')
    const answer: Buffer[] = []
    for await (const chunk of outputOf(taken)) answer.push(chunk)
    assert.equal(Buffer.concat(answer).length, 0)
    assert.equal(taken.child.exitCode, 0)
    assert.equal(running(), before)
  })

  it('stops one not taken in time, and holds no more than the limit at once', async () => {
    const prestarts = new ReceivePackPrestarts(1, 50)
    const before = running()
    prestarts.prestart(optionsFor(gitDirs[0]!))
    prestarts.prestart(optionsFor(gitDirs[1]!))
    assert.equal(running(), before + 1, 'the second is over the limit')
    await until(() => running() === before, 'the waiting receive-pack to stop')
    assert.equal(prestarts.take(optionsFor(gitDirs[0]!)), null)
    // Its place is free again.
    prestarts.prestart(optionsFor(gitDirs[1]!))
    const taken = prestarts.take(optionsFor(gitDirs[1]!))
    assert.ok(taken)
    taken.child.kill()
    await exited(taken)
  })

  it('stops every waiting one when closed', async () => {
    const before = running()
    const prestarts = new ReceivePackPrestarts()
    prestarts.prestart(optionsFor(gitDirs[0]!))
    prestarts.prestart(optionsFor(gitDirs[1]!))
    assert.equal(running(), before + 2)
    prestarts.close()
    await until(() => running() === before, 'the waiting receive-pack to stop')
    assert.equal(prestarts.take(optionsFor(gitDirs[0]!)), null)
    assert.equal(prestarts.take(optionsFor(gitDirs[1]!)), null)
  })
})
