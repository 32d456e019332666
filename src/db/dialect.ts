// Which database a Kysely handle (or transaction) talks to, for the few queries written per dialect.
import { PostgresAdapter, type Kysely } from 'kysely'

export function isPostgres<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}
