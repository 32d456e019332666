// The issue lists (spec: Issues): GET /issues, /groups/:id/issues, /projects/:id/issues and the
// issues of a milestone, with what the caller may see and every filter in SQL, so that pages and
// X-Total are exact; and the views a page is presented from, in a fixed number of queries.
//
// Built for projects of a million issues:
// - the page query selects ids along the (project_id, [state,] created_at|updated_at, id) indexes;
// - the X-Total of a list filtered by state alone comes from issue_counts (kept by triggers); a
//   labels-only filter on a project is counted from its label links alone; any other total is
//   counted once and kept in the read cache until a table it was read from is written;
// - labels and search each have two forms: collecting every match and sorting them, best when
//   matches are few, or walking the order's index and testing each row, best when they are many;
//   the total (known first) decides.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Actor } from '../auth/actor.js'
import type { Db } from '../db/index.js'
import type { IssueRow, LabelRow, MilestoneRow, UserRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import { readCacheOf } from '../db/read-cache.js'
import { pageParams, type Page, type PaginationQuery } from '../common/pages.js'
import type { IssueView } from '../entities/issue.js'
import { REPORTER } from '../policies/access-levels.js'
import { canOnProject, type ProjectSubject } from '../policies/project-policy.js'
import { availableLabelsTitled, labelTitlesByTarget } from '../services/labels/issuable-labels.js'
import { grantedProject, projectVisibleTo } from './access.js'
import { issuableConditions, type IssuableFilters } from './issuable-filters.js'
import { milestoneViewsById } from './milestones-finder.js'
import { namespacesById, projectsById, usersById } from './rows.js'
import { matchesSearchInAny } from './text-search.js'

/** Which issues a list holds, before visibility and filters. */
export type IssueScope =
  /** The issues of one project the caller may read (as loadProject found it). */
  | { kind: 'project'; subject: ProjectSubject }
  /** The issues of a group's projects and of its subgroups' projects. */
  | { kind: 'group'; groupId: number }
  | { kind: 'projects'; projectIds: readonly number[] }
  | { kind: 'all' }

export interface IssueFilters extends IssuableFilters {
  /** Issues of this milestone (the milestone issue lists). */
  milestoneId?: number
}

export const ISSUE_ORDERS = ['created_at', 'updated_at'] as const
export interface IssueOrder {
  orderBy: typeof ISSUE_ORDERS[number]
  sort: 'asc' | 'desc'
}

/** The tables a list's rows, total and JSON are read from (what its caches watch). */
export const ISSUE_LIST_TABLES = [
  'issues', 'issue_assignees', 'label_links', 'labels', 'milestones', 'award_emoji', 'users', 'projects', 'namespaces',
  'members', 'project_group_links',
] as const

const NOTHING = sql<SqlBool>`1 = 0`
const EVERYTHING = sql<SqlBool>`1 = 1`
/** Beyond what a Date can hold; bounds keep a bigint comparison valid on PostgreSQL. */
const MAX_TIME = 8.64e15

/** Who in the scope sees confidential issues besides their authors and assignees. */
type ConfidentialReach =
  /** Everyone's: admins, and Reporters of the one project listed. */
  | { kind: 'all' }
  /** Nobody's: anonymous callers. */
  | { kind: 'none' }
  /** Their own, and all of those projects they are Reporter of. */
  | { kind: 'own'; userId: number; reporterOf: (projectIdColumn: string) => Promise<Expression<SqlBool>> }

interface ResolvedScope {
  /** The condition on a project id column: the projects listed that the caller may read the issues of. */
  projects: (projectIdColumn: string) => Expression<SqlBool>
  confidential: ConfidentialReach
}

function groupAndDescendants(groupId: number) {
  return sql`(with recursive tree(id) as (
      select cast(${groupId} as integer)
      union all select n.id from namespaces n join tree on n.parent_id = tree.id
    ) select id from tree)`
}

/** Null when the caller may see none of the scope's issues. */
async function resolveScope(db: Db, actor: Actor | null, scope: IssueScope): Promise<ResolvedScope | null> {
  if (scope.kind === 'project') {
    const { subject } = scope
    if (!canOnProject(actor, subject, 'read_issue')) return null
    const projectId = subject.project.id
    const projects = (column: string) => sql<SqlBool>`${sql.ref(column)} = ${projectId}`
    if (actor === null) return { projects, confidential: { kind: 'none' } }
    if (actor.user.admin === 1 || subject.access.level >= REPORTER) return { projects, confidential: { kind: 'all' } }
    return { projects, confidential: { kind: 'own', userId: actor.user.id, reporterOf: async () => NOTHING } }
  }
  const listed = scope.kind === 'group' ? sql<SqlBool>`p.namespace_id in ${groupAndDescendants(scope.groupId)}`
    : scope.kind === 'projects' ? idIn('p.id', scope.projectIds)
    : EVERYTHING
  const visible = await projectVisibleTo(db, actor, 'p')
  const projects = (column: string) => sql<SqlBool>`${sql.ref(column)} in
    (select p.id from projects p where ${listed} and p.issues_enabled = 1 and ${visible})`
  if (actor === null) return { projects, confidential: { kind: 'none' } }
  if (actor.user.admin === 1) return { projects, confidential: { kind: 'all' } }
  const userId = actor.user.id
  return { projects, confidential: { kind: 'own', userId, reporterOf: (column) => grantedProject(db, userId, column, REPORTER) } }
}

function idIn(column: string, ids: readonly number[]): Expression<SqlBool> {
  const valid = ids.filter(fitsIntegerColumn)
  return valid.length === 0 ? NOTHING : sql<SqlBool>`${sql.ref(column)} in (${sql.join(valid)})`
}

/** The conditions "the caller may see this issue" on `issues as i`. */
async function visibleRows(scope: ResolvedScope): Promise<Expression<SqlBool>[]> {
  const conditions = [scope.projects('i.project_id')]
  const reach = scope.confidential
  if (reach.kind === 'none') conditions.push(sql<SqlBool>`i.confidential = 0`)
  if (reach.kind === 'own') {
    conditions.push(sql<SqlBool>`(i.confidential = 0 or i.author_id = ${reach.userId}
      or i.id in (select ia.issue_id from issue_assignees ia where ia.user_id = ${reach.userId})
      or ${await reach.reporterOf('i.project_id')})`)
  }
  return conditions
}

/**
 * How many issues of the scope (in `state`, if given) the caller sees, without counting them: the
 * maintained counts of the projects, confidential ones only where the caller sees them all, plus
 * the confidential issues the caller wrote or is assigned elsewhere (few, found by their indexes).
 */
async function maintainedTotal(db: Db, scope: ResolvedScope, state: string | undefined): Promise<number> {
  const inState = (column: string) => (state === undefined ? [] : [sql<SqlBool>`${sql.ref(column)} = ${state}`])
  const reach = scope.confidential
  const counts = [scope.projects('c.project_id'), ...inState('c.state')]
  if (reach.kind === 'none') counts.push(sql<SqlBool>`c.confidential = 0`)
  if (reach.kind === 'own') counts.push(sql<SqlBool>`(c.confidential = 0 or ${await reach.reporterOf('c.project_id')})`)
  const counted = await db.selectFrom('issue_counts as c').select(sql<number>`coalesce(sum(c.value), 0)`.as('total'))
    .where((eb) => eb.and(counts)).executeTakeFirstOrThrow()
  if (reach.kind !== 'own') return Number(counted.total)
  const me = reach.userId
  const notReporter = sql<SqlBool>`not (${await reach.reporterOf('i.project_id')})`
  const own = await db.selectFrom('issues as i').select(sql<number>`count(*)`.as('count'))
    .where((eb) => eb.and([
      sql<SqlBool>`i.id in (select a.id from issues a where a.author_id = ${me} and a.confidential = 1
        union select ia.issue_id from issue_assignees ia where ia.user_id = ${me})`,
      sql<SqlBool>`i.confidential = 1`,
      scope.projects('i.project_id'),
      ...inState('i.state'),
      notReporter,
    ]))
    .executeTakeFirstOrThrow()
  return Number(counted.total) + Number(own.count)
}

/** Ids no row can have become -1 and instants are bounded, so that PostgreSQL compares every value. */
function withinColumnRanges(f: IssueFilters): IssueFilters {
  const id = (value: number | undefined) => (value === undefined || fitsIntegerColumn(value) ? value : -1)
  const time = (value: number | undefined) => (value === undefined ? undefined : Math.max(-MAX_TIME, Math.min(MAX_TIME, value)))
  return {
    ...f,
    authorId: id(f.authorId),
    assigneeId: typeof f.assigneeId === 'number' ? id(f.assigneeId) : f.assigneeId,
    milestoneId: id(f.milestoneId),
    iids: f.iids?.filter(fitsIntegerColumn),
    createdAfter: time(f.createdAfter),
    createdBefore: time(f.createdBefore),
    updatedAfter: time(f.updatedAfter),
    updatedBefore: time(f.updatedBefore),
  }
}

/** Whether any filter but `state` narrows the list (its total must then be counted). */
function narrowsBeyondState(f: IssueFilters, actor: Actor | null): boolean {
  return f.labels !== undefined || f.milestone !== undefined || f.milestoneId !== undefined || f.authorId !== undefined ||
    f.assigneeId !== undefined || f.myReactionEmoji !== undefined || f.iids !== undefined ||
    (f.search !== undefined && f.search.trim() !== '') || (actor !== null && f.scope !== undefined && f.scope !== 'all') ||
    f.createdAfter !== undefined || f.createdBefore !== undefined || f.updatedAfter !== undefined || f.updatedBefore !== undefined
}

type Form = 'collect' | 'walk'

/**
 * The labels a title filter means on one project: those available to it (its own and its groups'),
 * the only ones its issues get; null for lists of many projects, filtered by title.
 */
type ResolvedLabels = LabelRow[] | null

async function resolveLabels(db: Db, scope: IssueScope, labels: IssueFilters['labels']): Promise<ResolvedLabels> {
  if (scope.kind !== 'project' || labels === undefined || typeof labels === 'string') return null
  return availableLabelsTitled(db, scope.subject.project.id, labels)
}

/**
 * The condition "carries a label titled so" in either form. 'walk' probes the label links' primary
 * key row by row; `limit 1` keeps SQLite from turning the probe into a join that indexes the whole
 * table first.
 */
function labelled(title: string, resolved: ResolvedLabels, form: Form): Expression<SqlBool> {
  const ids = resolved?.flatMap((label) => (label.title === title ? [label.id] : []))
  if (ids !== undefined) {
    if (ids.length === 0) return NOTHING
    return form === 'walk'
      ? sql<SqlBool>`exists (select 1 from label_links ll
          where ll.target_type = 'Issue' and ll.target_id = i.id and ll.label_id in (${sql.join(ids)}) limit 1)`
      : sql<SqlBool>`i.id in (select ll.target_id from label_links ll where ll.target_type = 'Issue' and ll.label_id in (${sql.join(ids)}))`
  }
  return form === 'walk'
    ? sql<SqlBool>`exists (select 1 from label_links ll join labels l on l.id = ll.label_id
        where ll.target_type = 'Issue' and ll.target_id = i.id and l.title = ${title} limit 1)`
    : sql<SqlBool>`i.id in (select ll.target_id from label_links ll join labels l on l.id = ll.label_id
        where l.title = ${title} and ll.target_type = 'Issue')`
}

/** The conditions of the filters on `issues as i`, labels and search in the given form. */
function filterConditions(db: Db, actor: Actor | null, filters: IssueFilters, resolved: ResolvedLabels, form: Form): Expression<SqlBool>[] {
  const { labels, search, milestoneId, ...others } = filters
  const conditions = issuableConditions(db, 'Issue', 'i', others, actor)
  if (milestoneId !== undefined) conditions.push(sql<SqlBool>`i.milestone_id = ${milestoneId}`)
  if (labels !== undefined) {
    conditions.push(...(typeof labels === 'string'
      ? issuableConditions(db, 'Issue', 'i', { labels }, actor)
      : labels.map((title) => labelled(title, resolved, form))))
  }
  if (search !== undefined) {
    const match = form === 'walk' ? matchesSearchInAny(['i.title', 'i.description'], search) : issuableConditions(db, 'Issue', 'i', { search }, actor)[0]
    if (match !== undefined && match !== null) conditions.push(match)
  }
  return conditions
}

/**
 * A labels-only filter on one project, for a caller who sees all its issues, whose titles name the
 * project's own labels: each link of such a label is to an issue of the project, so counting the
 * issues carrying them all is counting links (an index range). Null when that does not apply.
 */
async function countByLabelLinks(db: Db, scope: IssueScope, reach: ConfidentialReach, resolved: ResolvedLabels, f: IssueFilters): Promise<number | null> {
  const { labels, scope: ownership, ...others } = f
  if (scope.kind !== 'project' || reach.kind !== 'all' || resolved === null || labels === undefined || typeof labels === 'string') return null
  if ((ownership !== undefined && ownership !== 'all') || narrowsBeyondState(others, null) || others.state !== undefined) return null
  const projectId = scope.subject.project.id
  if (resolved.length !== labels.length || resolved.some((label) => label.project_id !== projectId)) return null
  const labelIds = resolved.map((label) => label.id)
  const links = db.selectFrom('label_links').where('target_type', '=', 'Issue')
  const row = labelIds.length === 1
    ? await links.select(sql<number>`count(*)`.as('count')).where('label_id', '=', labelIds[0] ?? -1).executeTakeFirstOrThrow()
    : await db.selectFrom(links.select('target_id').where('label_id', 'in', labelIds).groupBy('target_id')
      .having(sql`count(*)`, '=', labelIds.length).as('carriers'))
      .select(sql<number>`count(*)`.as('count')).executeTakeFirstOrThrow()
  return Number(row.count)
}

function scopeKey(scope: IssueScope): string {
  switch (scope.kind) {
    case 'project': return `project:${scope.subject.project.id}`
    case 'group': return `group:${scope.groupId}`
    case 'projects': return `projects:${scope.projectIds.join(',')}`
    case 'all': return 'all'
  }
}

async function listTotal(
  db: Db, actor: Actor | null, scope: IssueScope, resolvedScope: ResolvedScope, visibility: Expression<SqlBool>[], filters: IssueFilters,
  labels: ResolvedLabels,
): Promise<number> {
  if (!narrowsBeyondState(filters, actor)) return maintainedTotal(db, resolvedScope, filters.state)
  const count = async () => {
    const byLinks = await countByLabelLinks(db, scope, resolvedScope.confidential, labels, filters)
    if (byLinks !== null) return byLinks
    const row = await db.selectFrom('issues as i').select(sql<number>`count(*)`.as('count'))
      .where((eb) => eb.and([...visibility, ...filterConditions(db, actor, filters, labels, 'collect')]))
      .executeTakeFirstOrThrow()
    return Number(row.count)
  }
  const cache = readCacheOf<number>(db, 'issue-list-totals', { tables: ISSUE_LIST_TABLES, maxWeight: 20_000 })
  if (cache === null) return count()
  return cache.get(JSON.stringify([actor?.user.id ?? null, scopeKey(scope), filters]), count)
}

/**
 * Walking the order's index meets a match about every scopeSize / total rows: walk when the page is
 * reached that way before collecting every match would have been done.
 */
async function pageForm(db: Db, resolved: ResolvedScope, filters: IssueFilters, total: number, rowsWanted: number): Promise<Form> {
  const walkable = (filters.labels !== undefined && typeof filters.labels !== 'string') || (filters.search ?? '').trim() !== ''
  if (!walkable) return 'collect'
  const scopeSize = await maintainedTotal(db, resolved, filters.state)
  return rowsWanted * scopeSize <= total * total ? 'walk' : 'collect'
}

/** One page of the ids of the issues the caller sees in the scope, filtered and ordered, with its exact total. */
export async function findIssuePage(
  db: Db, actor: Actor | null, scope: IssueScope, requested: IssueFilters, order: IssueOrder, params: PaginationQuery,
): Promise<Page<number>> {
  const { page, perPage } = pageParams(params)
  const resolved = await resolveScope(db, actor, scope)
  if (resolved === null) return { items: [], total: 0, page, perPage }
  const filters = withinColumnRanges(requested)
  const visibility = await visibleRows(resolved)
  const labels = await resolveLabels(db, scope, filters.labels)
  const total = await listTotal(db, actor, scope, resolved, visibility, filters, labels)
  const offset = (page - 1) * perPage
  if (offset >= total) return { items: [], total, page, perPage }
  const form = await pageForm(db, resolved, filters, total, offset + perPage)
  const rows = await db.selectFrom('issues as i').select('i.id')
    .where((eb) => eb.and([...visibility, ...filterConditions(db, actor, filters, labels, form)]))
    .orderBy(`i.${order.orderBy}`, order.sort).orderBy('i.id', order.sort)
    .limit(perPage).offset(offset)
    .execute()
  return { items: rows.map((row) => row.id), total, page, perPage }
}

/** The project's issue numbered `iid`; null when it has none. */
export async function findIssueByIid(db: Db, projectId: number, iid: number): Promise<IssueRow | null> {
  if (!fitsIntegerColumn(iid)) return null
  const issue = await db.selectFrom('issues').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst()
  return issue ?? null
}

/** Who the issue is assigned to, by user id in ascending order. */
export async function issueAssigneeIds(db: Db, issueId: number): Promise<number[]> {
  const rows = await db.selectFrom('issue_assignees').select('user_id').where('issue_id', '=', issueId).orderBy('user_id').execute()
  return rows.map((row) => row.user_id)
}

/** The issues with these ids, in the order given (an id deleted meanwhile drops out). */
export async function issuesByIds(db: Db, ids: readonly number[]): Promise<IssueRow[]> {
  if (ids.length === 0) return []
  const rows = await db.selectFrom('issues').selectAll().where('id', 'in', [...ids]).execute()
  const byId = new Map(rows.map((row) => [row.id, row]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}

/** The views of issues, in their order, in a fixed number of queries whatever their number. */
export async function loadIssueViews(db: Db, issues: readonly IssueRow[]): Promise<IssueView[]> {
  if (issues.length === 0) return []
  const ids = issues.map((issue) => issue.id)
  const [assigneeRows, labels, milestones, projects] = await Promise.all([
    db.selectFrom('issue_assignees').select(['issue_id', 'user_id']).where('issue_id', 'in', ids).orderBy('user_id').execute(),
    labelTitlesByTarget(db, 'Issue', ids),
    milestoneViewsById(db, issues.flatMap((issue) => (issue.milestone_id === null ? [] : [issue.milestone_id]))),
    projectsById(db, issues.map((issue) => issue.project_id)),
  ])
  const namespaces = await namespacesById(db, [...projects.values()].map((project) => project.namespace_id))
  const users = await usersById(db, [
    ...issues.flatMap((issue) => (issue.closed_by_id === null ? [issue.author_id] : [issue.author_id, issue.closed_by_id])),
    ...assigneeRows.map((row) => row.user_id),
  ])
  const assigneeIds = new Map<number, number[]>()
  for (const row of assigneeRows) assigneeIds.set(row.issue_id, [...(assigneeIds.get(row.issue_id) ?? []), row.user_id])
  return issues.flatMap((issue) => {
    const author = users.get(issue.author_id)
    const project = projects.get(issue.project_id)
    const namespace = project === undefined ? undefined : namespaces.get(project.namespace_id)
    if (author === undefined || project === undefined || namespace === undefined) return []
    return [{
      issue,
      projectFullPath: `${namespace.full_path}/${project.path}`,
      author,
      assignees: (assigneeIds.get(issue.id) ?? []).flatMap((id) => users.get(id) ?? []),
      closedBy: issue.closed_by_id === null ? null : users.get(issue.closed_by_id) ?? null,
      labels: labels.get(issue.id) ?? [],
      milestone: issue.milestone_id === null ? null : milestones.get(issue.milestone_id) ?? null,
    }]
  })
}

/** What a writer holds of an issue it just wrote. */
export interface WrittenIssue {
  issue: IssueRow
  author: UserRow
  labels: readonly LabelRow[]
  assignees: UserRow[]
  milestone: MilestoneRow | null
}

/** The view of an issue just written, from what its writer holds: no query but a group milestone's path. */
export async function writtenIssueView(db: Db, subject: ProjectSubject, written: WrittenIssue): Promise<IssueView> {
  const { milestone } = written
  const projectFullPath = `${subject.namespace.full_path}/${subject.project.path}`
  const milestoneView = milestone === null ? null
    : milestone.project_id === subject.project.id ? { milestone, ownerFullPath: projectFullPath }
    : (await milestoneViewsById(db, [milestone.id])).get(milestone.id) ?? null
  return {
    issue: written.issue,
    projectFullPath,
    author: written.author,
    assignees: written.assignees,
    closedBy: null,
    labels: written.labels.map((label) => label.title).sort(),
    milestone: milestoneView,
  }
}

export async function loadIssueView(db: Db, issue: IssueRow): Promise<IssueView> {
  const [view] = await loadIssueViews(db, [issue])
  if (view === undefined) throw new Error(`issue ${issue.id} has lost its author or project`)
  return view
}

/**
 * Whether the user is subscribed to the issue: as they chose, else as a participant (its author,
 * an assignee, or the author of a comment on it), as the original decides.
 */
export async function isSubscribed(db: Db, userId: number | null, issue: IssueRow, assigneeIds: readonly number[]): Promise<boolean> {
  if (userId === null) return false
  const choice = await db.selectFrom('subscriptions').select('subscribed')
    .where('subscribable_type', '=', 'Issue').where('subscribable_id', '=', issue.id).where('user_id', '=', userId)
    .executeTakeFirst()
  if (choice !== undefined) return choice.subscribed === 1
  if (issue.author_id === userId || assigneeIds.includes(userId)) return true
  const comment = await db.selectFrom('notes').select('id')
    .where('noteable_type', '=', 'Issue').where('noteable_id', '=', issue.id).where('author_id', '=', userId).where('system', '=', 0)
    .limit(1).executeTakeFirst()
  return comment !== undefined
}
