// The pipelines of a merge request, as the original 11.5's MergeRequest reads them: its head
// pipeline (the source project's newest branch pipeline for the source branch at the merge
// request's head) and all_pipelines (the source project's pipelines of the source branch at any of
// the merge request's commits, newest first).
import type { AppContext } from '../context.js'
import type { Db } from '../db/index.js'
import type { CiPipelineRow, MergeRequestRow } from '../db/schema.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import { commitIdsBetween } from '../git/merge.js'
import { ImmutableMemo } from '../git/memo.js'

/** The commits between two commits never change: each pair is walked once per process. */
const commitsBetween = new ImmutableMemo<readonly string[]>(256)

export async function headPipelineOf(db: Db, mr: MergeRequestRow): Promise<CiPipelineRow | null> {
  if (mr.source_project_id === null || mr.sha === null) return null
  const row = await db.selectFrom('ci_pipelines').selectAll()
    .where('project_id', '=', mr.source_project_id).where('sha', '=', mr.sha)
    .where('ref', '=', mr.source_branch).where('tag', '=', 0)
    .orderBy('id', 'desc').limit(1).executeTakeFirst()
  return row ?? null
}

/** A page of the pipelines of the merge request's commits on its source branch, newest first. */
export async function mergeRequestPipelinePage(ctx: AppContext, mr: MergeRequestRow, params: PaginationQuery): Promise<Page<CiPipelineRow>> {
  const repo = ctx.repositories.open(mr.target_project_id)
  const exclude = mr.target_sha === null ? [] : [mr.target_sha]
  const head = mr.sha
  const shas = mr.source_project_id === null || head === null
    ? []
    : await commitsBetween.get(`${repo.gitDir}\0${exclude.join()}\0${head}`, () => commitIdsBetween(repo, exclude, head))
  const query = ctx.db.selectFrom('ci_pipelines').selectAll()
    .where('project_id', '=', mr.source_project_id ?? 0).where('ref', '=', mr.source_branch).where('tag', '=', 0)
    .where('sha', 'in', shas.length === 0 ? [''] : shas)
    .orderBy('id', 'desc')
  return paginate(ctx.db, query, params)
}
