// The Trigger entity of the original 11.5: the whole token only for whoever may use the trigger
// (its owner, while a Maintainer), else its first four characters.
import { Type, type Static } from '@sinclair/typebox'
import type { CiTriggerRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, Nullable, NullableDateTime, NullableString, type PresentContext } from './common.js'
import { UserBasic, presentUserBasic } from './user.js'

export const Trigger = Type.Object({
  id: Type.Integer(),
  token: Type.String(),
  description: NullableString,
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  last_used: NullableDateTime,
  owner: Nullable(UserBasic),
})
export type TriggerEntity = Static<typeof Trigger>

export interface TriggerView {
  trigger: CiTriggerRow
  owner: UserRow | null
  /** The token as the viewer may see it. */
  token: string
}

export function presentTrigger({ trigger, owner, token }: TriggerView, ctx: PresentContext): TriggerEntity {
  return {
    id: trigger.id,
    token,
    description: trigger.description,
    created_at: isoTime(trigger.created_at),
    updated_at: isoTime(trigger.updated_at),
    last_used: isoTime(trigger.last_used_at),
    owner: owner === null ? null : presentUserBasic(owner, ctx),
  }
}
