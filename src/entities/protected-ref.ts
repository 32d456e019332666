// Protected branch and protected tag entities (spec: Protected tags; the protected branches API of
// the original): the rule's name or wildcard and who may push, merge or create under it.
import { Type, type Static } from '@sinclair/typebox'
import type { ProtectedBranchRow, ProtectedTagRow } from '../db/schema.js'
import { DEVELOPER, MAINTAINER, NO_ACCESS_LEVEL } from '../policies/access-levels.js'
import { accessLevelDescription } from '../policies/protected-refs.js'

/** The levels a protected ref may name: no one, Developers + Maintainers, Maintainers. */
export const PROTECTED_ACCESS_LEVELS = [NO_ACCESS_LEVEL, DEVELOPER, MAINTAINER] as const

/** An access level parameter of a protected ref rule: one of those levels, Maintainers by default. */
export const ProtectedAccessLevelParam = () =>
  Type.Optional(Type.Unsafe<number>({ type: 'integer', enum: [...PROTECTED_ACCESS_LEVELS], default: MAINTAINER }))

export const ProtectedRefAccess = Type.Object({
  access_level: Type.Integer(),
  access_level_description: Type.String(),
})
export type ProtectedRefAccessEntity = Static<typeof ProtectedRefAccess>

export const ProtectedBranch = Type.Object({
  name: Type.String(),
  push_access_levels: Type.Array(ProtectedRefAccess),
  merge_access_levels: Type.Array(ProtectedRefAccess),
})
export type ProtectedBranchEntity = Static<typeof ProtectedBranch>

export const ProtectedTag = Type.Object({
  name: Type.String(),
  create_access_levels: Type.Array(ProtectedRefAccess),
})
export type ProtectedTagEntity = Static<typeof ProtectedTag>

function presentAccess(level: number): ProtectedRefAccessEntity {
  return { access_level: level, access_level_description: accessLevelDescription(level) }
}

export function presentProtectedBranch(row: ProtectedBranchRow): ProtectedBranchEntity {
  return {
    name: row.name,
    push_access_levels: [presentAccess(row.push_access_level)],
    merge_access_levels: [presentAccess(row.merge_access_level)],
  }
}

export function presentProtectedTag(row: ProtectedTagRow): ProtectedTagEntity {
  return { name: row.name, create_access_levels: [presentAccess(row.create_access_level)] }
}
