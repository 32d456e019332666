// Counters of the request throttles and of failed sign-ins, and the bans those failures earn: in
// the database so that every process on it counts together. Counters are many, short-lived and
// written on every throttled request, so on PostgreSQL their table is UNLOGGED: no WAL per
// increment, and a crash only forgets the current windows. Bans are rare and last an hour: logged.
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely'
import { isPostgres } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('throttle_counters')
    .$call((table) => (isPostgres(db) ? table.modifyFront(sql`unlogged`) : table))
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', notNull)
    .addColumn('expires_at', 'bigint', notNull)
    .execute()
  // Windows that ended are removed by expiry.
  await db.schema.createIndex('throttle_counters_expires_at').on('throttle_counters').column('expires_at').execute()
  await db.schema.createTable('throttle_bans')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', notNull)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('throttle_bans').execute()
  await db.schema.dropTable('throttle_counters').execute()
}
