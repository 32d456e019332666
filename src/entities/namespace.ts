// Namespace entity (GET /namespaces): a user's personal namespace or a group, with
// `members_count_with_descendants` for the groups the caller may administer.
import { Type, type Static } from '@sinclair/typebox'
import type { NamespaceRow } from '../db/schema.js'
import { NamespaceBasic, presentNamespaceBasic } from './project.js'

export const Namespace = Type.Composite([NamespaceBasic, Type.Object({
  members_count_with_descendants: Type.Optional(Type.Integer()),
})])
export type NamespaceEntity = Static<typeof Namespace>

export interface NamespaceView {
  namespace: NamespaceRow
  /** Distinct members of the group and its descendants; null when not shown to the caller. */
  membersCountWithDescendants: number | null
}

export function presentNamespace(view: NamespaceView): NamespaceEntity {
  return {
    ...presentNamespaceBasic(view.namespace),
    members_count_with_descendants: view.membersCountWithDescendants ?? undefined,
  }
}
