// Badges as their API lists and finds them: a group's own; a project's own and those of its group
// and the group's ancestors (the original's Project#badges), oldest first.
import type { Db } from '../db/index.js'
import type { BadgeRow } from '../db/schema.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import { fitsIntegerColumn } from '../db/values.js'
import { groupAndAncestors } from './labels-finder.js'

/** Whose badges are listed: a project's (with its groups'), or a group's own. */
export type BadgeSource = { type: 'project'; id: number; namespaceId: number } | { type: 'group'; id: number }

function badgesOf(db: Db, source: BadgeSource) {
  const badges = db.selectFrom('badges').selectAll()
  if (source.type === 'group') return badges.where('group_id', '=', source.id)
  return badges.where((eb) => eb.or([eb('project_id', '=', source.id), eb('group_id', 'in', groupAndAncestors(source.namespaceId))]))
}

export function listBadges(db: Db, source: BadgeSource, pagination: PaginationQuery): Promise<Page<BadgeRow>> {
  return paginate(db, badgesOf(db, source).orderBy('id'), pagination)
}

export async function findBadge(db: Db, source: BadgeSource, id: number): Promise<BadgeRow | null> {
  if (!fitsIntegerColumn(id)) return null
  return (await badgesOf(db, source).where('id', '=', id).executeTakeFirst()) ?? null
}
