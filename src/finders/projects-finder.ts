// The project lists (GET /projects, GET /users/:user_id/projects, GET /groups/:id/projects): which
// projects a scope holds, what the caller may see of them and every filter, all in SQL so that
// X-Total and the pages are exact. Precedence as the original's ProjectsFinder: `owned` replaces
// `membership` and `min_access_level`; anonymous callers get no owned/membership/min_access_level
// projects and `starred` is ignored for them.
import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import type { Database, ProjectGroupLinkRow, ProjectRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import type { Actor } from '../auth/actor.js'
import { INTERNAL, OWNER, PUBLIC, visibilityLevel, type Visibility } from '../policies/access-levels.js'
import { grantedProject, projectVisibleTo } from './access.js'
import { counterValue } from './counters.js'
import { hasCustomAttributes } from './custom-attributes.js'
import { matchesSearch, textOrder } from './text-search.js'

export const PROJECT_ORDERS = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const
export type ProjectOrder = typeof PROJECT_ORDERS[number]
const TEXT_ORDERS: readonly ProjectOrder[] = ['name', 'path']

/** Which projects a list starts from, before visibility and filters. */
export type ProjectScope =
  | { kind: 'all' }
  /** The projects of a user's personal namespace. */
  | { kind: 'personal'; userId: number }
  /** A group's own projects and the projects shared with it. */
  | { kind: 'group'; groupId: number }
  /** The forks of a project (GET /projects/:id/forks). */
  | { kind: 'forks'; projectId: number }

export interface ProjectFilters {
  /** true: archived only; false: not archived; undefined: both. */
  archived?: boolean
  visibility?: Visibility
  /** Words found in the name, path or description (see bySearch). */
  search?: string
  owned?: boolean
  membership?: boolean
  starred?: boolean
  minAccessLevel?: number
  withIssuesEnabled?: boolean
  withMergeRequestsEnabled?: boolean
  /** `custom_attributes[key]=value`; applied for admins only. */
  customAttributes?: Record<string, string>
  /** wiki_checksum_failed / repository_checksum_failed: Ingot computes no checksums, so none failed. */
  checksumFailed?: boolean
  orderBy: ProjectOrder
  sort: 'asc' | 'desc'
}

export type ProjectsQuery = SelectQueryBuilder<Database, 'projects', ProjectRow>

const NOTHING = sql<SqlBool>`1 = 0`

const SEARCHED_COLUMNS = [sql`projects.name`, sql`projects.path`, sql`coalesce(projects.description, '')`]

/** The original's fuzzy search over name, path and description (see text-search.ts). */
function bySearch(query: string): Expression<SqlBool> | null {
  const columnMatches = SEARCHED_COLUMNS.flatMap((column) => matchesSearch(column, query) ?? [])
  if (columnMatches.length === 0) return null
  return sql<SqlBool>`(${sql.join(columnMatches, sql` or `)})`
}

function inScope(scope: ProjectScope): Expression<SqlBool> | null {
  switch (scope.kind) {
    case 'all': return null
    case 'personal': return sql<SqlBool>`projects.namespace_id in
      (select n.id from namespaces n where n.kind = 'user' and n.owner_id = ${scope.userId})`
    case 'group': return sql<SqlBool>`(projects.namespace_id = ${scope.groupId} or projects.id in
      (select l.project_id from project_group_links l where l.group_id = ${scope.groupId}))`
    case 'forks': return sql<SqlBool>`projects.forked_from_project_id = ${scope.projectId}`
  }
}

/** Projects in the user's personal namespace, or where a group grants them Owner. */
async function ownedBy(db: Db, userId: number): Promise<Expression<SqlBool>> {
  return sql<SqlBool>`(projects.namespace_id in
      (select n.id from namespaces n where n.kind = 'user' and n.owner_id = ${userId})
    or ${await grantedProject(db, userId, 'projects.id', OWNER)})`
}

/** The membership conditions: owned, else min_access_level / membership; none for anonymous callers. */
async function byMembership(db: Db, actor: Actor | null, f: ProjectFilters): Promise<Expression<SqlBool> | null> {
  const wanted = f.owned === true || f.membership === true || f.minAccessLevel !== undefined
  if (!wanted) return null
  if (actor === null) return NOTHING
  const userId = actor.user.id
  if (f.owned === true) return ownedBy(db, userId)
  return grantedProject(db, userId, 'projects.id', f.minAccessLevel ?? 0)
}

export async function findProjects(db: Db, actor: Actor | null, scope: ProjectScope, f: ProjectFilters): Promise<ProjectsQuery> {
  const conditions: Expression<SqlBool>[] = [await projectVisibleTo(db, actor)]
  const add = (condition: Expression<SqlBool> | null) => { if (condition !== null) conditions.push(condition) }
  add(inScope(scope))
  add(await byMembership(db, actor, f))
  if (f.starred === true && actor !== null) {
    add(sql<SqlBool>`projects.id in (select s.project_id from stars s where s.user_id = ${actor.user.id})`)
  }
  if (f.archived !== undefined) add(sql<SqlBool>`projects.archived = ${f.archived ? 1 : 0}`)
  if (f.visibility !== undefined) add(sql<SqlBool>`projects.visibility_level = ${visibilityLevel(f.visibility)}`)
  if (f.search !== undefined) add(bySearch(f.search))
  if (f.withIssuesEnabled === true) add(sql<SqlBool>`projects.issues_enabled = 1`)
  if (f.withMergeRequestsEnabled === true) add(sql<SqlBool>`projects.merge_requests_enabled = 1`)
  if (actor?.user.admin === 1) add(hasCustomAttributes('project', 'projects.id', f.customAttributes))
  if (f.checksumFailed === true) add(NOTHING)

  return db.selectFrom('projects').selectAll('projects')
    .where((eb) => eb.and(conditions))
    .orderBy(TEXT_ORDERS.includes(f.orderBy) ? textOrder(db, `projects.${f.orderBy}`) : `projects.${f.orderBy}`, f.sort)
    .orderBy('projects.id', f.sort)
}

/** The project's share with the group, if there is one. */
export async function findProjectShare(db: Db, projectId: number, groupId: number): Promise<ProjectGroupLinkRow | undefined> {
  if (!fitsIntegerColumn(groupId)) return undefined
  return db.selectFrom('project_group_links').selectAll()
    .where('project_id', '=', projectId).where('group_id', '=', groupId).executeTakeFirst()
}

/**
 * The total of an unfiltered GET /projects from the maintained per-visibility counts, plus the
 * caller's few grants on projects they could not otherwise see; undefined when a scope or filter
 * narrows the list (its total is then counted from the list's own query).
 */
export function maintainedProjectTotal(db: Db, actor: Actor | null, scope: ProjectScope, f: ProjectFilters): (() => Promise<number>) | undefined {
  const narrowed = scope.kind !== 'all' || f.archived !== undefined || f.visibility !== undefined || f.search !== undefined ||
    f.owned === true || f.membership === true || f.starred === true || f.minAccessLevel !== undefined ||
    f.withIssuesEnabled === true || f.withMergeRequestsEnabled === true || f.checksumFailed === true ||
    (actor?.user.admin === 1 && Object.keys(f.customAttributes ?? {}).length > 0)
  if (narrowed) return undefined
  return async () => {
    const [privateCount, internalCount, publicCount] = await Promise.all([
      counterValue(db, 'projects.visibility.0'), counterValue(db, 'projects.visibility.10'), counterValue(db, 'projects.visibility.20'),
    ])
    if (actor === null) return publicCount
    if (actor.user.admin === 1) return privateCount + internalCount + publicCount
    const openLevel = actor.user.external ? PUBLIC : INTERNAL
    const { count } = await db.selectFrom('projects').select((eb) => eb.fn.countAll<number>().as('count'))
      .where('visibility_level', '<', openLevel)
      .where(await grantedProject(db, actor.user.id, 'projects.id'))
      .executeTakeFirstOrThrow()
    return publicCount + (actor.user.external ? 0 : internalCount) + Number(count)
  }
}

/** Whether the user has starred the project. */
export async function hasStarred(db: Db, userId: number, projectId: number): Promise<boolean> {
  const row = await db.selectFrom('stars').select('project_id').where('user_id', '=', userId).where('project_id', '=', projectId).executeTakeFirst()
  return row !== undefined
}
