// The protected tags API (spec: Protected tags; POST/DELETE /projects/:id/protected_tags): a rule
// for a tag name or `*` wildcard with who may create matching tags. A second rule of the same name
// is 409, a blank name the original's 422, a name no tag name could match (or too long) 400.
import type { Db } from '../../db/index.js'
import type { ProtectedTagRow } from '../../db/schema.js'
import { conflict } from '../../common/errors.js'
import { findProtectedTag } from '../../finders/protected-refs.js'
import { isUniqueViolation } from '../projects/create-project.js'
import { checkRuleName } from './protected-branches.js'

export interface NewProtectedTag {
  name: string
  createAccessLevel: number
}

export async function createProtectedTag(db: Db, projectId: number, input: NewProtectedTag): Promise<ProtectedTagRow> {
  const alreadyExists = () => conflict(`Protected tag '${input.name}' already exists`)
  if (await findProtectedTag(db, projectId, input.name) !== null) throw alreadyExists()
  checkRuleName(input.name)
  const now = Date.now()
  return db.insertInto('protected_tags').values({
    project_id: projectId,
    name: input.name,
    create_access_level: input.createAccessLevel,
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow().catch((err: unknown) => {
    if (isUniqueViolation(err)) throw alreadyExists()
    throw err
  })
}

export async function deleteProtectedTag(db: Db, rule: ProtectedTagRow): Promise<void> {
  await db.deleteFrom('protected_tags').where('id', '=', rule.id).execute()
}
