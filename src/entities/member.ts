// Member entity (spec: Member and access levels): the brief user, with the membership's
// access_level and expires_at.
import { Type, type Static } from '@sinclair/typebox'
import type { UserRow } from '../db/schema.js'
import { NullableDate, type PresentContext } from './common.js'
import { UserBasic, presentUserBasic } from './user.js'

export const Member = Type.Composite([Type.Omit(UserBasic, ['custom_attributes']), Type.Object({
  access_level: Type.Integer(),
  expires_at: NullableDate,
})])
export type MemberEntity = Static<typeof Member>

export interface MemberView {
  user: UserRow
  /** The level this membership grants here (capped by a share for a shared-with group's members). */
  accessLevel: number
  expiresAt: string | null
}

export function presentMember(view: MemberView, ctx: PresentContext): MemberEntity {
  const user = presentUserBasic(view.user, ctx)
  return {
    id: user.id, name: user.name, username: user.username, state: user.state, avatar_url: user.avatar_url, web_url: user.web_url,
    access_level: view.accessLevel, expires_at: view.expiresAt,
  }
}
