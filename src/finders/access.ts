// Who may see and do what, computed in SQL so that lists filter, count and page correctly.
//
// A user's access to a project is the highest of
//   - a direct membership of the project,
//   - a membership of the project's group or any ancestor group (inherited),
//   - a membership of a group the project is shared with, capped at the share's group_access
//     (the shared-with group's own ancestors count, as they are members of it by inheritance).
// Expired memberships and shares (expires_at on or before today) grant nothing.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import { today } from '../db/values.js'
import { readCacheOf } from '../db/read-cache.js'
import { isPostgres } from '../db/dialect.js'
import { INTERNAL, PUBLIC, REPORTER } from '../policies/access-levels.js'
import type { Actor } from '../auth/actor.js'

const notExpired = (column: RawBuilder<unknown>, date: string) => sql`(${column} is null or ${column} > ${date})`

/**
 * `member_groups(namespace_id, access_level)`: every group the user belongs to, directly or as a
 * descendant of a group they belong to, with the level inherited from that membership.
 */
function memberGroupsCte(userId: number, date: string) {
  return sql`member_groups(namespace_id, access_level) as (
    select m.source_id, m.access_level from members m
      where m.user_id = ${userId} and m.source_type = 'group' and ${notExpired(sql.ref('m.expires_at'), date)}
    union all
    select n.id, mg.access_level from namespaces n join member_groups mg on n.parent_id = mg.namespace_id
  )`
}

/**
 * `(project_id, kind, access_level)` rows of every grant the user holds, kind being 'project'
 * (direct), 'group' (the project's group hierarchy) or 'share'. With projectIds, only those projects.
 * The cross joins start from the user's few groups (SQLite keeps that order; PostgreSQL plans its
 * own): scanning every project to probe the groups is what a planner picks otherwise.
 */
function grantsQuery(userId: number, projectIds: readonly number[] | null, date: string) {
  const only = (column: string) =>
    projectIds === null ? sql`` : sql` and ${sql.ref(column)} in (${sql.join(projectIds.length ? projectIds : [-1])})`
  return sql`with recursive ${memberGroupsCte(userId, date)}
    select m.source_id as project_id, 'project' as kind, m.access_level as access_level from members m
      where m.user_id = ${userId} and m.source_type = 'project'
        and ${notExpired(sql.ref('m.expires_at'), date)}${only('m.source_id')}
    union all
    select p.id, 'group', mg.access_level from member_groups mg cross join projects p
      where p.namespace_id = mg.namespace_id${only('p.id')}
    union all
    select l.project_id, 'share',
        case when l.group_access < mg.access_level then l.group_access else mg.access_level end
      from member_groups mg cross join project_group_links l
      where l.group_id = mg.namespace_id and ${notExpired(sql.ref('l.expires_at'), date)}${only('l.project_id')}`
}

export interface ProjectAccess {
  /** Direct membership of the project (`permissions.project_access`). */
  projectAccess: number | null
  /** Membership of the project's group or an ancestor (`permissions.group_access`). */
  groupAccess: number | null
  /** The effective level: the highest grant of any kind, 0 for none. */
  level: number
}

export const NO_PROJECT_ACCESS: ProjectAccess = { projectAccess: null, groupAccess: null, level: 0 }

/** Beyond this many grants a user's grants are not kept in memory; SQL subqueries serve instead. */
const KEPT_GRANTS_LIMIT = 5_000

/**
 * Every grant the user holds, project id → access, through the read cache (signed-in requests ask
 * on every project read and list); null for a user with more than KEPT_GRANTS_LIMIT of them.
 */
async function userGrants(db: Db, userId: number): Promise<ReadonlyMap<number, ProjectAccess> | null> {
  const load = async () => {
    const grants = await queryProjectAccess(db, userId, null, KEPT_GRANTS_LIMIT + 1)
    return grants.size > KEPT_GRANTS_LIMIT ? null : grants
  }
  const cache = readCacheOf<ReadonlyMap<number, ProjectAccess> | null>(db, 'user-grants', {
    // Weighed by grants, so a few users holding thousands cannot crowd memory.
    tables: ['members', 'project_group_links', 'namespaces', 'projects'], maxWeight: 500_000, weigh: (grants) => 1 + (grants?.size ?? 0),
  })
  return cache === null ? load() : cache.get(String(userId), load)
}

/** The user's access to each of the given projects that they hold a grant on. */
export async function projectAccessFor(
  db: Db, userId: number, projectIds: readonly number[],
): Promise<Map<number, ProjectAccess>> {
  const grants = await userGrants(db, userId)
  if (grants === null) return queryProjectAccess(db, userId, projectIds)
  const result = new Map<number, ProjectAccess>()
  for (const id of projectIds) {
    const access = grants.get(id)
    if (access !== undefined) result.set(id, access)
  }
  return result
}

/** The grants, for the given projects or (projectIds null) all of them, reading at most `limit` rows. */
async function queryProjectAccess(
  db: Db, userId: number, projectIds: readonly number[] | null, limit?: number,
): Promise<Map<number, ProjectAccess>> {
  const result = new Map<number, ProjectAccess>()
  if (projectIds !== null && projectIds.length === 0) return result
  const query = grantsQuery(userId, projectIds, today())
  const { rows } = await (limit === undefined ? query : sql`select * from (${query}) g limit ${limit * 3}`)
    .$castTo<{ project_id: number; kind: 'project' | 'group' | 'share'; access_level: number }>()
    .execute(db)
  for (const row of rows) {
    const access = result.get(row.project_id) ?? { projectAccess: null, groupAccess: null, level: 0 }
    if (row.kind === 'project') access.projectAccess = Math.max(access.projectAccess ?? 0, row.access_level)
    if (row.kind === 'group') access.groupAccess = Math.max(access.groupAccess ?? 0, row.access_level)
    access.level = Math.max(access.level, row.access_level)
    result.set(row.project_id, access)
  }
  return result
}

/**
 * The condition "`column` is a project the user holds a grant on, at minLevel or above": the ids as
 * one parameter when the user's grants are kept in memory, else a subquery computing them.
 */
export async function grantedProject(db: Db, userId: number, column: string, minLevel = 0): Promise<Expression<SqlBool>> {
  const grants = await userGrants(db, userId)
  if (grants === null) {
    return sql<SqlBool>`${sql.ref(column)} in (select g.project_id from (${grantsQuery(userId, null, today())}) g
      where g.access_level >= ${minLevel})`
  }
  const ids = [...grants].flatMap(([id, access]) => (access.level >= minLevel ? [id] : []))
  return idIn(db, column, ids)
}

/** `column in (ids)` with the ids as a single parameter, so the statement's text never varies. */
function idIn(db: Db, column: string, ids: readonly number[]): Expression<SqlBool> {
  if (ids.length === 0) return sql<SqlBool>`1 = 0`
  return isPostgres(db)
    ? sql<SqlBool>`${sql.ref(column)} = any(cast(${[...ids]} as integer[]))`
    : sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(ids)}))`
}

/**
 * The condition "this project row is visible to the actor", for `where`. Admins see everything;
 * anonymous callers public projects; external users public projects and their own; everyone else
 * also internal ones.
 */
export async function projectVisibleTo(db: Db, actor: Actor | null, projects = 'projects'): Promise<Expression<SqlBool>> {
  const level = sql.ref(`${projects}.visibility_level`)
  if (actor === null) return sql<SqlBool>`${level} = ${PUBLIC}`
  if (actor.user.admin) return sql<SqlBool>`1 = 1`
  const openLevel = actor.user.external ? PUBLIC : INTERNAL
  return sql<SqlBool>`(${level} >= ${openLevel} or ${await grantedProject(db, actor.user.id, `${projects}.id`)})`
}

/**
 * The condition "the actor may read this project row's repository" (the policy's download_code), for
 * `where`: public projects to everyone, internal ones to signed-in users who are not external, and
 * otherwise Reporters and up, so a Guest of a private project (or an external Guest of an internal
 * one) sees the project but not its code, nor what is part of it (merge requests, pushes).
 */
export async function codeReadableBy(db: Db, actor: Actor | null, projects = 'projects'): Promise<Expression<SqlBool>> {
  const level = sql.ref(`${projects}.visibility_level`)
  if (actor === null) return sql<SqlBool>`${level} = ${PUBLIC}`
  if (actor.user.admin) return sql<SqlBool>`1 = 1`
  const openLevel = actor.user.external ? PUBLIC : INTERNAL
  return sql<SqlBool>`(${level} >= ${openLevel} or ${await grantedProject(db, actor.user.id, `${projects}.id`, REPORTER)})`
}

/**
 * Ids of the groups related to the user by membership: the groups they belong to and their
 * descendants, plus every ancestor of those groups and of the groups of projects they belong to.
 * These are the groups a user's default group list shows, and the non-public groups they may see.
 */
export function relatedGroupIds(userId: number): RawBuilder<number> {
  const date = today()
  return sql<number>`(with recursive
    direct_groups(id) as (
      select m.source_id from members m
        where m.user_id = ${userId} and m.source_type = 'group' and ${notExpired(sql.ref('m.expires_at'), date)}
    ),
    down(id) as (
      select id from direct_groups
      union select n.id from namespaces n join down on n.parent_id = down.id
    ),
    up(id) as (
      select id from direct_groups
      union select p.namespace_id from members m join projects p on p.id = m.source_id
        where m.user_id = ${userId} and m.source_type = 'project' and ${notExpired(sql.ref('m.expires_at'), date)}
      union select n.parent_id from namespaces n join up on n.id = up.id where n.parent_id is not null
    )
    select id from down union select id from up)`
}

/** The condition "this group (namespaces row) is visible to the actor", for `where`. */
export function groupVisibleTo(actor: Actor | null, namespaces = 'namespaces'): Expression<SqlBool> {
  const level = sql.ref(`${namespaces}.visibility_level`)
  const id = sql.ref(`${namespaces}.id`)
  if (actor === null) return sql<SqlBool>`${level} = ${PUBLIC}`
  if (actor.user.admin) return sql<SqlBool>`1 = 1`
  const openLevel = actor.user.external ? PUBLIC : INTERNAL
  return sql<SqlBool>`(${level} >= ${openLevel} or ${id} in ${relatedGroupIds(actor.user.id)})`
}

/** The user's highest membership of the group or any of its ancestors; 0 for none. */
export async function groupAccessFor(db: Db, userId: number, groupId: number): Promise<number> {
  const { rows } = await sql<{ level: number | null }>`with recursive chain(id) as (
      select cast(${groupId} as integer)
      union all select n.parent_id from namespaces n join chain on n.id = chain.id where n.parent_id is not null
    )
    select max(m.access_level) as level from members m join chain on m.source_id = chain.id
    where m.source_type = 'group' and m.user_id = ${userId} and ${notExpired(sql.ref('m.expires_at'), today())}`
    .execute(db)
  return rows[0]?.level ?? 0
}
