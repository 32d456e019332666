// Creates or replaces one custom attribute of a user, group or project
// (PUT /{users,groups,projects}/:id/custom_attributes/:key).
import type { Db } from '../../db/index.js'
import type { CustomAttributeRow, CustomAttributeSubject } from '../../db/schema.js'
import { validationFailed } from '../../common/errors.js'
import { collectErrors } from '../validation.js'

export interface CustomAttributeTarget {
  subject: CustomAttributeSubject
  subjectId: number
}

export async function setCustomAttribute(
  db: Db, target: CustomAttributeTarget, key: string, value: string,
): Promise<CustomAttributeRow> {
  const errors = collectErrors({
    key: key.trim() === '' ? ["can't be blank"] : [],
    value: value.trim() === '' ? ["can't be blank"] : [],
  })
  if (errors !== null) throw validationFailed(errors)
  const now = Date.now()
  return db.insertInto('custom_attributes')
    .values({ subject_type: target.subject, subject_id: target.subjectId, key, value, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['subject_type', 'subject_id', 'key']).doUpdateSet({ value, updated_at: now }))
    .returningAll().executeTakeFirstOrThrow()
}
