// Differences between two commits as the API's diff entries (spec: Commit, "Diff entry"): old and
// new path and mode, the new/renamed/deleted flags, and the unified diff of each file from its
// `---`/`+++` lines on (git's own header lines left out, as the original shows them).
import type { Commit, GitRepository } from './repository.js'

export interface DiffEntry {
  old_path: string
  new_path: string
  a_mode: string
  b_mode: string
  new_file: boolean
  renamed_file: boolean
  deleted_file: boolean
  diff: string
}

interface RawChange {
  aMode: string
  bMode: string
  status: string
  oldPath: string
  newPath: string
}

/** One `--raw -z` record from `fields[i]` on (`:mode mode oid oid STATUS`, then one path, or two for a rename or copy); the index after it. */
function rawRecord(fields: readonly string[], i: number): [RawChange, number] {
  const [aMode = '', bMode = '', , , status = ''] = (fields[i++] ?? '').slice(1).split(' ')
  const oldPath = fields[i++] ?? ''
  const newPath = status.startsWith('R') || status.startsWith('C') ? fields[i++] ?? '' : oldPath
  return [{ aMode, bMode, status, oldPath, newPath }, i]
}

/** `git diff --raw -z` records: `:mode mode oid oid STATUS\0path\0[path\0]`. */
function parseRaw(out: string): RawChange[] {
  const fields = out.split('\0')
  const changes: RawChange[] = []
  for (let i = 0; i < fields.length - 1;) {
    if (!(fields[i] ?? '').startsWith(':')) {
      i += 1
      continue
    }
    const [change, next] = rawRecord(fields, i)
    changes.push(change)
    i = next
  }
  return changes
}

/** `git diff-tree --stdin --always -z --raw`: each commit's id, then its records (read in turn, a path is never taken for an id). */
function parseRawPerCommit(out: string): Map<string, RawChange[]> {
  const fields = out.split('\0')
  const commits = new Map<string, RawChange[]>()
  let current: RawChange[] = []
  for (let i = 0; i < fields.length - 1;) {
    const field = fields[i] ?? ''
    if (!field.startsWith(':')) {
      commits.set(field, current = [])
      i += 1
      continue
    }
    const [change, next] = rawRecord(fields, i)
    current.push(change)
    i = next
  }
  return commits
}

/** A mode as the original prints it (Ruby's `to_s(8)`): `100644`, and `0` for a side with no file. */
const octalMode = (mode: string) => mode.replace(/^0+(?=\d)/, '')

/** Splits `git diff -p` output into each file's patch, from its `---` line (or binary note) on. */
function splitPatches(patch: string): string[] {
  const files = patch.split(/^diff --git /m).slice(1)
  return files.map((file) => {
    const lines = file.split('\n')
    const body = lines.findIndex((line) => line.startsWith('--- ') || line.startsWith('Binary files '))
    return body === -1 ? '' : lines.slice(body).join('\n')
  })
}

/**
 * The changes from `from` to `to` (`from` null: against the empty tree, as for a root commit),
 * optionally limited to paths.
 */
export async function diffCommits(repo: GitRepository, from: string | null, to: string, paths: readonly string[] = []): Promise<DiffEntry[]> {
  const base = from ?? '4b825dc642cb6eb9a060e54bf8d69288fbee4904' // the empty tree
  const common = ['--no-color', '--no-ext-diff', '-M', '--end-of-options', base, to, '--', ...paths]
  const [raw, patch] = await Promise.all([
    repo.run(['diff', '--raw', '-z', ...common]),
    repo.run(['diff', '-p', '--full-index', ...common]),
  ])
  const patches = splitPatches(patch)
  return parseRaw(raw).map((change, i) => ({
    old_path: change.oldPath,
    new_path: change.newPath,
    a_mode: octalMode(change.aMode),
    b_mode: octalMode(change.bMode),
    new_file: change.status === 'A',
    renamed_file: change.status.startsWith('R'),
    deleted_file: change.status === 'D',
    diff: patches[i] ?? '',
  }))
}

export interface ChangedFiles {
  added: string[]
  modified: string[]
  removed: string[]
}

/**
 * The paths each commit added, modified and removed since its first parent (a root commit: all its
 * files), for all of them in one git process; a rename counts as modified, as push hooks list it.
 */
export async function changedFilesOfCommits(repo: GitRepository, commits: readonly Pick<Commit, 'id' | 'parents'>[]): Promise<ChangedFiles[]> {
  if (commits.length === 0) return []
  // A line `<commit> <parent>` diffs the commit against that one parent (a merge: its first).
  const input = commits.map((commit) => (commit.parents[0] === undefined ? commit.id : `${commit.id} ${commit.parents[0]}`)).join('\n')
  const out = await repo.run(['diff-tree', '--stdin', '--always', '--root', '-r', '-M', '--raw', '-z', '--no-ext-diff'], { input: `${input}\n` })
  const byCommit = parseRawPerCommit(out)
  return commits.map((commit) => {
    const files: ChangedFiles = { added: [], modified: [], removed: [] }
    for (const change of byCommit.get(commit.id) ?? []) {
      if (change.status === 'A') files.added.push(change.newPath)
      else if (change.status === 'D') files.removed.push(change.oldPath)
      else files.modified.push(change.newPath)
    }
    return files
  })
}

/** How many files the diff from `from` to `to` changes (a rename is one), without reading the diff itself. */
export async function changedFileCount(repo: GitRepository, from: string, to: string): Promise<number> {
  const names = await repo.run(['diff', '--name-only', '-z', '--end-of-options', from, to])
  return names.split('\0').filter((name) => name !== '').length
}
