// Merge requests: the batch loader every merge request answer goes through (authors, assignees,
// mergers, closers, labels, milestones and target projects of a page in a fixed number of queries),
// what only the single form shows (subscription, diff refs, changes count), and the three lists
// (GET /merge_requests, /projects/:id/merge_requests, /groups/:id/merge_requests) with every
// filter of the spec in SQL, so that X-Total and the pages are exact.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Actor } from '../auth/actor.js'
import type { AppContext } from '../context.js'
import type { Db } from '../db/index.js'
import type { MergeRequestRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import type { MergeRequestDetails, MergeRequestView } from '../entities/merge-request.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import { changedFileCount } from '../git/diff.js'
import { BRANCH_PREFIX } from '../git/ref-names.js'
import { labelTitlesByTarget } from '../services/labels/issuable-labels.js'
import { issuableConditions, mergeRequestVisibleTo, type IssuableFilters } from './issuable-filters.js'
import { headPipelineOf } from './merge-request-pipelines.js'
import { containsIgnoringCase } from './text-search.js'
import { milestoneViewsById } from './milestones-finder.js'
import { namespacesById, projectsById, usersById } from './rows.js'

/** The merge request numbered `iid` of its target project; null when it has none. */
export async function findMergeRequestByIid(db: Db, targetProjectId: number, iid: number): Promise<MergeRequestRow | null> {
  if (!fitsIntegerColumn(iid)) return null
  const mergeRequest = await db.selectFrom('merge_requests').selectAll()
    .where('target_project_id', '=', targetProjectId).where('iid', '=', iid).executeTakeFirst()
  return mergeRequest ?? null
}

/** Views of the rows, in their order, in a fixed number of queries whatever their count. */
export async function loadMergeRequestViews(db: Db, rows: readonly MergeRequestRow[]): Promise<MergeRequestView[]> {
  if (rows.length === 0) return []
  const userIds = rows.flatMap((mr) => [mr.author_id, mr.assignee_id, mr.merged_by_id, mr.closed_by_id].flatMap((id) => (id === null ? [] : [id])))
  const milestoneIds = rows.flatMap((mr) => (mr.milestone_id === null ? [] : [mr.milestone_id]))
  const [users, projects, labels, milestones] = await Promise.all([
    usersById(db, userIds),
    projectsById(db, rows.map((mr) => mr.target_project_id)),
    labelTitlesByTarget(db, 'MergeRequest', rows.map((mr) => mr.id)),
    milestoneViewsById(db, milestoneIds),
  ])
  const namespaces = await namespacesById(db, [...projects.values()].map((project) => project.namespace_id))
  const user = (id: number | null) => (id === null ? null : users.get(id) ?? null)
  return rows.map((mr) => {
    const project = projects.get(mr.target_project_id)
    const namespace = project === undefined ? undefined : namespaces.get(project.namespace_id)
    const author = users.get(mr.author_id)
    if (project === undefined || namespace === undefined || author === undefined) {
      throw new Error(`merge request ${mr.id} lost its project or author`)
    }
    return {
      mergeRequest: mr,
      projectFullPath: `${namespace.full_path}/${project.path}`,
      author,
      assignee: user(mr.assignee_id),
      mergedBy: user(mr.merged_by_id),
      closedBy: user(mr.closed_by_id),
      labels: labels.get(mr.id) ?? [],
      milestone: mr.milestone_id === null ? null : milestones.get(mr.milestone_id) ?? null,
    }
  })
}

export async function loadMergeRequestView(db: Db, row: MergeRequestRow): Promise<MergeRequestView> {
  const [view] = await loadMergeRequestViews(db, [row])
  if (view === undefined) throw new Error(`merge request ${row.id} has no view`)
  return view
}

/**
 * Whether the user gets notified about the merge request, as the original's subscribed?: their
 * explicit choice when they made one, else whether they take part in it (author, assignee, or the
 * author of one of its notes).
 */
export async function isSubscribed(db: Db, userId: number, mr: MergeRequestRow): Promise<boolean> {
  const choice = await db.selectFrom('subscriptions').select('subscribed')
    .where('subscribable_type', '=', 'MergeRequest').where('subscribable_id', '=', mr.id)
    .where('user_id', '=', userId).where('project_id', '=', mr.target_project_id)
    .executeTakeFirst()
  if (choice !== undefined) return choice.subscribed === 1
  if (mr.author_id === userId || mr.assignee_id === userId) return true
  const note = await db.selectFrom('notes').select('id')
    .where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', mr.id)
    .where('author_id', '=', userId).where('system', '=', 0)
    .limit(1).executeTakeFirst()
  return note !== undefined
}

/**
 * The diff refs of the merge request in its target repository: head (the source branch head it
 * shows), start (the target branch head) and base (their merge base); with the number of files the
 * diff from base to head changes. Null while the source head is unknown.
 */
async function repositorySide(ctx: AppContext, mr: MergeRequestRow): Promise<Pick<MergeRequestDetails, 'changesCount' | 'diffRefs'>> {
  if (mr.sha === null) return { changesCount: null, diffRefs: null }
  const repo = ctx.repositories.open(mr.target_project_id)
  const start = mr.target_sha ?? await repo.resolveCommit(`${BRANCH_PREFIX}${mr.target_branch}`)
  const head = await repo.resolveCommit(mr.sha)
  if (start === null || head === null) return { changesCount: null, diffRefs: { base_sha: null, head_sha: mr.sha, start_sha: start } }
  const base = await repo.mergeBase(start, head)
  return {
    changesCount: String(base === null ? 0 : await changedFileCount(repo, base, head)),
    diffRefs: { base_sha: base, head_sha: head, start_sha: start },
  }
}

/** What the single form shows beyond the view. */
export async function loadMergeRequestDetails(ctx: AppContext, actor: Actor | null, mr: MergeRequestRow): Promise<MergeRequestDetails> {
  const [subscribed, repository, project, headPipeline] = await Promise.all([
    actor === null ? false : isSubscribed(ctx.db, actor.user.id, mr),
    repositorySide(ctx, mr),
    projectsById(ctx.db, [mr.target_project_id]),
    headPipelineView(ctx.db, mr),
  ])
  return { subscribed, ...repository, jobsEnabled: project.get(mr.target_project_id)?.jobs_enabled === 1, headPipeline }
}

/** The head pipeline with its (source) project's path, for its web_url. */
async function headPipelineView(db: Db, mr: MergeRequestRow): Promise<MergeRequestDetails['headPipeline']> {
  const pipeline = await headPipelineOf(db, mr)
  if (pipeline === null) return null
  const source = (await projectsById(db, [pipeline.project_id])).get(pipeline.project_id)
  const namespace = source === undefined ? undefined : (await namespacesById(db, [source.namespace_id])).get(source.namespace_id)
  if (source === undefined || namespace === undefined) return null
  return { pipeline, projectFullPath: `${namespace.full_path}/${source.path}` }
}

/** Which merge requests a list starts from, before the filters. */
export type MergeRequestScope =
  /** Every merge request the caller may see (GET /merge_requests). */
  | { kind: 'all' }
  /** One project's, already authorized (GET /projects/:id/merge_requests). */
  | { kind: 'project'; projectId: number }
  /** Those of the projects of a group and its subgroups that the caller may see. */
  | { kind: 'group'; groupId: number }

export const MERGE_REQUEST_STATES = ['opened', 'closed', 'locked', 'merged', 'all'] as const

export interface MergeRequestFilters extends IssuableFilters {
  sourceBranch?: string
  targetBranch?: string
  /** true: only work in progress; false: only the others. */
  wip?: boolean
  /** Those of one milestone by id (GET /milestones/:id/merge_requests). */
  milestoneId?: number
  orderBy: 'created_at' | 'updated_at'
  sort: 'asc' | 'desc'
}

const WIP_PREFIXES = sql`(lower(mr.title) like 'wip:%' or lower(mr.title) like '[wip]%')`

function inScope(scope: MergeRequestScope): Expression<SqlBool> | null {
  switch (scope.kind) {
    case 'all': return null
    case 'project': return sql<SqlBool>`mr.target_project_id = ${scope.projectId}`
    case 'group': return sql<SqlBool>`projects.namespace_id in (with recursive tree(id) as (
        select cast(${scope.groupId} as integer)
        union all select n.id from namespaces n join tree on n.parent_id = tree.id
      ) select id from tree)`
  }
}

/** The query of a list: rows of `merge_requests` (alias mr) in the requested order, id the tie-breaker. */
export async function findMergeRequests(db: Db, actor: Actor | null, scope: MergeRequestScope, filters: MergeRequestFilters) {
  const conditions = issuableConditions(db, 'MergeRequest', 'mr', filters, actor)
  const add = (condition: Expression<SqlBool> | null) => { if (condition !== null) conditions.push(condition) }
  add(inScope(scope))
  // One project's list was authorized as a whole by the route; the others are filtered per project.
  if (scope.kind !== 'project') add(await mergeRequestVisibleTo(db, actor, 'projects'))
  if (filters.sourceBranch !== undefined) add(sql<SqlBool>`mr.source_branch = ${filters.sourceBranch}`)
  if (filters.targetBranch !== undefined) add(sql<SqlBool>`mr.target_branch = ${filters.targetBranch}`)
  if (filters.wip !== undefined) add(filters.wip ? sql<SqlBool>`${WIP_PREFIXES}` : sql<SqlBool>`not ${WIP_PREFIXES}`)
  if (filters.milestoneId !== undefined) add(sql<SqlBool>`mr.milestone_id = ${filters.milestoneId}`)
  return db.selectFrom('merge_requests as mr')
    .innerJoin('projects', 'projects.id', 'mr.target_project_id')
    .selectAll('mr')
    .where((eb) => eb.and(conditions))
    .orderBy(`mr.${filters.orderBy}`, filters.sort)
    .orderBy('mr.id', filters.sort)
}

const RELATED_LIMIT = 20

/**
 * The issue page's related merge requests: those of the issue's project, newest first (at most
 * 20), whose title or description mentions the issue as `#<iid>` or `<project path>#<iid>`, as the
 * visitor may see them (the caller has checked they may read the project's merge requests).
 * Candidates are found by LIKE on both databases, then the reference is matched whole, so `#12`
 * is not found in `#123`, `other/project#12` or `&#12;`.
 */
export async function findMergeRequestsMentioningIssue(
  db: Db, actor: Actor | null, project: { id: number; fullPath: string }, iid: number,
): Promise<MergeRequestView[]> {
  const mention = `#${iid}`
  const candidates = await (await findMergeRequests(db, actor, { kind: 'project', projectId: project.id }, { orderBy: 'created_at', sort: 'desc' }))
    .where((eb) => eb.or([containsIgnoringCase('mr.title', mention), containsIgnoringCase('mr.description', mention)]))
    .limit(RELATED_LIMIT * 5).execute()
  const path = project.fullPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const reference = new RegExp(`(?:(?<![\\w/.-])${path}|(?<![\\w&/.-]))#${iid}(?!\\d)`, 'i')
  const mentioning = candidates.filter((mr) => reference.test(mr.title) || reference.test(mr.description ?? '')).slice(0, RELATED_LIMIT)
  return loadMergeRequestViews(db, mentioning)
}

/** One page of a list, with its views. */
export async function listMergeRequests(
  db: Db, actor: Actor | null, scope: MergeRequestScope, filters: MergeRequestFilters, params: PaginationQuery,
): Promise<Page<MergeRequestView>> {
  const page = await paginate(db, await findMergeRequests(db, actor, scope, filters), params)
  return { ...page, items: await loadMergeRequestViews(db, page.items) }
}
