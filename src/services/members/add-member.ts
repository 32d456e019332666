// Adds a user to a project or group (POST …/members). A project membership records the `joined`
// contribution event, as the original does. 409 when the user is a member already.
import type { Db } from '../../db/index.js'
import type { MemberRow, MemberSource } from '../../db/schema.js'
import type { Actor } from '../../auth/actor.js'
import { conflict } from '../../api/errors.js'
import { recordEvent } from '../events/record-event.js'

export interface AddMemberInput {
  sourceType: MemberSource
  sourceId: number
  userId: number
  accessLevel: number
  /** 'YYYY-MM-DD' or null. */
  expiresAt?: string | null
}

export async function addMember(db: Db, actor: Actor, input: AddMemberInput): Promise<MemberRow> {
  const existing = await db.selectFrom('members').select('id')
    .where('source_type', '=', input.sourceType).where('source_id', '=', input.sourceId).where('user_id', '=', input.userId)
    .executeTakeFirst()
  if (existing !== undefined) throw conflict('Member already exists')
  const now = Date.now()
  return db.transaction().execute(async (trx) => {
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
  })
}
