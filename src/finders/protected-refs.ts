// A project's protected branch and tag rules: every rule of the project, read through the read
// cache (every push and every branch or tag answer consults them), and for the protected refs API
// one page of them in creation order and one rule by its exact name.
import type { Db } from '../db/index.js'
import type { ProtectedBranchRow, ProtectedTagRow } from '../db/schema.js'
import { readCacheOf } from '../db/read-cache.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import { matchingRules } from '../policies/protected-refs.js'

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

/** Whether a ref is a protected branch (or, for a tag, a protected tag) of the project: for protected runners and variables. */
export async function isProtectedRef(db: Db, projectId: number, ref: string, tag: boolean): Promise<boolean> {
  const rules: readonly { name: string }[] = tag ? await protectedTagsOf(db, projectId) : await protectedBranchesOf(db, projectId)
  return matchingRules(rules, ref).length > 0
}

export function listProtectedBranches(db: Db, projectId: number, pagination: PaginationQuery): Promise<Page<ProtectedBranchRow>> {
  return paginate(db, db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId).orderBy('id'), pagination)
}

export function listProtectedTags(db: Db, projectId: number, pagination: PaginationQuery): Promise<Page<ProtectedTagRow>> {
  return paginate(db, db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).orderBy('id'), pagination)
}

/** The rule named exactly so (a wildcard by its pattern, not the branches it matches); null for none. */
export async function findProtectedBranch(db: Db, projectId: number, name: string): Promise<ProtectedBranchRow | null> {
  const rule = await db.selectFrom('protected_branches').selectAll()
    .where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst()
  return rule ?? null
}

/** The rule named exactly so (a wildcard by its pattern, not the tags it matches); null for none. */
export async function findProtectedTag(db: Db, projectId: number, name: string): Promise<ProtectedTagRow | null> {
  const rule = await db.selectFrom('protected_tags').selectAll()
    .where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst()
  return rule ?? null
}
