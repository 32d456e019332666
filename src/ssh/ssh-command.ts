// The command line an SSH client asks to run, read as gitlab-shell reads SSH_ORIGINAL_COMMAND:
// split into words as a POSIX shell would (no expansion of any kind), `git upload-pack 'path'`
// (Git for Windows) taken as `git-upload-pack 'path'`, and only git's commands and
// `git-lfs-authenticate <path> <download|upload>` recognized. The path may be quoted or not, start
// with `/` or `~/`, and end with `.git` or not.
import type { GitCommand } from '../services/git-access/git-access.js'

export type SshCommand =
  | { kind: 'git'; command: GitCommand; fullPath: string }
  | { kind: 'lfs-authenticate'; fullPath: string; operation: 'download' | 'upload' }
  /** Anything else: refused as "Disallowed command". */
  | { kind: 'disallowed' }
  /** A git command whose path names no repository that could exist. */
  | { kind: 'invalid-path' }

const GIT_COMMANDS: readonly string[] = ['git-upload-pack', 'git-receive-pack', 'git-upload-archive']

/** Longest command line read; git's are short. */
const MAX_COMMAND_LENGTH = 4096

/** Words of a command line; null when its quotes are unbalanced. */
export function shellWords(line: string): string[] | null {
  const words: string[] = []
  let word: string | null = null
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i]!
    if (char === "'") {
      const end = line.indexOf("'", i + 1)
      if (end === -1) return null
      word = (word ?? '') + line.slice(i + 1, end)
      i = end
    } else if (char === '"') {
      let text = ''
      let j = i + 1
      for (; j < line.length && line[j] !== '"'; j += 1) {
        // Inside double quotes a backslash escapes only these, as in sh.
        if (line[j] === '\\' && j + 1 < line.length && '\\"$`\n'.includes(line[j + 1]!)) j += 1
        text += line[j]
      }
      if (j >= line.length) return null
      word = (word ?? '') + text
      i = j
    } else if (char === '\\') {
      if (i + 1 < line.length) word = (word ?? '') + line[i + 1]
      i += 1
    } else if (/\s/.test(char)) {
      if (word !== null) words.push(word)
      word = null
    } else {
      word = (word ?? '') + char
    }
  }
  if (word !== null) words.push(word)
  return words
}

/** A namespace path and a project path: no empty, `.` or `..` segment, only path characters. */
const FULL_PATH = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[\w.-]+(?:\/[\w.-]+)+$/

/** `<namespace>/<project>[.wiki]` of a repository path as clients send it; null when it cannot name one. */
export function repositoryPathOf(raw: string): string | null {
  const fullPath = raw.replace(/^~\/?/, '').replace(/^\/+/, '').replace(/\/+$/, '').replace(/\.git$/, '')
  return FULL_PATH.test(fullPath) ? fullPath : null
}

export function parseSshCommand(line: string): SshCommand {
  const words = line.length > MAX_COMMAND_LENGTH ? null : shellWords(line)
  if (words === null || words.length === 0) return { kind: 'disallowed' }
  const args = words.length === 3 && words[0] === 'git' ? [`git-${words[1]}`, words[2]!] : words
  const [name, rawPath] = args
  if (name === 'git-lfs-authenticate') {
    const operation = args[2]
    if (args.length !== 3 || (operation !== 'download' && operation !== 'upload')) return { kind: 'disallowed' }
    const fullPath = repositoryPathOf(rawPath!)
    return fullPath === null ? { kind: 'invalid-path' } : { kind: 'lfs-authenticate', fullPath, operation }
  }
  if (name === undefined || !GIT_COMMANDS.includes(name) || args.length !== 2) return { kind: 'disallowed' }
  const fullPath = repositoryPathOf(rawPath!)
  return fullPath === null ? { kind: 'invalid-path' } : { kind: 'git', command: name as GitCommand, fullPath }
}
