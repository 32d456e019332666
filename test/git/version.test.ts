// Which git Ingot starts with: the releases of each branch that carry the fixes of CVE-2022-41903
// and CVE-2022-23521 and merge-tree --write-tree (2.38), read from what `git --version` prints.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { formatGitVersion, isSupportedGitVersion, parseGitVersion } from '../../src/git/version.js'

describe('git version', () => {
  it('reads the version git prints, whatever its packager appended', () => {
    assert.deepEqual(parseGitVersion('git version 2.39.5\n'), { major: 2, minor: 39, patch: 5 })
    assert.deepEqual(parseGitVersion('git version 2.40.0.rc1'), { major: 2, minor: 40, patch: 0 })
    assert.deepEqual(parseGitVersion('git version 2.39.1.windows.1'), { major: 2, minor: 39, patch: 1 })
    assert.deepEqual(parseGitVersion('git version 2.45.2 (Apple Git-151)'), { major: 2, minor: 45, patch: 2 })
    assert.deepEqual(parseGitVersion('git version 3.0'), { major: 3, minor: 0, patch: 0 })
    assert.equal(parseGitVersion('hub version 2.14.2'), null)
    assert.equal(parseGitVersion(''), null)
    assert.equal(formatGitVersion({ major: 2, minor: 38, patch: 3 }), '2.38.3')
  })

  it('takes the fixed release of each branch and later ones, and refuses what came before', () => {
    const table: [string, boolean][] = [
      // The newest branch at the time of the fixes, and everything after it.
      ['2.39.0', false], ['2.39.1', true], ['2.39.5', true], ['2.40.0', true], ['2.47.1', true], ['3.0.0', true],
      // The 2.38 branch got them in 2.38.3.
      ['2.38.0', false], ['2.38.2', false], ['2.38.3', true], ['2.38.5', true],
      // Older branches have fixed releases too, but no merge-tree --write-tree.
      ['2.37.4', false], ['2.37.5', false], ['2.36.4', false], ['2.35.6', false], ['2.34.6', false],
      ['2.33.6', false], ['2.32.5', false], ['2.31.6', false], ['2.30.7', false], ['2.30.2', false],
      ['2.20.1', false], ['1.9.5', false],
    ]
    const answers = table.map(([version]) => [version, isSupportedGitVersion(parseGitVersion(`git version ${version}`)!)])
    assert.deepEqual(answers, table)
  })
})
