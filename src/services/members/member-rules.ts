// The rules every membership change obeys: which access levels a source takes, that an expiry date
// lies ahead, and the memberships nobody may change or end (as the original's member policies:
// the owner of a personal project, and the last Owner of a group).
import type { Db } from '../../db/index.js'
import { lockRow } from '../../db/locks.js'
import type { MemberRow, MemberSource } from '../../db/schema.js'
import { today } from '../../db/values.js'
import { GROUP_ACCESS_LEVELS, OWNER, PROJECT_ACCESS_LEVELS } from '../../policies/access-levels.js'

export interface MemberSourceRef {
  type: MemberSource
  id: number
}

export function accessLevelErrors(sourceType: MemberSource, accessLevel: number): string[] {
  const allowed: readonly number[] = sourceType === 'project' ? PROJECT_ACCESS_LEVELS : GROUP_ACCESS_LEVELS
  return allowed.includes(accessLevel) ? [] : ['is not included in the list']
}

/** A membership ends at the start of its expiry date, so the date must lie after today. */
export function expiryErrors(expiresAt: string | null | undefined, now: number = Date.now()): string[] {
  return expiresAt != null && expiresAt <= today(now) ? ['must be a date in the future'] : []
}

/** A membership still in force: no expiry date, or one after today. */
export function isActiveMembership(member: Pick<MemberRow, 'expires_at'>, now: number = Date.now()): boolean {
  return member.expires_at === null || member.expires_at > today(now)
}

export interface MembershipChange {
  accessLevel: number
  /** 'YYYY-MM-DD', null to remove it, undefined to keep it. */
  expiresAt?: string | null
}

/** Serializes changes to a group's memberships (the last Owner rule); a project's need no lock. */
export async function lockMembershipSource(trx: Db, source: MemberSourceRef): Promise<void> {
  if (source.type === 'group') await lockRow(trx, 'namespaces', source.id)
}

/**
 * Why this membership may not be changed that way or ended by anyone, or null. `change` is what an
 * update asks for; omitted for removal. A group's last Owner may stay Owner without an end date.
 */
export async function protectedMembershipReason(
  db: Db, source: MemberSourceRef, member: MemberRow, change?: MembershipChange,
): Promise<string | null> {
  if (source.type === 'project') {
    const personal = await db.selectFrom('projects').innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
      .select('namespaces.owner_id').where('projects.id', '=', source.id).where('namespaces.kind', '=', 'user')
      .executeTakeFirst()
    return personal?.owner_id === member.user_id ? 'The owner of a personal project cannot be changed or removed' : null
  }
  if (member.access_level !== OWNER) return null
  const demoted = change !== undefined && change.accessLevel < OWNER
  const givenEndDate = change !== undefined && change.expiresAt != null
  if (change !== undefined && !demoted && !givenEndDate) return null
  const otherOwner = await db.selectFrom('members').select('id')
    .where('source_type', '=', 'group').where('source_id', '=', source.id)
    .where('access_level', '=', OWNER).where('user_id', '!=', member.user_id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today())]))
    .executeTakeFirst()
  if (otherOwner !== undefined) return null
  if (change === undefined) return 'The last owner cannot be removed from the group'
  return demoted ? 'The last owner of the group cannot be demoted' : 'The last owner of the group cannot be given an expiry date'
}
