// Deletes a user (DELETE /users/:id) in one transaction: their personal projects, memberships,
// tokens, keys and identities go; their contributions move to the ghost user, or with hard_delete
// are deleted together with the groups the user alone owns. Repositories are removed after commit.
import { sql } from 'kysely'
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { conflict } from '../../common/errors.js'
import { OWNER } from '../../policies/access-levels.js'
import { ensureGhostUser } from './ghost-user.js'
import { removeUserAvatar } from '../uploads/user-avatar.js'
import { deleteNamespacesAndProjects, projectIdsIn, selfAndDescendantIds } from '../namespaces/delete-contents.js'
import { groupSystemActivities, projectSystemActivities, userSystemActivity } from '../hooks/system-payloads.js'
import { removeProjectFiles } from '../projects/delete-project.js'

/**
 * Every table holding a user's contributions, by its author column: moved to the ghost on a soft
 * delete, deleted on a hard one. A capability that adds authored rows (issues, notes, …) adds its
 * table here. Award emoji go with the user (a ghost cannot hold one award per person). Pipelines and
 * CI jobs keep no user (their foreign keys set it null), as the original nullifies them.
 */
const CONTRIBUTIONS: readonly { table: string; authorColumn: string }[] = [
  { table: 'events', authorColumn: 'author_id' },
  { table: 'issues', authorColumn: 'author_id' },
  { table: 'merge_requests', authorColumn: 'author_id' },
  { table: 'notes', authorColumn: 'author_id' },
  { table: 'snippets', authorColumn: 'author_id' },
]

export interface DeleteUserOptions {
  /** Delete contributions instead of moving them, and the groups only this user owns. */
  hardDelete: boolean
}

export async function deleteUser(
  ctx: AppContext, user: UserRow, options: DeleteUserOptions,
): Promise<void> {
  // The ghost is shared by every deletion, so it is made (once) outside this one's transaction.
  const ghost = options.hardDelete ? null : await ensureGhostUser(ctx.db, new URL(ctx.config.externalUrl).hostname)
  const { projectIds: removedProjectIds, systemEvents } = await ctx.db.transaction().execute(async (trx) => {
    const soloGroupIds = await soloOwnedGroupIds(trx, user.id)
    if (soloGroupIds.length > 0 && !options.hardDelete) {
      throw conflict('You must transfer ownership or delete groups before you can remove user')
    }
    const groupIds = await selfAndDescendantIds(trx, soloGroupIds)
    const personalNamespaceIds = (await trx.selectFrom('namespaces').select('id')
      .where('owner_id', '=', user.id).where('kind', '=', 'user').execute()).map((n) => n.id)
    const namespaceIds = [...groupIds, ...personalNamespaceIds]
    const projectIds = await projectIdsIn(trx, namespaceIds)
    // System hooks hear of every project and group that goes with the user, described while they exist.
    const groups = groupIds.length === 0 ? [] : await trx.selectFrom('namespaces').selectAll().where('id', 'in', groupIds).execute()
    const systemEvents = [
      ...await projectSystemActivities(trx, projectIds, 'destroy'),
      ...await groupSystemActivities(trx, groups, 'destroy'),
      userSystemActivity(user, 'destroy'),
    ]

    await trx.updateTable('projects').set((eb) => ({ star_count: eb('star_count', '-', 1) }))
      .where('id', 'in', trx.selectFrom('stars').select('project_id').where('user_id', '=', user.id)).execute()
    if (ghost === null) {
      for (const { table, authorColumn } of CONTRIBUTIONS) {
        await sql`delete from ${sql.table(table)} where ${sql.ref(authorColumn)} = ${user.id}`.execute(trx)
      }
    } else {
      for (const { table, authorColumn } of CONTRIBUTIONS) {
        await sql`update ${sql.table(table)} set ${sql.ref(authorColumn)} = ${ghost.id} where ${sql.ref(authorColumn)} = ${user.id}`.execute(trx)
      }
    }
    await deleteNamespacesAndProjects(trx, namespaceIds, projectIds)
    await trx.deleteFrom('custom_attributes').where('subject_type', '=', 'user').where('subject_id', '=', user.id).execute()
    // Memberships, tokens, keys, identities and stars go with the row (foreign keys cascade).
    await trx.deleteFrom('users').where('id', '=', user.id).execute()
    return { projectIds, systemEvents }
  })
  for (const id of removedProjectIds) await removeProjectFiles(ctx, id)
  await removeUserAvatar(ctx.config.dataDir, user.id)
  for (const event of systemEvents) await ctx.activity.publish(event, ctx)
}

/** Groups where the user is a direct Owner and no one else is. */
async function soloOwnedGroupIds(db: Db, userId: number): Promise<number[]> {
  const rows = await db.selectFrom('members as m').select('m.source_id')
    .where('m.user_id', '=', userId).where('m.source_type', '=', 'group').where('m.access_level', '>=', OWNER)
    .where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('members as o').select('o.id')
        .whereRef('o.source_id', '=', 'm.source_id')
        .where('o.source_type', '=', 'group').where('o.access_level', '>=', OWNER).where('o.user_id', '!=', userId),
    )))
    .execute()
  return rows.map((r) => r.source_id)
}
