// The command line parsing every `ingot admin` command shares: what it reads, and which command
// lines it refuses as usage errors (exit 2) with a message saying what is wrong.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { UsageError, parseCommandLine, required } from '../../src/cli/command.js'

const OPTIONS = { scopes: { type: 'string' }, admin: { type: 'boolean' } } as const

function refusal(run: () => unknown): string {
  try {
    run()
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err))
    return err.message
  }
  assert.fail('no UsageError')
}

describe('parseCommandLine', () => {
  it('reads options and the positional arguments named', () => {
    const { values, positionals } = parseCommandLine(['alice', '--scopes', 'api', '--admin'], OPTIONS, ['USERNAME'])
    assert.deepEqual({ ...values }, { scopes: 'api', admin: true })
    assert.deepEqual(positionals, ['alice'])
    assert.deepEqual(parseCommandLine(['--scopes=read_user'], OPTIONS).values.scopes, 'read_user')
  })

  it('refuses unknown options, missing values and the wrong number of positional arguments', () => {
    assert.equal(refusal(() => parseCommandLine(['--bogus'], OPTIONS)), "Unknown option '--bogus'")
    assert.equal(refusal(() => parseCommandLine(['--scopes'], OPTIONS)), "Option '--scopes <value>' argument missing")
    assert.equal(refusal(() => parseCommandLine(['--admin=yes'], OPTIONS)), "Option '--admin' does not take an argument")
    assert.equal(refusal(() => parseCommandLine([], OPTIONS, ['USERNAME'])), 'USERNAME is missing')
    assert.equal(refusal(() => parseCommandLine(['a', 'b'], OPTIONS, ['USERNAME'])), 'unexpected argument "b"')
    assert.equal(refusal(() => parseCommandLine(['stray'], OPTIONS)), 'unexpected argument "stray"')
    assert.equal(refusal(() => parseCommandLine([' '], OPTIONS, ['USERNAME'])), 'USERNAME must not be empty')
  })
})

describe('required', () => {
  it('gives the value of an option that came, and refuses one that did not or is blank', () => {
    assert.equal(required('x', 'name'), 'x')
    assert.equal(refusal(() => required(undefined, 'name')), '--name is required')
    assert.equal(refusal(() => required('  ', 'name')), '--name is required')
  })
})
