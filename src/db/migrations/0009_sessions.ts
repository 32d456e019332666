// Web sign-in sessions and acceptance of the instance's terms. A session is found by the SHA-256
// digest of its secret (the `_service_session` cookie holds the secret, the database never does);
// its expiry slides forward as it is used. A user who accepted the terms keeps the time they did.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('sessions'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('secret_digest', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('last_seen_at', 'bigint', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute()
  // The recurring clean-up removes sessions by expiry.
  await db.schema.createIndex('sessions_expires_at').on('sessions').column('expires_at').execute()
  await db.schema.alterTable('users').addColumn('terms_accepted_at', 'bigint').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('terms_accepted_at').execute()
  await db.schema.dropTable('sessions').execute()
}
