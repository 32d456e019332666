// Deletes a group with its descendant groups and all their projects in one transaction
// (DELETE /groups/:id), then the projects' files once the rows are gone.
import type { AppContext } from '../../context.js'
import type { NamespaceRow } from '../../db/schema.js'
import { deleteNamespacesAndProjects, projectIdsIn, selfAndDescendantIds } from '../namespaces/delete-contents.js'
import { groupSystemActivities, projectSystemActivities } from '../hooks/system-payloads.js'
import { removeProjectFiles } from '../projects/delete-project.js'

export async function deleteGroup(ctx: AppContext, group: NamespaceRow): Promise<void> {
  const { projectIds, systemEvents } = await ctx.db.transaction().execute(async (trx) => {
    const groupIds = await selfAndDescendantIds(trx, [group.id])
    const projectIds = await projectIdsIn(trx, groupIds)
    // System hooks hear of every project and subgroup that goes too, described while they exist.
    const groups = await trx.selectFrom('namespaces').selectAll().where('id', 'in', groupIds).orderBy('id', 'desc').execute()
    const systemEvents = [...await projectSystemActivities(trx, projectIds, 'destroy'), ...await groupSystemActivities(trx, groups, 'destroy')]
    await deleteNamespacesAndProjects(trx, groupIds, projectIds)
    return { projectIds, systemEvents }
  })
  for (const id of projectIds) await removeProjectFiles(ctx, id)
  for (const event of systemEvents) await ctx.activity.publish(event, ctx)
}
