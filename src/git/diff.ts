// Differences between two commits as the API's diff entries (spec: Commit, "Diff entry"): old and
// new path and mode, the new/renamed/deleted flags, and the unified diff of each file from its
// `---`/`+++` lines on (git's own header lines left out, as the original shows them). Bounded as
// the original bounds them (release 11.5, Gitlab::Git::DiffCollection and Gitlab::Git::Diff): a
// file's diff of 100 KB or more is answered empty and `too_large`; one of 10 KB or more, in a
// collection that is not expanded, empty and `collapsed`; and a collection stops (`overflow`) at
// its limits of files, lines and bytes. What is read from git is capped as well.
import type { Commit, GitRepository } from './repository.js'
import { ImmutableMemo } from './memo.js'
import { isFullObjectId } from './command.js'

export interface DiffEntry {
  old_path: string
  new_path: string
  a_mode: string
  b_mode: string
  new_file: boolean
  renamed_file: boolean
  deleted_file: boolean
  diff: string
  /** The file's diff is over DIFF_SIZE_LIMIT: `diff` is empty. */
  too_large: boolean
  /** The file's diff is over DIFF_COLLAPSE_LIMIT (or past the safe limits) in a collection that is not expanded: `diff` is empty. */
  collapsed: boolean
}

/** Where a collection of diffs stops: past max_files files, or at max_lines lines or max_bytes bytes. */
export interface DiffLimits {
  maxFiles: number
  maxLines: number
  maxBytes: number
}

/** The original's DiffCollection::DEFAULT_LIMITS (100 files, 5,000 lines), with its 5 KB a file for bytes. */
export const DEFAULT_DIFF_LIMITS: DiffLimits = { maxFiles: 100, maxLines: 5000, maxBytes: 100 * 5 * 1024 }

/**
 * The original's hard limits (Commit::DIFF_HARD_LIMIT_FILES and _LINES: what it shows at most when
 * a diff is expanded). The API's answers, which the original gave without limits, stop here.
 */
export const HARD_DIFF_LIMITS: DiffLimits = { maxFiles: 1000, maxLines: 50_000, maxBytes: 1000 * 5 * 1024 }

/** Gitlab::Git::Diff::SIZE_LIMIT: a file's diff this large is not shown. */
export const DIFF_SIZE_LIMIT = 100 * 1024
/** Gitlab::Git::Diff::COLLAPSE_LIMIT: a file's diff this large is collapsed unless expanded. */
export const DIFF_COLLAPSE_LIMIT = 10 * 1024

/**
 * How much of `git diff -p` is read: enough for the hard limits with room for files answered as
 * too large; past it git is stopped and the collection overflows.
 */
const PATCH_READ_LIMIT = 16 * 1024 * 1024
/** How much of `git diff --raw` is read (some 100 bytes a file; far more than HARD_DIFF_LIMITS' files). */
const RAW_READ_LIMIT = 4 * 1024 * 1024

export interface DiffCollection {
  diffs: DiffEntry[]
  /** The collection stopped at its limits: files after the last one are left out. */
  overflow: boolean
}

export interface DiffOptions {
  /** Only these paths. */
  paths?: readonly string[]
  /** HARD_DIFF_LIMITS unless given. */
  limits?: DiffLimits
  /** Whether diffs are shown whole (the API, as the original's) or collapsed past 10 KB and past the safe limits (emails). */
  expanded?: boolean
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

export function lineCount(diff: string): number {
  if (diff === '') return 0
  let lines = 1
  for (let at = diff.indexOf('\n'); at !== -1 && at < diff.length - 1; at = diff.indexOf('\n', at + 1)) lines += 1
  return lines
}

/** The original's safe limits: the given limits, but never more than the default ones. */
function safeLimitsOf(limits: DiffLimits): DiffLimits {
  return {
    maxFiles: Math.min(limits.maxFiles, DEFAULT_DIFF_LIMITS.maxFiles),
    maxLines: Math.min(limits.maxLines, DEFAULT_DIFF_LIMITS.maxLines),
    maxBytes: Math.min(limits.maxFiles, DEFAULT_DIFF_LIMITS.maxFiles) * 5 * 1024,
  }
}

/**
 * The changes from `from` to `to` (`from` null: against the empty tree, as for a root commit),
 * within limits, as the original's DiffCollection gathers them: files in git's order until one
 * more would pass the files, lines or bytes limit (that one and the rest are left out, and the
 * collection overflows).
 */
export async function diffCommits(repo: GitRepository, from: string | null, to: string, options: DiffOptions = {}): Promise<DiffCollection> {
  const limits = options.limits ?? HARD_DIFF_LIMITS
  const safe = safeLimitsOf(limits)
  const expanded = options.expanded ?? true
  const base = from ?? '4b825dc642cb6eb9a060e54bf8d69288fbee4904' // the empty tree
  const common = ['--no-color', '--no-ext-diff', '-M', '--end-of-options', base, to, '--', ...options.paths ?? []]
  const [raw, patch] = await Promise.all([
    repo.runLimited(['diff', '--raw', '-z', ...common], { maxOutputBytes: RAW_READ_LIMIT }),
    repo.runLimited(['diff', '-p', '--full-index', ...common], { maxOutputBytes: PATCH_READ_LIMIT }),
  ])
  const changes = parseRaw(raw.stdout.toString('utf8'))
  // A cut output's last record or patch may be cut too.
  if (raw.truncated) changes.pop()
  const patches = splitPatches(patch.stdout.toString('utf8'))
  const wholePatches = patch.truncated ? patches.length - 1 : patches.length
  const diffs: DiffEntry[] = []
  let overflow = raw.truncated
  let lines = 0
  let bytes = 0
  for (const [i, change] of changes.entries()) {
    if (i >= limits.maxFiles) {
      overflow = true
      break
    }
    let text = patches[i] ?? ''
    if (i >= wholePatches) {
      // The read stopped inside this file's patch: it can still be told too large, nothing after it.
      overflow = true
      if (i > wholePatches || Buffer.byteLength(text) < DIFF_SIZE_LIMIT) break
    }
    const size = Buffer.byteLength(text)
    const tooLarge = size >= DIFF_SIZE_LIMIT
    const overSafeLimits = i >= safe.maxFiles || lines > safe.maxLines || bytes >= safe.maxBytes
    const collapsed = !tooLarge && !expanded && text !== '' && (size >= DIFF_COLLAPSE_LIMIT || overSafeLimits)
    if (tooLarge || collapsed) text = ''
    lines += lineCount(text)
    bytes += Buffer.byteLength(text)
    if (lines >= limits.maxLines || bytes >= limits.maxBytes) {
      overflow = true
      break
    }
    diffs.push({
      old_path: change.oldPath,
      new_path: change.newPath,
      a_mode: octalMode(change.aMode),
      b_mode: octalMode(change.bMode),
      new_file: change.status === 'A',
      renamed_file: change.status.startsWith('R'),
      deleted_file: change.status === 'D',
      diff: text,
      too_large: tooLarge,
      collapsed,
    })
    if (i >= wholePatches) break
  }
  return { diffs, overflow }
}

/** Whether a collection goes past `limits` (the original's `overflow?` of a diff under its default limits). */
export function diffOverflows(collection: DiffCollection, limits: DiffLimits = DEFAULT_DIFF_LIMITS): boolean {
  if (collection.overflow || collection.diffs.length > limits.maxFiles) return true
  let lines = 0
  let bytes = 0
  for (const entry of collection.diffs) {
    lines += lineCount(entry.diff)
    bytes += Buffer.byteLength(entry.diff)
    if (lines >= limits.maxLines || bytes >= limits.maxBytes) return true
  }
  return false
}

export interface ChangedFiles {
  added: string[]
  modified: string[]
  removed: string[]
}

/**
 * The paths each commit added, modified and removed since its first parent (a root commit: all its
 * files), for all of them in one git process, as far as RAW_READ_LIMIT; a rename counts as
 * modified, as push hooks list it.
 */
export async function changedFilesOfCommits(repo: GitRepository, commits: readonly Pick<Commit, 'id' | 'parents'>[]): Promise<ChangedFiles[]> {
  if (commits.length === 0) return []
  // A line `<commit> <parent>` diffs the commit against that one parent (a merge: its first).
  const input = commits.map((commit) => (commit.parents[0] === undefined ? commit.id : `${commit.id} ${commit.parents[0]}`)).join('\n')
  const raw = await repo.runLimited(['diff-tree', '--stdin', '--always', '--root', '-r', '-M', '--raw', '-z', '--no-ext-diff'], {
    input: `${input}\n`, maxOutputBytes: RAW_READ_LIMIT,
  })
  const byCommit = parseRawPerCommit(raw.stdout.toString('utf8'))
  // Past the read limit (tens of thousands of files) the lists stop; the last record may be cut.
  if (raw.truncated) [...byCommit.values()].at(-1)?.pop()
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
  const count = async () => (await repo.run(['diff', '--name-only', '-z', '--end-of-options', from, to])).split('\0').filter((name) => name !== '').length
  // Between two commit ids the count never changes: a merge request's page asks it on every view.
  return isFullObjectId(from) && isFullObjectId(to) ? changedFileCounts.get(`${repo.gitDir}\0${from}\0${to}`, count) : count()
}

const changedFileCounts = new ImmutableMemo<number>()

/**
 * The paths the diff from `from` to `to` touches, both sides of a rename, as far as RAW_READ_LIMIT
 * (what CI's `only: changes` matches against, as the original's modified paths of a push).
 */
export async function changedPathsBetween(repo: GitRepository, from: string, to: string): Promise<string[]> {
  const names = await repo.runLimited(['diff', '--name-only', '--no-renames', '-z', '--end-of-options', from, to], { maxOutputBytes: RAW_READ_LIMIT })
  const paths = names.stdout.toString('utf8').split('\0').filter((name) => name !== '')
  if (names.truncated) paths.pop()
  return paths
}
