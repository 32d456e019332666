// CI runners as the original 11.5's runner API lists them: every runner (admins), the caller's
// (ci_owned_runners: runners of projects they maintain and of groups they own or maintain) or a
// project's (its own, its groups' and the instance's), narrowed by the original's scopes (types and
// statuses), and what a page of them shows: their projects and groups, each loaded once per page.
import { sql, type Expression, type SqlBool } from 'kysely'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import type { Db } from '../db/index.js'
import { isPostgres } from '../db/dialect.js'
import { fitsIntegerColumn, today } from '../db/values.js'
import type { CiBuildRow, CiRunnerRow, CiRunnerType, CiStatus, NamespaceRow, ProjectRow } from '../db/schema.js'
import { MAINTAINER } from '../policies/access-levels.js'
import { grantedProject } from './access.js'
import { matchesSearch } from './text-search.js'

/** A runner is online when it asked for a job within the last hour (the original's ONLINE_CONTACT_TIMEOUT). */
export const RUNNER_ONLINE_WINDOW_MS = 60 * 60 * 1000

export const RUNNER_TYPES: readonly CiRunnerType[] = ['instance_type', 'group_type', 'project_type']
export const RUNNER_STATUSES = ['active', 'paused', 'online', 'offline'] as const
/** `specific` and `shared`: the types' names before runners had types. */
export const LEGACY_RUNNER_TYPES = ['specific', 'shared'] as const
export const RUNNER_SCOPES = [...LEGACY_RUNNER_TYPES, ...RUNNER_TYPES, ...RUNNER_STATUSES] as const
export type RunnerScope = typeof RUNNER_SCOPES[number]

/** The statuses a runner's jobs are listed by (the original's Ci::Build::AVAILABLE_STATUSES). */
export const RUNNER_JOB_STATUSES = ['running', 'success', 'failed', 'canceled'] as const satisfies readonly CiStatus[]

/** Which runners a list starts from. */
export type RunnerSet =
  | { kind: 'all' }
  | { kind: 'owned'; userId: number }
  | { kind: 'project'; project: Pick<ProjectRow, 'id' | 'namespace_id'> }
  /** The user's runners they may enable on the project (the original's assignable_for): project runners, unlocked, not on it yet. */
  | { kind: 'assignable'; userId: number; projectId: number }

export interface RunnerFilters {
  /** Scopes every listed runner is in (the `scope`, `type` and `status` parameters). */
  scopes: readonly RunnerScope[]
  /** Tags every listed runner has. */
  tags: readonly string[]
  /** The admin area's search: the original's fuzzy search in the description (the token is kept as a digest). */
  search?: string
}

function onlineSince(now: number): number {
  return now - RUNNER_ONLINE_WINDOW_MS
}

function scopeCondition(scope: RunnerScope, now: number): Expression<SqlBool> {
  switch (scope) {
    case 'shared': return sql<SqlBool>`ci_runners.runner_type = 'instance_type'`
    case 'specific': return sql<SqlBool>`ci_runners.runner_type in ('group_type', 'project_type')`
    case 'instance_type':
    case 'group_type':
    case 'project_type': return sql<SqlBool>`ci_runners.runner_type = ${scope}`
    case 'active': return sql<SqlBool>`ci_runners.active = 1`
    case 'paused': return sql<SqlBool>`ci_runners.active = 0`
    case 'online': return sql<SqlBool>`ci_runners.contacted_at > ${onlineSince(now)}`
    // Never contacted counts as offline, as the original's `where.not(id: online)`.
    case 'offline': return sql<SqlBool>`(ci_runners.contacted_at is null or ci_runners.contacted_at <= ${onlineSince(now)})`
  }
}

function hasTag(db: Db, tag: string): Expression<SqlBool> {
  return isPostgres(db)
    ? sql<SqlBool>`cast(ci_runners.tag_list as jsonb) @> cast(${JSON.stringify([tag])} as jsonb)`
    : sql<SqlBool>`exists (select 1 from json_each(ci_runners.tag_list) where value = ${tag})`
}

/** The original's owned_or_maintainers_groups: groups the user belongs to directly as Maintainer or Owner. */
function maintainedGroupIds(userId: number) {
  return sql<number>`(select m.source_id from members m where m.user_id = ${userId} and m.source_type = 'group'
    and m.access_level >= ${MAINTAINER} and (m.expires_at is null or m.expires_at > ${today()}))`
}

/** "This runner is one of the user's" (ci_owned_runners), for `where`. */
export async function ownedRunnerCondition(db: Db, userId: number): Promise<Expression<SqlBool>> {
  const maintained = await grantedProject(db, userId, 'rp.project_id', MAINTAINER)
  return sql<SqlBool>`(ci_runners.id in (select rp.runner_id from ci_runner_projects rp where ${maintained})
    or ci_runners.id in (select rn.runner_id from ci_runner_namespaces rn where rn.namespace_id in ${maintainedGroupIds(userId)}))`
}

/** The runners a project may use: its own, those of its group and the group's ancestors, and the instance's. */
function projectRunnerCondition(project: Pick<ProjectRow, 'id' | 'namespace_id'>): Expression<SqlBool> {
  return sql<SqlBool>`(ci_runners.runner_type = 'instance_type'
    or ci_runners.id in (select rp.runner_id from ci_runner_projects rp where rp.project_id = ${project.id})
    or ci_runners.id in (select rn.runner_id from ci_runner_namespaces rn where rn.namespace_id in (
      with recursive chain(id) as (
        select cast(${project.namespace_id} as integer)
        union all select n.parent_id from namespaces n join chain on n.id = chain.id where n.parent_id is not null
      ) select id from chain)))`
}

/** A page of runners, oldest first (the original pages them in id order). */
export async function findRunnerPage(
  db: Db, set: RunnerSet, filters: RunnerFilters, pagination: PaginationQuery, now = Date.now(),
): Promise<Page<CiRunnerRow>> {
  let query = db.selectFrom('ci_runners').selectAll()
  if (set.kind === 'owned') query = query.where(await ownedRunnerCondition(db, set.userId))
  if (set.kind === 'project') query = query.where(projectRunnerCondition(set.project))
  if (set.kind === 'assignable') {
    query = query.where(await ownedRunnerCondition(db, set.userId)).where('runner_type', '=', 'project_type').where('locked', '=', 0)
      .where('id', 'not in', db.selectFrom('ci_runner_projects').select('runner_id').where('project_id', '=', set.projectId))
  }
  for (const scope of filters.scopes) query = query.where(scopeCondition(scope, now))
  for (const tag of filters.tags) query = query.where(hasTag(db, tag))
  const search = matchesSearch('ci_runners.description', filters.search ?? '')
  if (search !== null) query = query.where(search)
  return paginate(db, query.orderBy('ci_runners.id', 'asc'), pagination)
}

export async function findRunner(db: Db, id: number): Promise<CiRunnerRow | null> {
  // Ids beyond the id column's range belong to no runner, and PostgreSQL refuses to compare them.
  if (!fitsIntegerColumn(id)) return null
  return await db.selectFrom('ci_runners').selectAll().where('id', '=', id).executeTakeFirst() ?? null
}

/** Whether the runner is one of the user's (the original's owned_runner condition of RunnerPolicy). */
export async function isOwnedRunner(db: Db, userId: number, runnerId: number): Promise<boolean> {
  const row = await db.selectFrom('ci_runners').select('id').where('id', '=', runnerId)
    .where(await ownedRunnerCondition(db, userId)).executeTakeFirst()
  return row !== undefined
}

/** How many projects the runner is assigned to. */
export async function runnerProjectCount(db: Db, runnerId: number): Promise<number> {
  const row = await db.selectFrom('ci_runner_projects').select((eb) => eb.fn.countAll<number>().as('count'))
    .where('runner_id', '=', runnerId).executeTakeFirstOrThrow()
  return Number(row.count)
}

export async function isRunnerOfProject(db: Db, runnerId: number, projectId: number): Promise<boolean> {
  if (!fitsIntegerColumn(runnerId)) return false
  const row = await db.selectFrom('ci_runner_projects').select('id')
    .where('runner_id', '=', runnerId).where('project_id', '=', projectId).executeTakeFirst()
  return row !== undefined
}

export interface RunnerAssignments {
  projects: Array<{ project: ProjectRow; namespace: NamespaceRow }>
  groups: NamespaceRow[]
}

/**
 * The projects and groups of some runners, two queries for all of them; with `visibleTo`, only
 * the projects and groups that user is a member of (what the original shows a non-admin).
 */
export async function loadRunnerAssignments(
  db: Db, runnerIds: readonly number[], visibleTo: number | null,
): Promise<Map<number, RunnerAssignments>> {
  const result = new Map<number, RunnerAssignments>(runnerIds.map((id) => [id, { projects: [], groups: [] }]))
  if (runnerIds.length === 0) return result
  let projectQuery = db.selectFrom('ci_runner_projects as rp')
    .innerJoin('projects', 'projects.id', 'rp.project_id')
    .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .selectAll('projects').select('rp.runner_id as assigned_runner_id')
    .where('rp.runner_id', 'in', runnerIds).orderBy('projects.id')
  if (visibleTo !== null) projectQuery = projectQuery.where(await grantedProject(db, visibleTo, 'projects.id'))
  const projectRows = await projectQuery.execute()
  const namespaceIds = [...new Set(projectRows.map((row) => row.namespace_id))]
  let groupQuery = db.selectFrom('ci_runner_namespaces as rn')
    .innerJoin('namespaces', 'namespaces.id', 'rn.namespace_id')
    .selectAll('namespaces').select('rn.runner_id as assigned_runner_id')
    .where('rn.runner_id', 'in', runnerIds).orderBy('namespaces.id')
  if (visibleTo !== null) {
    groupQuery = groupQuery.where(sql<SqlBool>`namespaces.id in (select m.source_id from members m
      where m.user_id = ${visibleTo} and m.source_type = 'group' and (m.expires_at is null or m.expires_at > ${today()}))`)
  }
  const [groupRows, projectNamespaces] = await Promise.all([
    groupQuery.execute(),
    namespaceIds.length === 0 ? [] : db.selectFrom('namespaces').selectAll().where('id', 'in', namespaceIds).execute(),
  ])
  const namespaces = new Map(projectNamespaces.map((namespace) => [namespace.id, namespace]))
  for (const { assigned_runner_id: runnerId, ...project } of projectRows) {
    result.get(runnerId)?.projects.push({ project, namespace: namespaces.get(project.namespace_id)! })
  }
  for (const { assigned_runner_id: runnerId, ...group } of groupRows) result.get(runnerId)?.groups.push(group)
  return result
}

/** The runners of some jobs, one query for all of them. */
export async function runnersById(db: Db, ids: readonly number[]): Promise<Map<number, CiRunnerRow>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('ci_runners').selectAll().where('id', 'in', [...new Set(ids)]).execute()
  return new Map(rows.map((row) => [row.id, row]))
}

/** A page of the jobs a runner took, in id order as the original's RunnerJobsFinder pages them. */
export function findRunnerJobPage(
  db: Db, runnerId: number, status: CiStatus | undefined, pagination: PaginationQuery,
): Promise<Page<CiBuildRow>> {
  let query = db.selectFrom('ci_builds').selectAll().where('runner_id', '=', runnerId).where('kind', '=', 'ci')
  if (status !== undefined) query = query.where('status', '=', status)
  return paginate(db, query.orderBy('id', 'asc'), pagination)
}
