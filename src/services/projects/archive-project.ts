// Archives and unarchives a project (POST /projects/:id/archive, /unarchive). Idempotent, as in
// the original: archiving an archived project changes nothing but answers the same.
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'

export async function setProjectArchived(db: Db, project: ProjectRow, archived: boolean): Promise<ProjectRow> {
  if (project.archived === flag(archived)) return project
  return db.updateTable('projects').set({ archived: flag(archived), updated_at: Date.now() })
    .where('id', '=', project.id).returningAll().executeTakeFirstOrThrow()
}
