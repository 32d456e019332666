// `ingot admin runners registration-token`, run as an operator runs it: a child process of
// the `ingot` command on the database of a test app, whose token then registers an instance runner
// through the API, and stays the same from one run to the next.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { runIngot, type NodeRun } from '../helpers/ingot-command.js'
import { makeGroup } from '../helpers/factories.js'


/** Runs `ingot admin runners <args>` on the test app's database to its end. */
function runners(t: TestApp, args: readonly string[]): Promise<NodeRun> {
  return runIngot(['admin', 'runners', ...args], { ...process.env, INGOT_DATA_DIR: t.ctx.config.dataDir, INGOT_DATABASE_URL: t.ctx.config.databaseUrl })
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
