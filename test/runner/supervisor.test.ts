// The built-in runner's supervisor, with stand-ins for `ingot runner` (small node scripts): a
// child that dies is started again, one that exits as misconfigured (78) or cleanly is left
// stopped, stop() ends the child, and the child sees only the environment it was given. Each test
// waits for what the children have done, not for a time: a node child can take seconds to start
// on a loaded machine.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { superviseRunner } from '../../src/runner/supervisor.js'
import { until } from '../helpers/jobs.js'

let dir: string
const log = pino({ level: 'silent' })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A stand-in runner: appends a line to `starts` at each start, then does `then`. */
async function standIn(name: string, then: string): Promise<{ command: string[]; starts: () => Promise<string[]> }> {
  const starts = path.join(dir, `${name}.starts`)
  const script = path.join(dir, `${name}.cjs`)
  await fs.writeFile(script, `require('fs').appendFileSync(${JSON.stringify(starts)}, (process.env.SECRET ?? 'no secret') + ' ' + process.env.GIVEN + '\\n'); ${then}`)
  return { command: [process.execPath, script], starts: async () => (await fs.readFile(starts, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '') }
}

describe('runner supervisor', () => {
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingot-supervisor-test-'))
    process.env.SECRET = 'parent secret'
  })
  after(async () => {
    delete process.env.SECRET
    await fs.rm(dir, { recursive: true, force: true })
  })

  it('starts a child that dies again, with only the given environment', async () => {
    const runner = await standIn('dies', 'process.exit(1)')
    const supervised = superviseRunner({ command: runner.command, env: { GIVEN: 'given' }, log, restartDelayMs: 50 })
    try {
      await until(async () => (await runner.starts()).length >= 3, 'three starts')
      assert.deepEqual(new Set(await runner.starts()), new Set(['no secret given']))
    } finally {
      await supervised.stop()
    }
  })

  it('leaves a child that cannot work as configured (78) stopped', async () => {
    const runner = await standIn('misconfigured', 'process.exit(78)')
    const supervised = superviseRunner({ command: runner.command, env: { GIVEN: 'given' }, log, restartDelayMs: 50 })
    await until(async () => (await runner.starts()).length === 1, 'the first start')
    // Many restart delays later it has still been started once.
    await sleep(500)
    assert.equal((await runner.starts()).length, 1)
    await supervised.stop()
  })

  it('stops the child with SIGTERM, and restarts it no more', async () => {
    const stopped = path.join(dir, 'stopped')
    const listening = path.join(dir, 'listening')
    const runner = await standIn('long', `process.on('SIGTERM', () => { require('fs').writeFileSync(${JSON.stringify(stopped)}, 'yes'); process.exit(0) }); require('fs').writeFileSync(${JSON.stringify(listening)}, 'yes'); setInterval(() => {}, 1000)`)
    const supervised = superviseRunner({ command: runner.command, env: { GIVEN: 'given' }, log, restartDelayMs: 50 })
    await until(() => fs.access(listening).then(() => true, () => false), 'the child to listen for SIGTERM')
    await supervised.stop()
    assert.equal(await fs.readFile(stopped, 'utf8'), 'yes')
    await sleep(300)
    assert.equal((await runner.starts()).length, 1)
  })
})
