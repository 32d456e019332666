// Contributors of a branch (spec: Repository, contributor) as the original counts them: its 2,000
// newest commits that are not merges, grouped by author email (exactly as written), each named
// after the newest commit with a non-blank author name. 11.5 answers 0 additions and deletions (it
// stopped counting lines when it moved to Gitaly); the releases before summed each commit's stats,
// and so does Ingot: the lines its diff against its parent adds and deletes (a root commit against
// nothing), renames not followed (a deletion and an addition, as those stats were), binary files no
// lines. Reading 2,000 diffs takes a while, and the answer for a commit never changes: it is kept.
import { ImmutableMemo } from './memo.js'
import type { GitRepository } from './repository.js'

const COMMIT_LIMIT = 2000

export interface Contributor {
  name: string
  email: string
  commits: number
  additions: number
  deletions: number
}

export type ContributorOrder = 'name' | 'email' | 'commits'

/** Each commit starts a line `RS email US name` (control characters idents do not carry); its numstat lines follow. */
const COMMIT_START = '\x1e'
const NAME_START = '\x1f'
const NUMSTAT = /^(\d+|-)\t(\d+|-)\t/

/** Answers of recent default-branch heads: a few per busy project, each a list of authors. */
const answers = new ImmutableMemo<readonly Contributor[]>(256)

/** Contributors of the history of `commit` (a resolved commit id), in order of their newest commit. */
export async function contributorsOf(repo: GitRepository, commit: string): Promise<Contributor[]> {
  const known = await answers.get(`${repo.gitDir}\0${commit}`, () => countContributors(repo, commit))
  // Callers sort the list they get: each gets its own, and its own rows.
  return known.map((contributor) => ({ ...contributor }))
}

async function countContributors(repo: GitRepository, commit: string): Promise<Contributor[]> {
  const out = await repo.run([
    'log', '--no-merges', `--max-count=${COMMIT_LIMIT}`, '--root', '--numstat', '--no-renames', '--no-textconv', '--no-ext-diff',
    '--format=%x1e%ae%x1f%an', '--end-of-options', commit,
  ])
  const byEmail = new Map<string, Contributor>()
  let current: Contributor | null = null
  for (const line of out.split('\n')) {
    if (line.startsWith(COMMIT_START)) {
      const nameAt = line.indexOf(NAME_START)
      const email = line.slice(1, nameAt)
      const name = line.slice(nameAt + 1)
      current = byEmail.get(email) ?? null
      if (current === null) {
        current = { name: '', email, commits: 0, additions: 0, deletions: 0 }
        byEmail.set(email, current)
      }
      if (current.name.trim() === '') current.name = name
      current.commits += 1
      continue
    }
    const stat = current === null ? null : NUMSTAT.exec(line)
    if (stat === null || current === null) continue
    // `-` is a binary file: no lines.
    if (stat[1] !== '-') current.additions += Number(stat[1])
    if (stat[2] !== '-') current.deletions += Number(stat[2])
  }
  return [...byEmail.values()]
}

/** ASCII letters folded, as the original compares names and emails (Ruby's casecmp). */
const folded = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase())

function compareText(x: string, y: string): number {
  const a = folded(x)
  const b = folded(y)
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Sorts contributors by the field (names and emails ignoring ASCII case). Ties, which the original
 * leaves in no particular order, go by name and then email, so pages never shift between requests.
 */
export function sortContributors(contributors: Contributor[], orderBy: ContributorOrder, sort: 'asc' | 'desc'): Contributor[] {
  const direction = sort === 'asc' ? 1 : -1
  const primary = (a: Contributor, b: Contributor) => orderBy === 'commits' ? a.commits - b.commits : compareText(a[orderBy], b[orderBy])
  return contributors.sort((a, b) =>
    direction * (primary(a, b) || compareText(a.name, b.name) || compareText(a.email, b.email)))
}
