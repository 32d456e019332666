// Stars and unstars a project for a user (POST /projects/:id/star, /unstar). The stars row and the
// project's star_count change in one transaction, so the count is never computed on read.
import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import type { ProjectRow } from '../../db/schema.js'

/** Stars the project and returns it as it is now; null when the user had starred it already. */
export async function starProject(db: Db, userId: number, projectId: number): Promise<ProjectRow | null> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx.insertInto('stars').values({ user_id: userId, project_id: projectId, created_at: Date.now() })
      .onConflict((oc) => oc.columns(['user_id', 'project_id']).doNothing())
      .executeTakeFirst()
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return null
    return trx.updateTable('projects').set({ star_count: sql<number>`star_count + 1` }).where('id', '=', projectId)
      .returningAll().executeTakeFirstOrThrow()
  })
}

/** Removes the user's star and returns the project as it is now; null when there was none. */
export async function unstarProject(db: Db, userId: number, projectId: number): Promise<ProjectRow | null> {
  return db.transaction().execute(async (trx) => {
    const deleted = await trx.deleteFrom('stars').where('user_id', '=', userId).where('project_id', '=', projectId)
      .executeTakeFirst()
    if (Number(deleted.numDeletedRows) === 0) return null
    return trx.updateTable('projects').set({ star_count: sql<number>`star_count - 1` }).where('id', '=', projectId)
      .returningAll().executeTakeFirstOrThrow()
  })
}
