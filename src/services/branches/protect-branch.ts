// The deprecated PUT …/branches/:branch/protect and /unprotect (spec: Branches; states: both are
// idempotent). They work on the rule named exactly like the branch, as the original's legacy
// services do: protect creates it (Maintainers push and merge unless `developers_can_*` say
// Developers) or changes only the levels given; unprotect removes it (wildcard rules stay).
import type { Db } from '../../db/index.js'
import { DEVELOPER, MAINTAINER } from '../../policies/access-levels.js'

export interface LegacyProtection {
  developersCanPush?: boolean
  developersCanMerge?: boolean
}

const levelOf = (developersCan: boolean | undefined) => (developersCan === true ? DEVELOPER : MAINTAINER)

export async function protectBranch(db: Db, projectId: number, branch: string, protection: LegacyProtection): Promise<void> {
  const now = Date.now()
  await db.transaction().execute(async (trx) => {
    const inserted = await trx.insertInto('protected_branches').values({
      project_id: projectId,
      name: branch,
      push_access_level: levelOf(protection.developersCanPush),
      merge_access_level: levelOf(protection.developersCanMerge),
      created_at: now,
      updated_at: now,
    }).onConflict((oc) => oc.columns(['project_id', 'name']).doNothing()).returning('id').executeTakeFirst()
    if (inserted !== undefined) return
    const changes = {
      ...(protection.developersCanPush === undefined ? {} : { push_access_level: levelOf(protection.developersCanPush) }),
      ...(protection.developersCanMerge === undefined ? {} : { merge_access_level: levelOf(protection.developersCanMerge) }),
    }
    if (Object.keys(changes).length === 0) return
    await trx.updateTable('protected_branches').set({ ...changes, updated_at: now })
      .where('project_id', '=', projectId).where('name', '=', branch).execute()
  })
}

export async function unprotectBranch(db: Db, projectId: number, branch: string): Promise<void> {
  await db.deleteFrom('protected_branches').where('project_id', '=', projectId).where('name', '=', branch).execute()
}
