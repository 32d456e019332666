// matchesWildcard: `*` patterns of protected refs, webhook branch filters and sign-up domains, and
// that a pattern written to backtrack costs a scan of the name, not exponential time.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { matchesWildcard } from '../src/wildcard.js'

describe('matchesWildcard', () => {
  it('matches the whole name, each `*` standing for any text, none included', () => {
    const cases: [string, string, boolean][] = [
      ['master', 'master', true], ['master', 'master2', false], ['', '', true],
      ['*', '', true], ['*', 'anything/at/all', true], ['**', 'x', true],
      ['release/*', 'release/1.0', true], ['release/*', 'release/', true], ['release/*', 'hotfix/release/1', false],
      ['*-stable', '11-5-stable', true], ['*-stable', '11-5-stable2', false],
      ['a*b*c', 'abc', true], ['a*b*c', 'a-b-b-c', true], ['a*b*c', 'acb', false], ['a*b*c', 'abcx', false],
      // The literal start and end may not share characters of the name.
      ['a*a', 'a', false], ['ab*ba', 'aba', false], ['ab*ba', 'abba', true],
      ['*ab*ab*', 'abab', true], ['*ab*ab*', 'aab', false],
      ['f.o*', 'fxo', false], ['(a+)+*', '(a+)+b', true],
    ]
    for (const [pattern, name, expected] of cases) assert.equal(matchesWildcard(pattern, name), expected, `${pattern} ~ ${name}`)
  })

  it('ignores case when asked', () => {
    assert.equal(matchesWildcard('*.Corp.test', 'mail.corp.TEST', { ignoreCase: true }), true)
    assert.equal(matchesWildcard('*.Corp.test', 'mail.corp.TEST'), false)
  })

  it('matches patterns that make a backtracking matcher run for ages in one scan of the name', () => {
    // `******************************x` against a 60-character name hung a RegExp-based matcher;
    // thousands of stars against a 10,000-character name are as cheap as one.
    const name = 'a'.repeat(10_000)
    assert.equal(matchesWildcard(`${'*'.repeat(30)}x`, 'a'.repeat(60)), false)
    assert.equal(matchesWildcard(`${'*'.repeat(5_000)}x`, name), false)
    assert.equal(matchesWildcard(`${'*a'.repeat(5_000)}*b*`, name), false)
    assert.equal(matchesWildcard(`${'*a'.repeat(5_000)}*`, name), true)
    assert.equal(matchesWildcard(`${'a*'.repeat(5_000)}`, name), true)
  })
})
