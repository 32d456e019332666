// Deletes a project (DELETE /projects/:id): its rows in one transaction, then its repository
// directory once the rows are gone.
import type { AppContext } from '../../context.js'
import type { ProjectRow } from '../../db/schema.js'
import { deleteNamespacesAndProjects } from '../namespaces/delete-contents.js'
import { projectSystemActivities } from '../hooks/system-payloads.js'

export async function deleteProject(ctx: Pick<AppContext, 'db' | 'repositories' | 'activity' | 'log'>, project: ProjectRow): Promise<void> {
  const systemEvents = await ctx.db.transaction().execute(async (trx) => {
    // Described for system hooks while the project still exists.
    const events = await projectSystemActivities(trx, [project.id], 'destroy')
    await deleteNamespacesAndProjects(trx, [], [project.id])
    return events
  })
  await ctx.repositories.remove(project.id)
  for (const event of systemEvents) await ctx.activity.publish(event, ctx.log)
}
