// Contributors of a branch (spec: Repository, contributor) as the original counts them: its 2,000
// newest commits that are not merges, grouped by author email (exactly as written), each named
// after the newest commit with a non-blank author name. The original reports 0 additions and
// deletions (it stopped counting lines when it moved to Gitaly), and so does Ingot.
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

/** Contributors of the history of `commit` (a resolved commit id), in order of their newest commit. */
export async function contributorsOf(repo: GitRepository, commit: string): Promise<Contributor[]> {
  const out = await repo.run(['log', '--no-merges', `--max-count=${COMMIT_LIMIT}`, '-z', '--format=%ae%x00%an', '--end-of-options', commit])
  const byEmail = new Map<string, Contributor>()
  const fields = out.split('\0') // -z: email NUL name NUL email NUL name …
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const email = fields[i] ?? ''
    const name = fields[i + 1] ?? ''
    let contributor = byEmail.get(email)
    if (contributor === undefined) {
      contributor = { name: '', email, commits: 0, additions: 0, deletions: 0 }
      byEmail.set(email, contributor)
    }
    if (contributor.name.trim() === '') contributor.name = name
    contributor.commits += 1
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
