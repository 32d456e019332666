// A project's protected branch and tag rules, read through the read cache: every push and every
// branch or tag answer consults them.
import type { Db } from '../db/index.js'
import type { ProtectedBranchRow, ProtectedTagRow } from '../db/schema.js'
import { readCacheOf } from '../db/read-cache.js'

export async function protectedBranchesOf(db: Db, projectId: number): Promise<readonly ProtectedBranchRow[]> {
  const load = () => db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId).orderBy('name').orderBy('id').execute()
  const cache = readCacheOf<ProtectedBranchRow[]>(db, 'protected-branches', { tables: ['protected_branches'], maxWeight: 10_000 })
  return cache === null ? load() : cache.get(String(projectId), load)
}

export async function protectedTagsOf(db: Db, projectId: number): Promise<readonly ProtectedTagRow[]> {
  const load = () => db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).orderBy('name').orderBy('id').execute()
  const cache = readCacheOf<ProtectedTagRow[]>(db, 'protected-tags', { tables: ['protected_tags'], maxWeight: 10_000 })
  return cache === null ? load() : cache.get(String(projectId), load)
}
