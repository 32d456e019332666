// Award emoji on issues, merge requests, project snippets and notes: awarding (a known emoji, once
// per user, name and awardable; nobody votes thumbsup/thumbsdown on what they wrote themselves, as
// the original's Awardable#user_can_award? says) and taking an award back. Votes on issues and
// merge requests are counted in their upvotes/downvotes, in the transaction of the award.
import type { Db } from '../../db/index.js'
import type { AwardableType, AwardEmojiRow } from '../../db/schema.js'
import { DOWNVOTE, UPVOTE, canonicalEmojiName } from './emoji-names.js'

export interface Awardable {
  type: AwardableType
  id: number
  /** The author of the issue, merge request, snippet or note. */
  authorId: number
}

export type AwardRefusal = 'unknown_name' | 'taken' | 'own_vote'

export type AwardResult = { ok: true; award: AwardEmojiRow } | { ok: false; refusal: AwardRefusal }

/** The original's validation message of a refusal (`{:name=>[…]}`); null when it has none. */
export function awardRefusalMessage(refusal: AwardRefusal): string | null {
  switch (refusal) {
    case 'unknown_name': return '{:name=>["is not included in the list"]}'
    case 'taken': return '{:name=>["has already been taken"]}'
    case 'own_vote': return null
  }
}

function isVote(name: string): boolean {
  return name === UPVOTE || name === DOWNVOTE
}

/** Moves the upvotes or downvotes of an issue or merge request by `delta` for a vote `name`. */
async function countVote(trx: Db, awardable: Awardable, name: string, delta: 1 | -1): Promise<void> {
  if (!isVote(name) || (awardable.type !== 'Issue' && awardable.type !== 'MergeRequest')) return
  const column = name === UPVOTE ? 'upvotes' : 'downvotes'
  await trx.updateTable(awardable.type === 'Issue' ? 'issues' : 'merge_requests')
    .set((eb) => ({ [column]: eb(column, '+', delta) }))
    .where('id', '=', awardable.id)
    .execute()
}

export async function awardEmoji(db: Db, awardable: Awardable, userId: number, requestedName: string): Promise<AwardResult> {
  const name = canonicalEmojiName(requestedName)
  if (name === null) return { ok: false, refusal: 'unknown_name' }
  if (isVote(name) && awardable.authorId === userId) return { ok: false, refusal: 'own_vote' }
  const now = Date.now()
  return db.transaction().execute(async (trx): Promise<AwardResult> => {
    // The unique index decides a race between two identical awards.
    const award = await trx.insertInto('award_emoji').values({
      name, user_id: userId, awardable_type: awardable.type, awardable_id: awardable.id, created_at: now, updated_at: now,
    })
      .onConflict((oc) => oc.columns(['awardable_type', 'awardable_id', 'name', 'user_id']).doNothing())
      .returningAll()
      .executeTakeFirst()
    if (award === undefined) return { ok: false, refusal: 'taken' }
    await countVote(trx, awardable, name, 1)
    return { ok: true, award }
  })
}

export async function removeAwardEmoji(db: Db, awardable: Awardable, award: AwardEmojiRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const removed = await trx.deleteFrom('award_emoji').where('id', '=', award.id).executeTakeFirst()
    if (removed.numDeletedRows > 0n) await countVote(trx, awardable, award.name, -1)
  })
}
