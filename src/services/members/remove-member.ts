// Ends memberships: DELETE …/members/:user_id (by a manager, or a member leaving) and the expiry
// housekeeping. Ending a project membership records `left`, or `expired` when its date passed,
// authored by the former member, as the original does; group memberships record nothing.
import type { Db } from '../../db/index.js'
import type { MemberRow } from '../../db/schema.js'
import { forbidden } from '../../common/errors.js'
import { recordEvents } from '../events/record-event.js'
import { lockMembershipSource, protectedMembershipReason, type MemberSourceRef } from './member-rules.js'

/**
 * Deletes the memberships and records events for the rows this call actually deleted (a concurrent
 * removal never yields two events), in the caller's transaction. With expiredOn, only memberships
 * still expired on that date are ended.
 */
export async function endMemberships(
  db: Db, memberIds: readonly number[], action: 'left' | 'expired', expiredOn?: string,
): Promise<number> {
  if (memberIds.length === 0) return 0
  let deletion = db.deleteFrom('members').where('id', 'in', memberIds)
  if (expiredOn !== undefined) deletion = deletion.where('expires_at', '<=', expiredOn)
  const ended = await deletion.returning(['source_type', 'source_id', 'user_id']).execute()
  const now = Date.now()
  await recordEvents(db, ended.filter((m) => m.source_type === 'project').map((m) => ({
    action, authorId: m.user_id, projectId: m.source_id, createdAt: now,
  })))
  return ended.length
}

/**
 * 403 for the memberships nobody may end (see member-rules.ts). The check and the removal are one
 * step under the group's lock: two Owners removing each other at once cannot leave it without one.
 */
export async function removeMember(db: Db, source: MemberSourceRef, member: MemberRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockMembershipSource(trx, source)
    const reason = await protectedMembershipReason(trx, source, member)
    if (reason !== null) throw forbidden(reason)
    await endMemberships(trx, [member.id], 'left')
  })
}
