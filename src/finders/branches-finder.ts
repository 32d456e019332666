// Branches of a project's repository (spec: Branches): the list sorted by name with `search`, and
// the views of a list page or of one branch with their protection for the caller. A list page
// costs one `for-each-ref` for the names and tips, one `for-each-ref --merged` for the page's
// merged flags and one pipelined cat-file batch for the page's commits, whatever the number of
// branches (the git side is git/branches.ts).
import type { Actor } from '../auth/actor.js'
import type { AppContext } from '../context.js'
import type { ProtectedBranchRow } from '../db/schema.js'
import type { BranchView } from '../entities/branch.js'
import { branchTips, branchesMergedInto, defaultBranchTip, type BranchTip } from '../git/branches.js'
import type { Commit } from '../git/repository.js'
import { DEVELOPER } from '../policies/access-levels.js'
import { canOnProject, type ProjectSubject } from '../policies/project-policy.js'
import { canPushToBranch, matchingRules } from '../policies/protected-refs.js'
import { pageParams, type Page, type PaginationQuery } from '../common/pages.js'
import { protectedBranchesOf } from './protected-refs.js'

type Ctx = Pick<AppContext, 'db' | 'repositories'>

interface ViewContext {
  rules: readonly ProtectedBranchRow[]
  defaultBranch: string | null
  defaultTip: string | null
  /** The caller may push at all (signed in, Developer or admin, project not archived); null otherwise. */
  writer: { level: number; admin: boolean } | null
}

async function viewContext(ctx: Ctx, subject: ProjectSubject, actor: Actor | null): Promise<ViewContext> {
  const repo = ctx.repositories.open(subject.project.id)
  const [rules, defaultTip] = await Promise.all([
    protectedBranchesOf(ctx.db, subject.project.id), defaultBranchTip(repo, subject.project.default_branch),
  ])
  const writer = canOnProject(actor, subject, 'push_code') ? { level: subject.access.level, admin: actor?.user.admin === 1 } : null
  return { rules, defaultBranch: subject.project.default_branch, defaultTip, writer }
}

function viewOf(tip: BranchTip, commit: Commit, merged: boolean, c: ViewContext): BranchView {
  const matching = matchingRules(c.rules, tip.name)
  return {
    name: tip.name,
    commit,
    merged,
    protected: matching.length > 0,
    developersCanPush: matching.some((rule) => rule.push_access_level === DEVELOPER),
    developersCanMerge: matching.some((rule) => rule.merge_access_level === DEVELOPER),
    canPush: c.writer !== null && canPushToBranch(c.rules, tip.name, c.writer.level, c.writer.admin),
    isDefault: tip.name === c.defaultBranch,
  }
}

/** Views of branches whose tips are known: their commits in one cat-file batch, merged flags in one walk. */
async function viewsOf(ctx: Ctx, subject: ProjectSubject, tips: readonly BranchTip[], c: ViewContext): Promise<BranchView[]> {
  if (tips.length === 0) return []
  const repo = ctx.repositories.open(subject.project.id)
  const [commits, merged] = await Promise.all([
    repo.readCommits(tips.map((tip) => tip.commitId)),
    c.defaultTip === null ? new Set<string>() : branchesMergedInto(repo, c.defaultTip, tips),
  ])
  const commitsById = new Map(commits.map((commit) => [commit.id, commit]))
  const views: BranchView[] = []
  for (const tip of tips) {
    const commit = commitsById.get(tip.commitId)
    if (commit !== undefined) views.push(viewOf(tip, commit, merged.has(tip.name), c))
  }
  return views
}

export interface BranchFilters {
  /** Case-insensitive part of the name. */
  search?: string
}

/** One page of the branches sorted by name, as views for the caller. */
export async function listBranches(
  ctx: Ctx, subject: ProjectSubject, actor: Actor | null, filters: BranchFilters, pagination: PaginationQuery,
): Promise<Page<BranchView>> {
  const repo = ctx.repositories.open(subject.project.id)
  const search = filters.search?.toUpperCase()
  const [allTips, c] = await Promise.all([branchTips(repo), viewContext(ctx, subject, actor)])
  const tips = search === undefined || search === '' ? allTips : allTips.filter((tip) => tip.name.toUpperCase().includes(search))
  const { page, perPage } = pageParams(pagination)
  const items = await viewsOf(ctx, subject, tips.slice((page - 1) * perPage, page * perPage), c)
  return { items, total: tips.length, page, perPage }
}

/** The view of a branch whose tip is known (looked up, or just moved by a write). */
export async function branchViewOf(ctx: Ctx, subject: ProjectSubject, actor: Actor | null, tip: BranchTip): Promise<BranchView | null> {
  const [view] = await viewsOf(ctx, subject, [tip], await viewContext(ctx, subject, actor))
  return view ?? null
}
