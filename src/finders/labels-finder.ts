// Labels a project or group can use — its own and its groups' (the project's group and that
// group's ancestors; a group's ancestors) — and what the labels API shows of each, loaded for a
// whole page at once: the counts of the issues and merge requests the caller may see carrying it,
// and whether the caller subscribed to it.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { Actor } from '../auth/actor.js'
import type { Db } from '../db/index.js'
import type { Database, LabelRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import type { LabelView } from '../entities/label.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import { projectGroupChain } from '../services/labels/issuable-labels.js'
import { issueVisibleTo, mergeRequestVisibleTo } from './issuable-filters.js'
import { textOrder } from './text-search.js'

/** Whose labels (and milestones, and boards): a project's or a group's. */
export type LabelOwner = { type: 'project'; id: number } | { type: 'group'; id: number }

/** Ids of the group and its ancestors. */
export function groupAndAncestors(groupId: number) {
  return sql<number>`(with recursive chain(id) as (
      select cast(${groupId} as integer)
      union all select n.parent_id from namespaces n join chain on n.id = chain.id where n.parent_id is not null
    ) select id from chain)`
}

/** Ids of the group and its descendants. */
export function groupAndDescendants(groupId: number) {
  return sql<number>`(with recursive tree(id) as (
      select cast(${groupId} as integer)
      union all select n.id from namespaces n join tree on n.parent_id = tree.id
    ) select id from tree)`
}

/** The condition "this label may be used by the owner" on a row of `labels`. */
function availableTo(owner: LabelOwner) {
  return (eb: ExpressionBuilder<Database, 'labels'>): Expression<SqlBool> => owner.type === 'project'
    ? eb.or([eb('labels.project_id', '=', owner.id), eb('labels.group_id', 'in', projectGroupChain(owner.id))])
    : eb('labels.group_id', 'in', groupAndAncestors(owner.id))
}

/** The owner's own labels and its groups', by title (a project's own first on a shared title). */
export function listAvailableLabels(db: Db, owner: LabelOwner, pagination: PaginationQuery): Promise<Page<LabelRow>> {
  const query = db.selectFrom('labels').selectAll().where(availableTo(owner))
    .orderBy(textOrder(db, 'labels.title')).orderBy(sql`case when labels.project_id is null then 1 else 0 end`).orderBy('labels.id')
  return paginate(db, query, pagination)
}

/**
 * A label the owner can use, named by id or by title as the original's routes take either: an id
 * first, then a title (the owner's own label first on a shared title).
 */
export async function findAvailableLabel(db: Db, owner: LabelOwner, idOrTitle: string): Promise<LabelRow | null> {
  const byId = /^\d+$/.test(idOrTitle) ? await findAvailableLabelById(db, owner, Number(idOrTitle)) : null
  return byId ?? findAvailableLabelTitled(db, owner, idOrTitle)
}

export async function findAvailableLabelById(db: Db, owner: LabelOwner, id: number): Promise<LabelRow | null> {
  if (!fitsIntegerColumn(id)) return null
  const label = await db.selectFrom('labels').selectAll().where(availableTo(owner)).where('id', '=', id).executeTakeFirst()
  return label ?? null
}

export async function findAvailableLabelTitled(db: Db, owner: LabelOwner, title: string): Promise<LabelRow | null> {
  const label = await db.selectFrom('labels').selectAll().where(availableTo(owner)).where('title', '=', title)
    .orderBy(sql`case when labels.project_id is null then 1 else 0 end`).orderBy('id')
    .executeTakeFirst()
  return label ?? null
}

/** One of the owner's own labels (not its groups'), by id or by title. */
export async function findOwnLabel(db: Db, owner: LabelOwner, by: { id: number } | { title: string }): Promise<LabelRow | null> {
  if ('id' in by && !fitsIntegerColumn(by.id)) return null
  const label = await db.selectFrom('labels').selectAll()
    .where(owner.type === 'project' ? 'project_id' : 'group_id', '=', owner.id)
    .where((eb) => ('id' in by ? eb('id', '=', by.id) : eb('title', '=', by.title)))
    .executeTakeFirst()
  return label ?? null
}

/** One of the owner's own labels named by id or title (an id first), as the label routes take it. */
export async function findOwnLabelByIdOrTitle(db: Db, owner: LabelOwner, idOrTitle: string): Promise<LabelRow | null> {
  const byId = /^\d+$/.test(idOrTitle) ? await findOwnLabel(db, owner, { id: Number(idOrTitle) }) : null
  return byId ?? findOwnLabel(db, owner, { title: idOrTitle })
}

/**
 * The labels with their counts (one query for the page) and the caller's subscriptions (one more).
 * Subscriptions to a label are kept per project, as the original keeps them: `subscriptionProjectId`
 * is the project of the route, null on group routes.
 */
export async function loadLabelViews(
  db: Db, actor: Actor | null, subscriptionProjectId: number | null, labels: readonly LabelRow[],
): Promise<LabelView[]> {
  if (labels.length === 0) return []
  const ids = labels.map((label) => label.id)
  const [counts, subscribed] = await Promise.all([
    labelCounts(db, actor, ids),
    actor === null ? new Set<number>() : subscribedLabelIds(db, actor.user.id, subscriptionProjectId, ids),
  ])
  return labels.map((label) => {
    const count = counts.get(label.id)
    return {
      label,
      openIssuesCount: count?.openIssues ?? 0,
      closedIssuesCount: count?.closedIssues ?? 0,
      openMergeRequestsCount: count?.openMergeRequests ?? 0,
      subscribed: subscribed.has(label.id),
    }
  })
}

interface LabelCounts {
  openIssues: number
  closedIssues: number
  openMergeRequests: number
}

/** The issues (open, closed) and open merge requests the caller may see that carry each label. */
async function labelCounts(db: Db, actor: Actor | null, ids: readonly number[]): Promise<Map<number, LabelCounts>> {
  const [issueVisible, mergeRequestVisible] = await Promise.all([
    issueVisibleTo(db, actor, 'i', 'p'),
    mergeRequestVisibleTo(db, actor, 'p'),
  ])
  const labelIds = sql.join(ids)
  const { rows } = await sql<{ label_id: number; open_issues: number | string; closed_issues: number | string; open_merge_requests: number | string }>`
    select c.label_id, sum(c.open_issues) as open_issues, sum(c.closed_issues) as closed_issues,
      sum(c.open_merge_requests) as open_merge_requests
    from (
      select ll.label_id, case when i.state = 'opened' then 1 else 0 end as open_issues,
        case when i.state = 'closed' then 1 else 0 end as closed_issues, 0 as open_merge_requests
      from label_links ll join issues i on i.id = ll.target_id join projects p on p.id = i.project_id
      where ll.target_type = 'Issue' and ll.label_id in (${labelIds}) and ${issueVisible}
      union all
      select ll.label_id, 0, 0, 1
      from label_links ll join merge_requests mr on mr.id = ll.target_id join projects p on p.id = mr.target_project_id
      where ll.target_type = 'MergeRequest' and ll.label_id in (${labelIds}) and mr.state = 'opened' and ${mergeRequestVisible}
    ) c
    group by c.label_id`.execute(db)
  return new Map(rows.map((row) => [Number(row.label_id), {
    openIssues: Number(row.open_issues),
    closedIssues: Number(row.closed_issues),
    openMergeRequests: Number(row.open_merge_requests),
  }]))
}

async function subscribedLabelIds(db: Db, userId: number, projectId: number | null, ids: readonly number[]): Promise<Set<number>> {
  const rows = await db.selectFrom('subscriptions').select('subscribable_id')
    .where('user_id', '=', userId).where('subscribable_type', '=', 'Label').where('subscribable_id', 'in', [...ids])
    .where('project_id', projectId === null ? 'is' : '=', projectId).where('subscribed', '=', 1)
    .execute()
  return new Set(rows.map((row) => row.subscribable_id))
}
