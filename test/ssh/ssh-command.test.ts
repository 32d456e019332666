// The command lines SSH clients send, read as gitlab-shell reads them: git's own spellings of a
// path, Git for Windows' `git upload-pack`, git-lfs-authenticate, and everything else refused.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseSshCommand, shellWords } from '../../src/ssh/ssh-command.js'

describe('parseSshCommand', () => {
  it('reads the path however git spells it', () => {
    for (const line of [
      "git-upload-pack 'group/project.git'", 'git-upload-pack group/project.git', "git-upload-pack '/group/project.git'",
      "git-upload-pack '~/group/project'", 'git-upload-pack "group/project.git"', "git upload-pack 'group/project.git'",
    ]) {
      assert.deepEqual(parseSshCommand(line), { kind: 'git', command: 'git-upload-pack', fullPath: 'group/project' }, line)
    }
    assert.deepEqual(parseSshCommand("git-receive-pack 'a/b/c.wiki.git'"), { kind: 'git', command: 'git-receive-pack', fullPath: 'a/b/c.wiki' })
    assert.deepEqual(parseSshCommand("git-upload-archive 'a/b.git'"), { kind: 'git', command: 'git-upload-archive', fullPath: 'a/b' })
  })

  it('reads git-lfs-authenticate with its operation', () => {
    assert.deepEqual(parseSshCommand('git-lfs-authenticate a/b.git upload'), { kind: 'lfs-authenticate', fullPath: 'a/b', operation: 'upload' })
    assert.deepEqual(parseSshCommand('git-lfs-authenticate a/b.git'), { kind: 'disallowed' })
    assert.deepEqual(parseSshCommand('git-lfs-authenticate a/b.git push'), { kind: 'disallowed' })
  })

  it('refuses other commands, extra words, and paths that name no repository', () => {
    for (const line of ['ls', 'git-upload-pack', "git-upload-pack 'a/b.git' --strict", "git-upload-pack 'a/b.git'; id", 'sh -c id', "git-upload-pack 'a/b", '']) {
      assert.deepEqual(parseSshCommand(line), { kind: 'disallowed' }, line)
    }
    for (const line of ["git-upload-pack '../../etc/passwd'", "git-upload-pack 'a/../b.git'", "git-upload-pack 'project.git'", "git-upload-pack 'a//b.git'"]) {
      assert.equal(parseSshCommand(line).kind, 'invalid-path', line)
    }
  })

  it('splits words as sh does, without expansion', () => {
    assert.deepEqual(shellWords(`a 'b c' "d \\"e\\"" f\\ g $HOME`), ['a', 'b c', 'd "e"', 'f g', '$HOME'])
    assert.equal(shellWords("'open"), null)
  })
})
