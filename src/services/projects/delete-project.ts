// Deletes a project (DELETE /projects/:id): its rows in one transaction, then its files (repository,
// wiki repository, uploads, CI traces and artifacts, export archives) once the rows are gone.
import type { AppContext } from '../../context.js'
import type { ProjectRow } from '../../db/schema.js'
import { deleteNamespacesAndProjects } from '../namespaces/delete-contents.js'
import { projectSystemActivities } from '../hooks/system-payloads.js'
import { removeProjectUploads } from '../uploads/attachments.js'
import { projectArtifactsPrefix } from '../ci/artifacts.js'
import { projectExportsPrefix } from '../import-export/export-archive.js'


/** Everything of a deleted project kept outside the database; for every path that deletes projects. */
export async function removeProjectFiles(ctx: Pick<AppContext, 'repositories' | 'config' | 'blobs'>, projectId: number): Promise<void> {
  await ctx.repositories.remove(projectId)
  await removeProjectUploads(ctx.config.dataDir, projectId)
  await ctx.blobs.deletePrefix(projectArtifactsPrefix(projectId))
  await ctx.blobs.deletePrefix(projectExportsPrefix(projectId))
}

export async function deleteProject(ctx: AppContext, project: ProjectRow): Promise<void> {
  const systemEvents = await ctx.db.transaction().execute(async (trx) => {
    // Described for system hooks while the project still exists.
    const events = await projectSystemActivities(trx, [project.id], 'destroy')
    await deleteNamespacesAndProjects(trx, [], [project.id])
    return events
  })
  await removeProjectFiles(ctx, project.id)
  for (const event of systemEvents) await ctx.activity.publish(event, ctx)
}
