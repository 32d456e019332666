// The Badge entity of the original 11.5 (and BasicBadgeDetails, what rendering a badge answers):
// the URLs as stored and as shown on the project (placeholders filled in), its id and whose it is.
import { Type, type Static } from '@sinclair/typebox'
import type { BadgeRow } from '../db/schema.js'

export const BasicBadgeDetails = Type.Object({
  link_url: Type.String(),
  image_url: Type.String(),
  rendered_link_url: Type.String(),
  rendered_image_url: Type.String(),
})
export type BasicBadgeDetailsEntity = Static<typeof BasicBadgeDetails>

export const Badge = Type.Composite([BasicBadgeDetails, Type.Object({
  id: Type.Integer(),
  kind: Type.Union([Type.Literal('project'), Type.Literal('group')]),
})])
export type BadgeEntity = Static<typeof Badge>

export function presentBadge(badge: BadgeRow, details: BasicBadgeDetailsEntity): BadgeEntity {
  return { ...details, id: badge.id, kind: badge.project_id === null ? 'group' : 'project' }
}
