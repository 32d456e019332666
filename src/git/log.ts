// History reads (spec: Commits): pages of commits of a revision or of every ref, filtered by path
// and committer date, with the count of the same selection for X-Total; the last commit touching
// a path; the refs containing a commit; and commit stats (lines added and removed) in one git
// process for a whole page.
import { ImmutableMemo } from './memo.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from './ref-names.js'
import type { GitRepository } from './repository.js'

export interface HistorySelection {
  /** A resolved commit id to walk from; ignored when `all` is set. */
  from: string | null
  /** Every commit reachable from any ref. */
  all: boolean
  /** Only commits touching this path (a literal path, already checked). */
  path: string | null
  /** Committer dates, epoch ms, both inclusive. */
  since: number | null
  until: number | null
}

/** The whole history below a commit (a resolved id). */
export function historyFrom(commit: string): HistorySelection {
  return { from: commit, all: false, path: null, since: null, until: null }
}

/** git's own date form: whole seconds and a zone, so no parser has to guess. */
function gitDate(seconds: number): string {
  return `@${seconds} +0000`
}

function selectionArgs(selection: HistorySelection): string[] | null {
  if (!selection.all && selection.from === null) return null
  const args: string[] = []
  // Commit dates have whole seconds: the bounds round inwards so that they stay inclusive.
  if (selection.since !== null) args.push(`--since=${gitDate(Math.ceil(selection.since / 1000))}`)
  if (selection.until !== null) args.push(`--until=${gitDate(Math.floor(selection.until / 1000))}`)
  args.push(...(selection.all ? ['--all'] : ['--end-of-options', selection.from as string]))
  if (selection.path !== null) args.push('--', selection.path)
  return args
}

// History below a commit never changes: pages, counts and last commits of a selection that starts
// at a commit id are kept (not those of `all`, which depend on the refs). A kept page is at most
// 100 ids, so 1,024 of them stay within a few MB.
const pages = new ImmutableMemo<readonly string[]>(1024)
const counts = new ImmutableMemo<number>()

/** Ids of one page of the selection, newest first (git log's order). */
export async function commitIdsPage(repo: GitRepository, selection: HistorySelection, offset: number, limit: number): Promise<readonly string[]> {
  const args = selectionArgs(selection)
  if (args === null) return []
  const page = async () => {
    const out = await repo.run(['rev-list', `--max-count=${limit}`, `--skip=${offset}`, ...args])
    return out.split('\n').filter((line) => line !== '')
  }
  return selection.all ? page() : pages.get(`${repo.gitDir}\0${offset}\0${limit}\0${args.join('\0')}`, page)
}

/** How many commits the selection holds. */
export async function countCommits(repo: GitRepository, selection: HistorySelection): Promise<number> {
  const args = selectionArgs(selection)
  if (args === null) return 0
  const count = async () => Number((await repo.run(['rev-list', '--count', ...args])).trim())
  return selection.all ? count() : counts.get(`${repo.gitDir}\0${args.join('\0')}`, count)
}

const lastCommits = new ImmutableMemo<string | null>()

/** The last commit at or below `commit` (a resolved id) that touched `path`; null when none did. */
export async function lastCommitForPath(repo: GitRepository, commit: string, path: string): Promise<string | null> {
  return lastCommits.get(`${repo.gitDir}\0${commit}\0${path}`, async () =>
    (await repo.run(['rev-list', '--max-count=1', '--end-of-options', commit, '--', path])).trim() || null)
}

export interface RefNames {
  branches: string[]
  tags: string[]
}

/** Names of the branches and tags whose history contains the commit, each list sorted by name. */
export async function refsContaining(repo: GitRepository, commit: string, kinds: { branches: boolean; tags: boolean }): Promise<RefNames> {
  const prefixes = [...(kinds.branches ? [BRANCH_PREFIX] : []), ...(kinds.tags ? [TAG_PREFIX] : [])]
  if (prefixes.length === 0) return { branches: [], tags: [] }
  const out = await repo.run(['for-each-ref', '--format=%(refname)', `--contains=${commit}`, ...prefixes])
  const refs = out.split('\n').filter((line) => line !== '')
  return {
    branches: refs.filter((ref) => ref.startsWith(BRANCH_PREFIX)).map(shortRefName),
    tags: refs.filter((ref) => ref.startsWith(TAG_PREFIX)).map(shortRefName),
  }
}

export interface LineStats {
  additions: number
  deletions: number
  total: number
}

/**
 * Lines added and removed by each commit against its first parent (a root commit against nothing;
 * binary files count no lines), for many commits in one `git diff-tree --stdin`.
 */
export async function commitStats(repo: GitRepository, commits: readonly { id: string; parents: readonly string[] }[]): Promise<Map<string, LineStats>> {
  const stats = new Map<string, LineStats>(commits.map((c) => [c.id, { additions: 0, deletions: 0, total: 0 }]))
  if (commits.length === 0) return stats
  const input = commits.map((c) => (c.parents[0] === undefined ? c.id : `${c.id} ${c.parents[0]}`)).join('\n')
  const out = await repo.run(['diff-tree', '--stdin', '--root', '-r', '-M', '--numstat', '-z'], { input: `${input}\n` })
  const fields = out.split('\0')
  let current: LineStats | undefined
  for (let i = 0; i < fields.length; i += 1) {
    const field = fields[i] ?? ''
    const tab = field.indexOf('\t')
    if (tab === -1) {
      if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(field)) current = stats.get(field)
      continue
    }
    const [added = '', removed = '', path = ''] = field.split('\t')
    // A rename names its two paths in the next fields.
    if (path === '') i += 2
    if (current === undefined) continue
    const additions = added === '-' ? 0 : Number(added)
    const deletions = removed === '-' ? 0 : Number(removed)
    current.additions += additions
    current.deletions += deletions
    current.total += additions + deletions
  }
  return stats
}
