// `ingot admin runners registration-token`, run as an operator runs it: a child process of
// `src/main.ts` on the database of a test app, whose token then registers an instance runner
// through the API, and stays the same from one run to the next.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { makeGroup } from '../helpers/factories.js'

const MAIN = path.resolve('src/main.ts')

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `ingot admin runners <args>` to its end (a minute at most). */
function runners(t: TestApp, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'admin', 'runners', ...args], {
      env: { ...process.env, INGOT_DATA_DIR: t.ctx.config.dataDir, INGOT_DATABASE_URL: t.ctx.config.databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8') })
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('ingot admin runners', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp() })
  after(() => t.close())

  it('prints the instance registration token, the same every time, with which an instance runner registers', async () => {
    const first = await runners(t, ['registration-token'])
    assert.equal(first.code, 0, first.stderr)
    assert.equal(first.stderr, '')
    assert.match(first.stdout, /^\S+\n$/)
    const token = first.stdout.trim()
    assert.ok(!token.startsWith('glrt-'))
    assert.equal((await runners(t, ['registration-token'])).stdout.trim(), token)
    const registered = await t.api('POST', '/runners', { token: null, body: { token } })
    assert.equal(registered.status, 201, registered.text)
    const row = await t.ctx.db.selectFrom('ci_runners').select('runner_type').where('id', '=', registered.body.id).executeTakeFirstOrThrow()
    assert.equal(row.runner_type, 'instance_type')
  })

  it('prints a group\'s registration token with --group, with which a runner of that group registers', async () => {
    const group = await makeGroup(t, { path: 'Runner-Group' })
    const printed = await runners(t, ['registration-token', '--group', 'runner-group'])
    assert.equal(printed.code, 0, printed.stderr)
    const token = printed.stdout.trim()
    assert.notEqual(token, (await runners(t, ['registration-token'])).stdout.trim())
    const registered = await t.api('POST', '/runners', { token: null, body: { token } })
    assert.equal(registered.status, 201, registered.text)
    const assigned = await t.ctx.db.selectFrom('ci_runner_namespaces').select('namespace_id').where('runner_id', '=', registered.body.id).execute()
    assert.deepEqual(assigned.map((row) => row.namespace_id), [group.id])
    const missing = await runners(t, ['registration-token', '--group', 'no-such-group'])
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /there is no group "no-such-group"/)
  })

  it('answers --help, and exit 2 for arguments it does not take', async () => {
    const help = await runners(t, ['registration-token', '--help'])
    assert.equal(help.code, 0)
    assert.match(help.stdout, /^Usage: ingot admin runners registration-token/)
    const group = await runners(t, ['--help'])
    assert.match(group.stdout, /registration-token/)
    const extra = await runners(t, ['registration-token', 'more'])
    assert.equal(extra.code, 2, extra.stderr)
    assert.doesNotMatch(extra.stderr, /\n\s+at /, 'no stack trace')
    assert.equal(extra.stdout, '')
  })
})
