// Custom attributes (admin-only key/value pairs on users, groups and projects): bulk reads for the
// `with_custom_attributes` forms, one attribute by key, and the `custom_attributes[key]=value` list filter.
import { sql, type Expression, type SqlBool } from 'kysely'
import type { Db } from '../db/index.js'
import type { CustomAttributeRow, CustomAttributeSubject } from '../db/schema.js'
import type { CustomAttributeEntity } from '../entities/common.js'
import { textOrder } from './text-search.js'

/** Each subject's attributes, ordered by key. */
export async function customAttributesOf(
  db: Db, subject: CustomAttributeSubject, ids: readonly number[],
): Promise<Map<number, CustomAttributeEntity[]>> {
  const result = new Map<number, CustomAttributeEntity[]>()
  if (ids.length === 0) return result
  const rows = await db.selectFrom('custom_attributes').select(['subject_id', 'key', 'value'])
    .where('subject_type', '=', subject).where('subject_id', 'in', ids).orderBy(textOrder(db, 'key')).execute()
  for (const row of rows) {
    const list = result.get(row.subject_id) ?? []
    list.push({ key: row.key, value: row.value })
    result.set(row.subject_id, list)
  }
  return result
}

/** One attribute of a subject by its key. */
export async function findCustomAttribute(
  db: Db, subject: CustomAttributeSubject, id: number, key: string,
): Promise<CustomAttributeRow | undefined> {
  return db.selectFrom('custom_attributes').selectAll()
    .where('subject_type', '=', subject).where('subject_id', '=', id).where('key', '=', key).executeTakeFirst()
}

/**
 * The condition "the subject (its id column) carries every given key with exactly that value",
 * or null when no filter was given.
 */
export function hasCustomAttributes(
  subject: CustomAttributeSubject, idColumn: string, filters: Record<string, string> | undefined,
): Expression<SqlBool> | null {
  const entries = Object.entries(filters ?? {})
  if (entries.length === 0) return null
  return sql<SqlBool>`${sql.join(entries.map(([key, value]) => sql`exists (select 1 from custom_attributes ca
    where ca.subject_type = ${subject} and ca.subject_id = ${sql.ref(idColumn)} and ca.key = ${key} and ca.value = ${value})`), sql` and `)}`
}
