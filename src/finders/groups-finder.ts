// Group lists (GET /groups, GET /groups/:id/subgroups) as 11.5's GroupsFinder builds them, and the
// batch loading behind the Group and GroupDetail entities.
//   owned            groups where the caller is a direct Owner member
//   min_access_level groups where the caller's direct membership is at least that level, and their descendants
//   all_available    every group the caller may see; otherwise (the default for non-admins) the groups
//                    related to the caller by membership. owned and min_access_level take precedence.
//   search, skip_groups, custom_attributes (admins), parent (subgroups); order_by name|path|id + sort
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import type { NamespaceRow } from '../db/schema.js'
import { fitsIntegerColumn, today } from '../db/values.js'
import type { Actor } from '../auth/actor.js'
import { OWNER } from '../policies/access-levels.js'
import type { CustomAttributeEntity } from '../entities/common.js'
import type { GroupDetailView, GroupStatisticsEntity, GroupView } from '../entities/group.js'
import { groupVisibleTo, projectVisibleTo, relatedGroupIds } from './access.js'
import { customAttributesOf, hasCustomAttributes } from './custom-attributes.js'
import { matchesSearchInAny, textOrder } from './text-search.js'
import { loadProjectViews } from './project-views.js'

export type GroupOrder = 'name' | 'path' | 'id'

export interface GroupFilters {
  /** Default: true for admins, false for everyone else (anonymous callers always get public groups). */
  allAvailable?: boolean
  owned?: boolean
  minAccessLevel?: number
  skipGroups?: readonly number[]
  search?: string
  orderBy: GroupOrder
  sort: 'asc' | 'desc'
  /** custom_attributes[key]=value; honoured for admins only. */
  customAttributes?: Record<string, string>
  /** Only the direct children of this group. */
  parentId?: number
}

/** At most this many projects (and as many shared projects) are embedded in a GroupDetail. */
export const GROUP_DETAIL_PROJECTS_LIMIT = 100

const activeMembership = (alias: string) =>
  sql<SqlBool>`(${sql.ref(`${alias}.expires_at`)} is null or ${sql.ref(`${alias}.expires_at`)} > ${today()})`

/** Ids of the groups where the user is a direct member at minLevel or above, and of their descendants. */
export function groupIdsWithMinAccess(userId: number, minLevel: number): RawBuilder<number> {
  return sql<number>`(with recursive granted(id) as (
      select m.source_id from members m
        where m.user_id = ${userId} and m.source_type = 'group' and m.access_level >= ${minLevel} and ${activeMembership('m')}
      union select n.id from namespaces n join granted on n.parent_id = granted.id
    ) select id from granted)`
}

/** Ids of the groups where the user is a direct Owner member. */
function ownedGroupIds(userId: number): RawBuilder<number> {
  return sql<number>`(select m.source_id from members m
    where m.user_id = ${userId} and m.source_type = 'group' and m.access_level >= ${OWNER} and ${activeMembership('m')})`
}

/** Which groups the list holds before the other filters narrow it. */
function groupScope(actor: Actor | null, f: GroupFilters): Expression<SqlBool> {
  const id = sql.ref('namespaces.id')
  if (f.owned) return actor === null ? sql<SqlBool>`1 = 0` : sql<SqlBool>`${id} in ${ownedGroupIds(actor.user.id)}`
  if (f.minAccessLevel !== undefined) {
    return actor === null ? sql<SqlBool>`1 = 0` : sql<SqlBool>`${id} in ${groupIdsWithMinAccess(actor.user.id, f.minAccessLevel)}`
  }
  const allAvailable = f.allAvailable ?? actor?.user.admin === 1
  if (actor === null || allAvailable) return groupVisibleTo(actor)
  return sql<SqlBool>`${id} in ${relatedGroupIds(actor.user.id)}`
}

const NUMERIC_ID = /^\d+$/

/** A group by numeric id or full path (in any case); null when there is none or the caller may not see it. */
export async function findVisibleGroup(db: Db, actor: Actor | null, idOrPath: string): Promise<NamespaceRow | null> {
  const byId = NUMERIC_ID.test(idOrPath)
  if (byId && !fitsIntegerColumn(Number(idOrPath))) return null
  const group = await db.selectFrom('namespaces').selectAll()
    .where('kind', '=', 'group')
    .where(byId ? 'id' : 'full_path_lower', '=', byId ? Number(idOrPath) : idOrPath.toLowerCase())
    .where(groupVisibleTo(actor))
    .executeTakeFirst()
  return group ?? null
}

export function findGroups(db: Db, actor: Actor | null, f: GroupFilters) {
  const attributes = actor?.user.admin ? hasCustomAttributes('group', 'namespaces.id', f.customAttributes) : null
  const search = f.search === undefined ? null : matchesSearchInAny(['namespaces.name', 'namespaces.path'], f.search)
  // Ids beyond the id column's range belong to no group, and PostgreSQL refuses to compare them.
  const skipGroups = f.skipGroups?.filter(fitsIntegerColumn) ?? []
  return db.selectFrom('namespaces').selectAll('namespaces')
    .where('namespaces.kind', '=', 'group')
    .where(groupScope(actor, f))
    .$if(f.parentId !== undefined, (q) => q.where('namespaces.parent_id', '=', f.parentId!))
    .$if(skipGroups.length > 0, (q) => q.where('namespaces.id', 'not in', skipGroups))
    .$if(search !== null, (q) => q.where(search!))
    .$if(attributes !== null, (q) => q.where(attributes!))
    .orderBy(f.orderBy === 'id' ? 'namespaces.id' : textOrder(db, `namespaces.${f.orderBy}`), f.sort)
    // 11.5 breaks ties by ascending id whatever the sort.
    .$if(f.orderBy !== 'id', (q) => q.orderBy('namespaces.id', 'asc'))
}

/** Sums of the statistics of each group's own projects; groups without projects sum to zero. */
async function groupStatistics(db: Db, groupIds: readonly number[]): Promise<Map<number, GroupStatisticsEntity>> {
  const rows = await db.selectFrom('projects as p').innerJoin('project_statistics as s', 's.project_id', 'p.id')
    .select((eb) => [
      'p.namespace_id',
      eb.fn.sum<number>('s.storage_size').as('storage_size'),
      eb.fn.sum<number>('s.repository_size').as('repository_size'),
      eb.fn.sum<number>('s.lfs_objects_size').as('lfs_objects_size'),
      eb.fn.sum<number>('s.job_artifacts_size').as('job_artifacts_size'),
    ])
    .where('p.namespace_id', 'in', groupIds)
    .groupBy('p.namespace_id')
    .execute()
  const result = new Map<number, GroupStatisticsEntity>()
  for (const id of groupIds) result.set(id, { storage_size: 0, repository_size: 0, lfs_objects_size: 0, job_artifacts_size: 0 })
  for (const row of rows) {
    result.set(row.namespace_id, {
      storage_size: Number(row.storage_size),
      repository_size: Number(row.repository_size),
      lfs_objects_size: Number(row.lfs_objects_size),
      job_artifacts_size: Number(row.job_artifacts_size),
    })
  }
  return result
}

export interface GroupViewOptions {
  /** statistics=true: honoured for admins only. */
  statistics?: boolean
  /** with_custom_attributes=true: honoured for admins only. */
  customAttributes?: boolean
}

export async function loadGroupViews(
  db: Db, actor: Actor | null, groups: readonly NamespaceRow[], options: GroupViewOptions = {},
): Promise<GroupView[]> {
  if (groups.length === 0) return []
  const admin = actor?.user.admin === 1
  const ids = groups.map((g) => g.id)
  const [statistics, attributes] = await Promise.all([
    admin && options.statistics ? groupStatistics(db, ids) : null,
    admin && options.customAttributes ? customAttributesOf(db, 'group', ids) : null,
  ])
  return groups.map((group) => ({
    group,
    statistics: statistics?.get(group.id) ?? null,
    customAttributes: attributes === null ? null : attributes.get(group.id) ?? ([] as CustomAttributeEntity[]),
  }))
}

export async function loadGroupView(db: Db, actor: Actor | null, group: NamespaceRow, options: GroupViewOptions = {}): Promise<GroupView> {
  const [view] = await loadGroupViews(db, actor, [group], options)
  if (view === undefined) throw new Error('unreachable: one group in, one view out')
  return view
}

export interface GroupDetailOptions {
  withProjects: boolean
  customAttributes?: boolean
}

/**
 * The group with its projects and the projects shared with it that the caller may see, newest
 * first, at most GROUP_DETAIL_PROJECTS_LIMIT of each (the full lists are paginated at
 * GET /groups/:id/projects).
 */
export async function loadGroupDetailView(
  db: Db, actor: Actor | null, group: NamespaceRow, options: GroupDetailOptions,
): Promise<GroupDetailView> {
  const view = await loadGroupView(db, actor, group, { customAttributes: options.customAttributes })
  if (!options.withProjects) return { ...view, projects: null, sharedProjects: null }
  const visible = await projectVisibleTo(db, actor)
  const [own, shared] = await Promise.all([
    db.selectFrom('projects').selectAll('projects')
      .where('projects.namespace_id', '=', group.id)
      .where(visible)
      .orderBy('projects.id', 'desc').limit(GROUP_DETAIL_PROJECTS_LIMIT).execute(),
    db.selectFrom('projects').innerJoin('project_group_links as l', 'l.project_id', 'projects.id').selectAll('projects')
      .where('l.group_id', '=', group.id)
      .where(activeMembership('l'))
      .where(visible)
      .orderBy('projects.id', 'desc').limit(GROUP_DETAIL_PROJECTS_LIMIT).execute(),
  ])
  const views = await loadProjectViews(db, actor, [...own, ...shared])
  return { ...view, projects: views.slice(0, own.length), sharedProjects: views.slice(own.length) }
}
