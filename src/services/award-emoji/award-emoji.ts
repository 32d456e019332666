// Award emoji on issues, merge requests, project snippets and notes: awarding (a known emoji, once
// per user, name and awardable; nobody votes thumbsup/thumbsdown on what they wrote themselves, as
// the original's Awardable#user_can_award? says) and taking an award back. Votes on issues and
// merge requests are counted in their upvotes/downvotes, in the transaction of the award.
import type { Db } from '../../db/index.js'
import type { AwardableType, AwardEmojiRow } from '../../db/schema.js'
import { ApiError, notFound } from '../../common/errors.js'
import { DOWNVOTE, UPVOTE, canonicalEmojiName } from './emoji-names.js'

export interface Awardable {
  type: AwardableType
  id: number
  /** The author of the issue, merge request, snippet or note. */
  authorId: number
}

export type AwardRefusal = 'unknown_name' | 'taken' | 'own_vote'

/** The original's validation message of a refusal (`{:name=>[…]}`); null when it has none. */
export function awardRefusalMessage(refusal: AwardRefusal): string | null {
  switch (refusal) {
    case 'unknown_name': return '{:name=>["is not included in the list"]}'
    case 'taken': return '{:name=>["has already been taken"]}'
    case 'own_vote': return null
  }
}

function refusalAnswer(refusal: AwardRefusal): ApiError {
  const errors = awardRefusalMessage(refusal)
  return notFound(errors === null ? 'Award Emoji' : `Award Emoji ${errors}`)
}

/**
 * An award the rules refuse, answered as the original's award API does (404 `Award Emoji
 * {:name=>[…]}`); `refusal` lets other callers (an emoji posted as a note) answer in their own words.
 */
export class AwardRefused extends ApiError {
  constructor(readonly refusal: AwardRefusal) {
    const answer = refusalAnswer(refusal)
    super(answer.statusCode, answer.body)
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

/** Awards the emoji as the user; AwardRefused when the rules refuse it. */
export async function awardEmoji(db: Db, awardable: Awardable, userId: number, requestedName: string): Promise<AwardEmojiRow> {
  const name = canonicalEmojiName(requestedName)
  if (name === null) throw new AwardRefused('unknown_name')
  if (isVote(name) && awardable.authorId === userId) throw new AwardRefused('own_vote')
  const now = Date.now()
  return db.transaction().execute(async (trx) => {
    // The unique index decides a race between two identical awards.
    const award = await trx.insertInto('award_emoji').values({
      name, user_id: userId, awardable_type: awardable.type, awardable_id: awardable.id, created_at: now, updated_at: now,
    })
      .onConflict((oc) => oc.columns(['awardable_type', 'awardable_id', 'name', 'user_id']).doNothing())
      .returningAll()
      .executeTakeFirst()
    if (award === undefined) throw new AwardRefused('taken')
    await countVote(trx, awardable, name, 1)
    return award
  })
}

export async function removeAwardEmoji(db: Db, awardable: Awardable, award: AwardEmojiRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const removed = await trx.deleteFrom('award_emoji').where('id', '=', award.id).executeTakeFirst()
    if (removed.numDeletedRows > 0n) await countVote(trx, awardable, award.name, -1)
  })
}
