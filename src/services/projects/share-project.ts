// Shares a project with a group and ends a share (POST /projects/:id/share,
// DELETE /projects/:id/share/:group_id). The group's members then reach the project at most at
// group_access (see finders/access.ts). 409 with the original's messages for a repeated share and
// for the project's own group or one of its ancestors.
import type { Db } from '../../db/index.js'
import type { NamespaceRow, ProjectGroupLinkRow, ProjectRow } from '../../db/schema.js'
import { conflict } from '../../common/errors.js'
import { isUniqueViolation } from './create-project.js'

export interface ShareProjectInput {
  group: NamespaceRow
  groupAccess: number
  /** 'YYYY-MM-DD' or null. */
  expiresAt: string | null
}

const ALREADY_SHARED = 'Group already shared with this group'

async function isOwnGroupOrAncestor(db: Db, project: ProjectRow, groupId: number): Promise<boolean> {
  const chain = await db.withRecursive('chain(id, parent_id)', (qb) => qb
    .selectFrom('namespaces').select(['id', 'parent_id']).where('id', '=', project.namespace_id).where('kind', '=', 'group')
    .unionAll((up) => up.selectFrom('namespaces as n').innerJoin('chain', 'chain.parent_id', 'n.id').select(['n.id', 'n.parent_id'])))
    .selectFrom('chain').select('id').where('id', '=', groupId).executeTakeFirst()
  return chain !== undefined
}

export async function shareProject(db: Db, project: ProjectRow, input: ShareProjectInput): Promise<ProjectGroupLinkRow> {
  const existing = await db.selectFrom('project_group_links').select('id')
    .where('project_id', '=', project.id).where('group_id', '=', input.group.id).executeTakeFirst()
  if (existing !== undefined) throw conflict(ALREADY_SHARED)
  if (await isOwnGroupOrAncestor(db, project, input.group.id)) {
    throw conflict('Project cannot be shared with the group it is in or one of its ancestors.')
  }
  return db.insertInto('project_group_links').values({
    project_id: project.id,
    group_id: input.group.id,
    group_access: input.groupAccess,
    expires_at: input.expiresAt,
    created_at: Date.now(),
  }).returningAll().executeTakeFirstOrThrow().catch((err: unknown) => {
    if (isUniqueViolation(err)) throw conflict(ALREADY_SHARED)
    throw err
  })
}

export async function unshareProject(db: Db, link: ProjectGroupLinkRow): Promise<void> {
  await db.deleteFrom('project_group_links').where('id', '=', link.id).execute()
}
