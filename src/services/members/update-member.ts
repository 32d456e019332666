// Changes a membership's access level and expiry date (PUT …/members/:user_id). The owner of a
// personal project and the last Owner of a group cannot be changed (403), as in the original.
import type { Db } from '../../db/index.js'
import type { MemberRow } from '../../db/schema.js'
import { forbidden, notFound, validationFailed } from '../../common/errors.js'
import { collectErrors } from '../validation.js'
import { accessLevelErrors, expiryErrors, lockMembershipSource, protectedMembershipReason, type MemberSourceRef, type MembershipChange } from './member-rules.js'

export async function updateMember(db: Db, source: MemberSourceRef, member: MemberRow, input: MembershipChange): Promise<MemberRow> {
  // One step under the group's lock, as removeMember: the last Owner check holds until the write.
  return db.transaction().execute(async (trx) => {
    await lockMembershipSource(trx, source)
    const reason = await protectedMembershipReason(trx, source, member, input)
    if (reason !== null) throw forbidden(reason)
    return changeMembership(trx, source, member, input)
  })
}

async function changeMembership(db: Db, source: MemberSourceRef, member: MemberRow, input: MembershipChange): Promise<MemberRow> {
  const errors = collectErrors({
    access_level: accessLevelErrors(source.type, input.accessLevel),
    expires_at: expiryErrors(input.expiresAt),
  })
  if (errors !== null) throw validationFailed(errors)
  const updated = await db.updateTable('members')
    .set({
      access_level: input.accessLevel,
      ...(input.expiresAt === undefined ? {} : { expires_at: input.expiresAt }),
      updated_at: Date.now(),
    })
    .where('id', '=', member.id)
    .returningAll().executeTakeFirst()
  if (updated === undefined) throw notFound('Member')
  return updated
}
