// Deletes a project (DELETE /projects/:id): its rows in one transaction, then its repository
// directory once the rows are gone.
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import type { RepositoryStorage } from '../../git/storage.js'
import { deleteNamespacesAndProjects } from '../namespaces/delete-contents.js'

export async function deleteProject(db: Db, repositories: RepositoryStorage, project: ProjectRow): Promise<void> {
  await db.transaction().execute((trx) => deleteNamespacesAndProjects(trx, [], [project.id]))
  await repositories.remove(project.id)
}
