// GET /projects/:id/repository/commits (spec: Commits): one page of a revision's history (or of
// every ref with `all`), filtered by path and inclusive committer dates, in git log's order, with
// the selection's size for X-Total and, on request, each commit's stats — three git processes and
// the cat-file reader per page, whatever the page size.
import { pageParams, type Page, type PaginationQuery } from '../../common/pages.js'
import { commitIdsPage, commitStats, countCommits, type HistorySelection, type LineStats } from '../../git/log.js'
import type { Commit, GitRepository } from '../../git/repository.js'

export interface CommitsPage {
  page: Page<Commit>
  /** Stats by commit id; null unless asked for. */
  stats: Map<string, LineStats> | null
}

export async function listCommits(
  repo: GitRepository, selection: HistorySelection, pagination: PaginationQuery, withStats: boolean,
): Promise<CommitsPage> {
  const { page, perPage } = pageParams(pagination)
  const [ids, total] = await Promise.all([
    commitIdsPage(repo, selection, (page - 1) * perPage, perPage),
    countCommits(repo, selection),
  ])
  const commits = await repo.readCommits(ids)
  const stats = withStats ? await commitStats(repo, commits) : null
  return { page: { items: commits, total, page, perPage }, stats }
}
