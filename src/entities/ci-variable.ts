// The CI/CD variable entity of release 11.5 (Entities::Variable): key, value and protected. Later
// releases add variable_type, masked and environment_scope; 11.5 has none of them.
import { Type, type Static } from '@sinclair/typebox'
import type { CiVariableRow } from '../db/schema.js'

export const CiVariable = Type.Object({
  key: Type.String(),
  value: Type.String(),
  protected: Type.Boolean(),
})
export type CiVariableEntity = Static<typeof CiVariable>

/** `value` is the row's value opened (services/ci/ci-variables.ts openCiVariable). */
export function presentCiVariable(row: CiVariableRow, value: string): CiVariableEntity {
  return { key: row.key, value, protected: row.protected === 1 }
}
