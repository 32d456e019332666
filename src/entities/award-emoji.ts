// Award emoji entity, the original's Entities::AwardEmoji: the emoji's name, who awarded it, when,
// and what it is on (`awardable_type` Issue, MergeRequest, Snippet or Note).
import { Type, type Static } from '@sinclair/typebox'
import type { AwardEmojiRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, type PresentContext } from './common.js'
import { UserBasic, presentUserBasic } from './user.js'

export const AwardEmoji = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  user: UserBasic,
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  awardable_id: Type.Integer(),
  awardable_type: Type.String(),
})
export type AwardEmojiEntity = Static<typeof AwardEmoji>

export interface AwardEmojiView {
  award: AwardEmojiRow
  user: UserRow
}

export function presentAwardEmoji(view: AwardEmojiView, ctx: PresentContext): AwardEmojiEntity {
  const { award } = view
  return {
    id: award.id,
    name: award.name,
    user: presentUserBasic(view.user, ctx),
    created_at: isoTime(award.created_at),
    updated_at: isoTime(award.updated_at),
    awardable_id: award.awardable_id,
    awardable_type: award.awardable_type,
  }
}
