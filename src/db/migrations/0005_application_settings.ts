// Application settings: one row whose `settings` JSON text holds only the values an administrator
// changed; every other setting takes its default from services/settings.ts, so a release can add a
// setting without a migration.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('application_settings'))
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  const now = Date.now()
  await (db as Kysely<{ application_settings: { created_at: number; updated_at: number } }>)
    .insertInto('application_settings').values({ created_at: now, updated_at: now }).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('application_settings').execute()
}
