// Namespaces (GET /namespaces, GET /namespaces/:id): admins see every namespace, everyone else their
// personal namespace and the groups they are a direct member of; `search` is the original's word
// search (text-search.ts) in the name or the path. Also counts the members of a group and its
// descendants for the groups the caller administers.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import type { NamespaceRow } from '../db/schema.js'
import { fitsIntegerColumn, today } from '../db/values.js'
import type { Actor } from '../auth/actor.js'
import { MAINTAINER, OWNER } from '../policies/access-levels.js'
import type { NamespaceView } from '../entities/namespace.js'
import { groupIdsWithMinAccess } from './groups-finder.js'
import { matchesSearchInAny } from './text-search.js'

const NUMERIC_ID = /^\d+$/

function namespacesOf(actor: Actor): Expression<SqlBool> {
  if (actor.user.admin) return sql<SqlBool>`1 = 1`
  const userId = actor.user.id
  return sql<SqlBool>`((namespaces.kind = 'user' and namespaces.owner_id = ${userId})
    or (namespaces.kind = 'group' and namespaces.id in (select m.source_id from members m
      where m.user_id = ${userId} and m.source_type = 'group' and (m.expires_at is null or m.expires_at > ${today()}))))`
}

export function findNamespaces(db: Db, actor: Actor, filters: { search?: string }) {
  const search = filters.search === undefined ? null : matchesSearchInAny(['namespaces.name', 'namespaces.path'], filters.search)
  return db.selectFrom('namespaces').selectAll('namespaces')
    .where(namespacesOf(actor))
    .$if(search !== null, (q) => q.where(search!))
    .orderBy('namespaces.id', 'asc')
}

/** A namespace by id or full path, undefined when missing or not one the caller may list. */
export async function findNamespace(db: Db, actor: Actor, idOrPath: string): Promise<NamespaceRow | undefined> {
  if (NUMERIC_ID.test(idOrPath) && !fitsIntegerColumn(Number(idOrPath))) return undefined
  return db.selectFrom('namespaces').selectAll('namespaces')
    .where(NUMERIC_ID.test(idOrPath) ? 'namespaces.id' : 'namespaces.full_path_lower', '=',
      NUMERIC_ID.test(idOrPath) ? Number(idOrPath) : idOrPath.toLowerCase())
    .where(namespacesOf(actor))
    .executeTakeFirst()
}

/** How many namespaces a choice of where to create a project offers at most. */
const CREATION_NAMESPACES_LIMIT = 500

/**
 * The namespaces a user may create projects in (or move a project to), by full path: their own,
 * and the groups where they are Maintainer or more, with those groups' subgroups; every group for
 * admins. services/projects/create-project.ts mayCreateProjectsIn decides again on the one chosen.
 */
export function findProjectCreationNamespaces(db: Db, actor: Actor): Promise<NamespaceRow[]> {
  const userId = actor.user.id
  const groups = actor.user.admin ? sql<SqlBool>`namespaces.kind = 'group'`
    : sql<SqlBool>`namespaces.kind = 'group' and namespaces.id in ${groupIdsWithMinAccess(userId, MAINTAINER)}`
  return db.selectFrom('namespaces').selectAll('namespaces')
    .where(sql<SqlBool>`((namespaces.kind = 'user' and namespaces.owner_id = ${userId}) or (${groups}))`)
    .orderBy('namespaces.kind', 'desc').orderBy('namespaces.full_path_lower').limit(CREATION_NAMESPACES_LIMIT)
    .execute()
}

/** Distinct active members of each group and its descendants. */
async function membersCountWithDescendants(db: Db, groupIds: readonly number[]): Promise<Map<number, number>> {
  const { rows } = await sql<{ root_id: number; count: number }>`with recursive tree(root_id, id) as (
      select n.id, n.id from namespaces n where n.id in (${sql.join(groupIds)})
      union all select tree.root_id, n.id from namespaces n join tree on n.parent_id = tree.id
    )
    select tree.root_id as root_id, count(distinct m.user_id) as count from tree
      join members m on m.source_type = 'group' and m.source_id = tree.id
    where m.expires_at is null or m.expires_at > ${today()}
    group by tree.root_id`.execute(db)
  const counts = new Map<number, number>(groupIds.map((id) => [id, 0]))
  for (const row of rows) counts.set(row.root_id, Number(row.count))
  return counts
}

export async function loadNamespaceViews(db: Db, actor: Actor, namespaces: readonly NamespaceRow[]): Promise<NamespaceView[]> {
  const groupIds = namespaces.filter((n) => n.kind === 'group').map((n) => n.id)
  let administered: number[] = []
  if (groupIds.length > 0) {
    administered = actor.user.admin
      ? groupIds
      : (await db.selectFrom('namespaces').select('id').where('id', 'in', groupIds)
        .where(sql<SqlBool>`id in ${groupIdsWithMinAccess(actor.user.id, OWNER)}`).execute()).map((r) => r.id)
  }
  const counts = administered.length > 0 ? await membersCountWithDescendants(db, administered) : new Map<number, number>()
  return namespaces.map((namespace) => ({ namespace, membersCountWithDescendants: counts.get(namespace.id) ?? null }))
}

export async function loadNamespaceView(db: Db, actor: Actor, namespace: NamespaceRow): Promise<NamespaceView> {
  const [view] = await loadNamespaceViews(db, actor, [namespace])
  if (view === undefined) throw new Error('unreachable: one namespace in, one view out')
  return view
}

/** Whether a full path names a user's namespace or a group (visible or not: the page decides); null for neither. */
export async function namespaceKindAt(db: Db, fullPath: string): Promise<NamespaceRow['kind'] | null> {
  const row = await db.selectFrom('namespaces').select('kind').where('full_path_lower', '=', fullPath.toLowerCase()).executeTakeFirst()
  return row?.kind ?? null
}
