// Row locks for check-then-act writes: a transaction that locks a row first, then checks and writes,
// runs as one step against every other transaction that locks the same row.
import { sql } from 'kysely'
import type { Db } from './index.js'
import type { Database } from './schema.js'
import { isPostgres } from './dialect.js'

/** Tables whose rows are locked this way: each has an integer `id`. */
type LockableTable = 'users' | 'namespaces' | 'projects' | 'issues' | 'merge_requests' | 'ci_pipelines'

/**
 * Holds the row until the transaction ends; call it first in the transaction. On PostgreSQL a row
 * lock that others wait for. On SQLite a write that takes the database's write lock at once: a
 * transaction there starts deferred, and one that only read before writing could be overtaken by
 * another process's write in between (within one process the single connection already
 * serializes transactions).
 */
export async function lockRow(trx: Db, table: LockableTable & keyof Database, id: number): Promise<void> {
  if (isPostgres(trx)) await sql`select 1 from ${sql.table(table)} where id = ${id} for update`.execute(trx)
  else await sql`update ${sql.table(table)} set id = id where id = ${id}`.execute(trx)
}

/**
 * Holds the row against lockRow until the transaction ends, without keeping others that share it
 * waiting: on PostgreSQL a share lock; on SQLite the same as lockRow (one writer at a time there).
 */
export async function shareRow(trx: Db, table: LockableTable & keyof Database, id: number): Promise<void> {
  if (isPostgres(trx)) await sql`select 1 from ${sql.table(table)} where id = ${id} for share`.execute(trx)
  else await lockRow(trx, table, id)
}
