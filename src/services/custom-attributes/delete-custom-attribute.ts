// Deletes one custom attribute (DELETE /{users,groups,projects}/:id/custom_attributes/:key).
import type { Db } from '../../db/index.js'
import type { CustomAttributeRow } from '../../db/schema.js'

export async function deleteCustomAttribute(db: Db, attribute: CustomAttributeRow): Promise<void> {
  await db.deleteFrom('custom_attributes').where('id', '=', attribute.id).execute()
}
