// Deletes a group with its descendant groups and all their projects in one transaction
// (DELETE /groups/:id), then the projects' repositories once the rows are gone.
import type { AppContext } from '../../context.js'
import type { NamespaceRow } from '../../db/schema.js'
import { deleteNamespacesAndProjects, projectIdsIn, selfAndDescendantIds } from '../namespaces/delete-contents.js'

export async function deleteGroup(ctx: Pick<AppContext, 'db' | 'repositories'>, group: NamespaceRow): Promise<void> {
  const projectIds = await ctx.db.transaction().execute(async (trx) => {
    const groupIds = await selfAndDescendantIds(trx, [group.id])
    const projectIds = await projectIdsIn(trx, groupIds)
    await deleteNamespacesAndProjects(trx, groupIds, projectIds)
    return projectIds
  })
  for (const id of projectIds) await ctx.repositories.remove(id)
}
