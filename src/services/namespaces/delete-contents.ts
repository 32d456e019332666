// Deletes groups and projects with every row that hangs off them, inside the caller's transaction:
// memberships and custom attributes (polymorphic, so no foreign key removes them), shares, the
// private deploy keys no other project holds, then the projects and namespaces themselves
// (statistics, stars, events and deploy key links go by cascade). Removing the repositories is
// the caller's job once the transaction has committed.
import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import { removeDeployKeysOnlyOf } from '../deploy-keys/remove-deploy-key.js'

/** The given groups and all their descendants. */
export async function selfAndDescendantIds(db: Db, groupIds: readonly number[]): Promise<number[]> {
  if (groupIds.length === 0) return []
  const { rows } = await sql<{ id: number }>`with recursive tree(id) as (
      select id from namespaces where id in (${sql.join(groupIds)})
      union select n.id from namespaces n join tree on n.parent_id = tree.id
    ) select id from tree`.execute(db)
  return rows.map((r) => r.id)
}

/** Ids of the projects directly in these namespaces. */
export async function projectIdsIn(db: Db, namespaceIds: readonly number[]): Promise<number[]> {
  if (namespaceIds.length === 0) return []
  const rows = await db.selectFrom('projects').select('id').where('namespace_id', 'in', [...namespaceIds]).execute()
  return rows.map((r) => r.id)
}

/** Deletes the namespaces and projects; projectIds must include every project in those namespaces. */
export async function deleteNamespacesAndProjects(trx: Db, namespaceIds: readonly number[], projectIds: readonly number[]): Promise<void> {
  const namespaces = namespaceIds.length > 0 ? [...namespaceIds] : [-1]
  const projects = projectIds.length > 0 ? [...projectIds] : [-1]
  await trx.deleteFrom('members').where((eb) => eb.or([
    eb.and([eb('source_type', '=', 'group'), eb('source_id', 'in', namespaces)]),
    eb.and([eb('source_type', '=', 'project'), eb('source_id', 'in', projects)]),
  ])).execute()
  await trx.deleteFrom('custom_attributes').where((eb) => eb.or([
    eb.and([eb('subject_type', '=', 'group'), eb('subject_id', 'in', namespaces)]),
    eb.and([eb('subject_type', '=', 'project'), eb('subject_id', 'in', projects)]),
  ])).execute()
  await trx.deleteFrom('project_group_links')
    .where((eb) => eb.or([eb('group_id', 'in', namespaces), eb('project_id', 'in', projects)])).execute()
  await removeDeployKeysOnlyOf(trx, projectIds)
  if (projectIds.length > 0) await trx.deleteFrom('projects').where('id', 'in', projects).execute()
  if (namespaceIds.length > 0) await trx.deleteFrom('namespaces').where('id', 'in', namespaces).execute()
}
