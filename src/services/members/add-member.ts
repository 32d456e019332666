// Adds a user to a project or group (POST …/members). A project membership records the `joined`
// contribution event, as the original does. 409 when the user is a member already; a membership
// whose expiry date has passed but that housekeeping has not ended yet is ended first.
import type { Db } from '../../db/index.js'
import type { MemberRow, MemberSource } from '../../db/schema.js'
import { today } from '../../db/values.js'
import type { Actor } from '../../auth/actor.js'
import { conflict, validationFailed } from '../../common/errors.js'
import { recordEvent } from '../events/record-event.js'
import { collectErrors } from '../validation.js'
import { accessLevelErrors, expiryErrors, isActiveMembership } from './member-rules.js'
import { endMemberships } from './remove-member.js'

export interface AddMemberInput {
  sourceType: MemberSource
  sourceId: number
  userId: number
  accessLevel: number
  /** 'YYYY-MM-DD' or null. */
  expiresAt?: string | null
}

export interface AddMemberOptions {
  /** Refuse an expiry date that is not in the future (requests do; fixtures may backdate). */
  rejectPastExpiry?: boolean
}

export async function addMember(db: Db, actor: Actor, input: AddMemberInput, options: AddMemberOptions = {}): Promise<MemberRow> {
  const existing = await db.selectFrom('members').selectAll()
    .where('source_type', '=', input.sourceType).where('source_id', '=', input.sourceId).where('user_id', '=', input.userId)
    .executeTakeFirst()
  if (existing !== undefined && isActiveMembership(existing)) throw conflict('Member already exists')
  const errors = collectErrors({
    access_level: accessLevelErrors(input.sourceType, input.accessLevel),
    expires_at: options.rejectPastExpiry ? expiryErrors(input.expiresAt) : [],
  })
  if (errors !== null) throw validationFailed(errors)
  const now = Date.now()
  return db.transaction().execute(async (trx) => {
    if (existing !== undefined) await endMemberships(trx, [existing.id], 'expired', today(now))
    const member = await trx.insertInto('members').values({
      source_type: input.sourceType,
      source_id: input.sourceId,
      user_id: input.userId,
      access_level: input.accessLevel,
      expires_at: input.expiresAt ?? null,
      created_by_id: actor.user.id,
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    if (input.sourceType === 'project') {
      await recordEvent(trx, { action: 'joined', authorId: input.userId, projectId: input.sourceId, createdAt: now })
    }
    return member
  }).catch((err: unknown) => {
    // Two requests adding the same user at once: the unique index decides, as a 409.
    if (isUniqueViolation(err)) throw conflict('Member already exists')
    throw err
  })
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}
