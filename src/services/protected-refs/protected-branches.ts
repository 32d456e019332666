// The protected branches API (POST/DELETE /projects/:id/protected_branches) and the repository
// settings page (which also changes a rule's levels): a rule for a branch name or `*` wildcard
// with who may push and merge. A second rule of the same name is 409, a blank
// name the original's 422, a name that no branch name could match (or too long) 400.
import type { Db } from '../../db/index.js'
import type { ProtectedBranchRow } from '../../db/schema.js'
import { ApiError, conflict, validationFailed } from '../../common/errors.js'
import { MAX_REF_NAME_LENGTH, isValidRefPattern } from '../../git/ref-names.js'
import { findProtectedBranch } from '../../finders/protected-refs.js'
import { isUniqueViolation } from '../projects/create-project.js'

export interface NewProtectedBranch {
  name: string
  pushAccessLevel: number
  mergeAccessLevel: number
}

/** The original answers model validation of protected refs as 422 with the full messages. */
export const blankName = () => new ApiError(422, { message: ["Name can't be blank"] })

/**
 * A rule's name is matched against every pushed ref, so it must be a branch or tag name pattern
 * (git's rules, `*` aside) of a name's length at most.
 */
export function checkRuleName(name: string): void {
  if (name.trim() === '') throw blankName()
  if (name.length > MAX_REF_NAME_LENGTH) throw validationFailed({ name: [`is too long (maximum is ${MAX_REF_NAME_LENGTH} characters)`] })
  if (!isValidRefPattern(name)) throw validationFailed({ name: ['is invalid'] })
}

export async function createProtectedBranch(db: Db, projectId: number, input: NewProtectedBranch): Promise<ProtectedBranchRow> {
  const alreadyExists = () => conflict(`Protected branch '${input.name}' already exists`)
  if (await findProtectedBranch(db, projectId, input.name) !== null) throw alreadyExists()
  checkRuleName(input.name)
  const now = Date.now()
  return db.insertInto('protected_branches').values({
    project_id: projectId,
    name: input.name,
    push_access_level: input.pushAccessLevel,
    merge_access_level: input.mergeAccessLevel,
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow().catch((err: unknown) => {
    if (isUniqueViolation(err)) throw alreadyExists()
    throw err
  })
}

/** Changes who may push and merge under a rule (the original's ProtectedBranches::UpdateService, of its settings page). */
export async function updateProtectedBranch(
  db: Db, rule: ProtectedBranchRow, levels: Pick<NewProtectedBranch, 'pushAccessLevel' | 'mergeAccessLevel'>,
): Promise<ProtectedBranchRow> {
  return db.updateTable('protected_branches')
    .set({ push_access_level: levels.pushAccessLevel, merge_access_level: levels.mergeAccessLevel, updated_at: Date.now() })
    .where('id', '=', rule.id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteProtectedBranch(db: Db, rule: ProtectedBranchRow): Promise<void> {
  await db.deleteFrom('protected_branches').where('id', '=', rule.id).execute()
}
