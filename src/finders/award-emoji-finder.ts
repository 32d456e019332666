// Award emoji on one awardable (issue, merge request, snippet or note), in the order they were
// given, with the users who gave them loaded in one query per page.
import type { Db } from '../db/index.js'
import type { AwardEmojiRow } from '../db/schema.js'
import type { AwardEmojiView } from '../entities/award-emoji.js'
import type { Awardable } from '../services/award-emoji/award-emoji.js'
import { usersById } from './rows.js'

function awardsOn(db: Db, awardable: Pick<Awardable, 'type' | 'id'>) {
  return db.selectFrom('award_emoji').selectAll()
    .where('awardable_type', '=', awardable.type).where('awardable_id', '=', awardable.id)
}

export function findAwards(db: Db, awardable: Pick<Awardable, 'type' | 'id'>) {
  return awardsOn(db, awardable).orderBy('id', 'asc')
}

export async function findAward(db: Db, awardable: Pick<Awardable, 'type' | 'id'>, awardId: number): Promise<AwardEmojiRow | null> {
  return await awardsOn(db, awardable).where('id', '=', awardId).executeTakeFirst() ?? null
}

export async function loadAwardViews(db: Db, awards: readonly AwardEmojiRow[]): Promise<AwardEmojiView[]> {
  const users = await usersById(db, [...new Set(awards.map((award) => award.user_id))])
  return awards.flatMap((award) => {
    const user = users.get(award.user_id)
    return user === undefined ? [] : [{ award, user }]
  })
}
