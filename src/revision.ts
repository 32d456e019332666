// The commit Ingot runs from (short SHA), read once from its own checkout; "unknown" elsewhere.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runGit } from './git/command.js'

const installDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

let revision: Promise<string> | null = null

export function ingotRevision(): Promise<string> {
  revision ??= runGit(['-C', installDir, 'rev-parse', '--short', 'HEAD'], { timeoutMs: 5000 })
    .then((out) => out.trim() || 'unknown', () => 'unknown')
  return revision
}
