// Creating, changing and deleting CI/CD variables of a project or group, with the original's model
// validation (HasVariable: key present, at most 255 characters of letters, digits and `_`; unique
// per owner) answered as its validation errors: 400 {"message":{"key":[...]}}. Values are sealed.
import type { Db } from '../../db/index.js'
import type { CiVariableRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import type { SecretBox, SecretPurpose } from '../../common/secret-box.js'
import { validationFailed } from '../../common/errors.js'
import { findCiVariable, jobCiVariables, type CiVariableOwner, type SealedJobVariable } from '../../finders/ci-variables-finder.js'
import { isProtectedRef } from '../../finders/protected-refs.js'
import { isUniqueViolation } from '../projects/create-project.js'
import { variableKeyErrors } from './variable-keys.js'

const SECRET_PURPOSE: SecretPurpose = 'ci.variables'
const TAKEN = { key: ['has already been taken'] }

interface Deps { db: Db; secrets: SecretBox }

export interface CiVariableInput {
  key: string
  value: string
  protected?: boolean
}

/** The variable's value in clear. */
export function openCiVariable(secrets: SecretBox, row: Pick<CiVariableRow, 'encrypted_value'>): string {
  return secrets.open(SECRET_PURPOSE, row.encrypted_value)
}

/**
 * The variables (jobCiVariables' rows) a job of a ref gets, opened, in their order: protected ones
 * only when the ref is protected, which is looked up only when there are protected ones.
 */
export async function jobCiVariableValues(
  { db, secrets }: Deps, rows: readonly SealedJobVariable[], projectId: number, ref: string, tag: boolean,
): Promise<{ key: string; value: string }[]> {
  const protectedRef = rows.some((row) => row.protected === 1) && await isProtectedRef(db, projectId, ref, tag)
  return rows.filter((row) => protectedRef || row.protected !== 1).map((row) => ({ key: row.key, value: openCiVariable(secrets, row) }))
}

/** The CI/CD variables jobs of a ref of the project get (what `only`/`except: variables` can test too). */
export async function ciVariablesForRef(deps: Deps, projectId: number, ref: string, tag: boolean): Promise<{ key: string; value: string }[]> {
  return jobCiVariableValues(deps, await jobCiVariables(deps.db, projectId), projectId, ref, tag)
}

export async function createCiVariable({ db, secrets }: Deps, owner: CiVariableOwner, input: CiVariableInput): Promise<CiVariableRow> {
  const errors = variableKeyErrors(input.key)
  if (errors.length === 0 && await findCiVariable(db, owner, input.key) !== null) errors.push(...TAKEN.key)
  if (errors.length > 0) throw validationFailed({ key: errors })
  try {
    return await db.insertInto('ci_variables').values({
      project_id: owner.type === 'project' ? owner.id : null,
      group_id: owner.type === 'group' ? owner.id : null,
      key: input.key,
      encrypted_value: secrets.seal(SECRET_PURPOSE, input.value),
      protected: flag(input.protected ?? false),
    }).returningAll().executeTakeFirstOrThrow()
  } catch (err) {
    // A concurrent request created the same key between the check and the insert.
    if (isUniqueViolation(err)) throw validationFailed(TAKEN)
    throw err
  }
}

/** Changes what was given of the value and the protected flag; the key stays, as the original's PUT. */
export async function updateCiVariable(
  { db, secrets }: Deps, variable: CiVariableRow, changes: { value?: string; protected?: boolean },
): Promise<CiVariableRow> {
  if (changes.value === undefined && changes.protected === undefined) return variable
  return db.updateTable('ci_variables').set({
    ...(changes.value === undefined ? {} : { encrypted_value: secrets.seal(SECRET_PURPOSE, changes.value) }),
    ...(changes.protected === undefined ? {} : { protected: flag(changes.protected) }),
  }).where('id', '=', variable.id).returningAll().executeTakeFirstOrThrow()
}

export async function deleteCiVariable(db: Db, variable: CiVariableRow): Promise<void> {
  await db.deleteFrom('ci_variables').where('id', '=', variable.id).execute()
}
