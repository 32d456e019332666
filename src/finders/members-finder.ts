// Members of a project or group (spec: Members), memberships in force only (expired ones grant
// nothing and are not listed):
//   direct     the source's own memberships (GET …/members, …/members/:user_id)
//   inherited  one row per membership of every source the access comes from, with that source
//              (GET …/members/all, the web's members pages):
//              a group and its ancestors; a project, its group and that group's ancestors, and the
//              groups it is shared with and their ancestors, capped at the share's group_access.
// `query` is the original's word search (text-search.ts) in the name or the username. Pages are
// ordered by membership id.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import type { MemberRow, MemberSource, UserRow } from '../db/schema.js'
import { fitsIntegerColumn, today } from '../db/values.js'
import type { MemberView } from '../entities/member.js'
import { OWNER } from '../policies/access-levels.js'
import type { MemberSourceRef } from '../services/members/member-rules.js'
import { matchesSearchInAny } from './text-search.js'

export interface MemberFilters {
  query?: string
}

type MemberListRow = UserRow & { member_id: number; member_access_level: number; member_expires_at: string | null }

interface InheritedSource {
  source_type: string
  source_id: number
  /** The highest level a membership of this source grants here. */
  cap: number
}

const activeMembership = (members: string): Expression<SqlBool> => {
  const expiresAt = sql.ref(`${members}.expires_at`)
  return sql<SqlBool>`(${expiresAt} is null or ${expiresAt} > ${today()})`
}

function membersOf(db: Db, filters: MemberFilters) {
  const search = filters.query === undefined ? null : matchesSearchInAny(['users.name', 'users.username'], filters.query)
  return db.selectFrom('members as m')
    .innerJoin('users', 'users.id', 'm.user_id')
    .selectAll('users')
    .select(['m.id as member_id', 'm.expires_at as member_expires_at'])
    .where(activeMembership('m'))
    .$if(search !== null, (q) => q.where(search!))
    .orderBy('m.id')
}

export function findDirectMembers(db: Db, source: MemberSourceRef, filters: MemberFilters = {}) {
  return membersOf(db, filters)
    .select('m.access_level as member_access_level')
    .where('m.source_type', '=', source.type)
    .where('m.source_id', '=', source.id)
    .$castTo<MemberListRow>()
}

/**
 * `(source_type, source_id, cap)` of every source whose members reach this one. A group reached
 * both through the hierarchy and through a share keeps its widest cap.
 */
function inheritedSources(source: MemberSourceRef) {
  const uncapped = sql.lit(OWNER)
  const date = today()
  const seeds = source.type === 'group'
    ? sql`select n.id, ${uncapped} from namespaces n where n.id = ${source.id}`
    : sql`select n.id, ${uncapped} from projects p join namespaces n on n.id = p.namespace_id
          where p.id = ${source.id} and n.kind = 'group'
        union all
        select l.group_id, l.group_access from project_group_links l
          where l.project_id = ${source.id} and (l.expires_at is null or l.expires_at > ${date})`
  const project = source.type === 'project'
    ? sql`select 'project' as source_type, cast(${source.id} as integer) as source_id, ${uncapped} as cap union all `
    : sql``
  return sql<InheritedSource>`(with recursive chain(id, cap) as (
      ${seeds}
      union all
      select n.parent_id, chain.cap from namespaces n join chain on n.id = chain.id where n.parent_id is not null
    )
    ${project}select 'group' as source_type, id as source_id, max(cap) as cap from chain group by id)`.as('s')
}

export function findAllMembers(db: Db, source: MemberSourceRef, filters: MemberFilters = {}) {
  return membersOf(db, filters)
    .innerJoin(inheritedSources(source), (join) => join.onRef('s.source_type', '=', 'm.source_type').onRef('s.source_id', '=', 'm.source_id'))
    .select(sql<number>`case when s.cap < m.access_level then s.cap else m.access_level end`.as('member_access_level'))
    .select(['m.source_type as member_source_type', 'm.source_id as member_source_id'])
    .$castTo<MemberListRow & { member_source_type: MemberSource; member_source_id: number }>()
}

/** The user's direct membership in force, if any. */
export async function findDirectMember(db: Db, source: MemberSourceRef, userId: number): Promise<MemberRow | undefined> {
  if (!fitsIntegerColumn(userId)) return undefined
  return db.selectFrom('members as m').selectAll('m')
    .where('m.source_type', '=', source.type).where('m.source_id', '=', source.id).where('m.user_id', '=', userId)
    .where(activeMembership('m'))
    .executeTakeFirst()
}

/** The direct membership in force with this id (a web form's `…_members/:id`), if the source has it. */
export async function findDirectMemberById(db: Db, source: MemberSourceRef, memberId: number): Promise<MemberRow | undefined> {
  if (!fitsIntegerColumn(memberId)) return undefined
  return db.selectFrom('members as m').selectAll('m')
    .where('m.source_type', '=', source.type).where('m.source_id', '=', source.id).where('m.id', '=', memberId)
    .where(activeMembership('m'))
    .executeTakeFirst()
}

export function toMemberView(row: MemberListRow): MemberView {
  return { user: row, accessLevel: row.member_access_level, expiresAt: row.member_expires_at }
}

export function memberViewOf(member: MemberRow, user: UserRow): MemberView {
  return { user, accessLevel: member.access_level, expiresAt: member.expires_at }
}

export async function loadMemberView(db: Db, member: MemberRow): Promise<MemberView> {
  const user = await db.selectFrom('users').selectAll().where('id', '=', member.user_id).executeTakeFirstOrThrow()
  return memberViewOf(member, user)
}
