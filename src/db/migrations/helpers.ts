// Small dialect bridges for migrations, which are otherwise written once for both databases.
import type { CreateTableBuilder, Kysely } from 'kysely'
import { isPostgres } from '../dialect.js'

export { isPostgres }

/** An auto-incrementing integer primary key `id` that never reuses a deleted row's value. */
export function withId<T extends string>(db: Kysely<unknown>, table: CreateTableBuilder<T, never>) {
  return isPostgres(db)
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
}
