// Repository housekeeping (services/projects/housekeeping.ts): each project counts the pushes since
// its last gc, which picks the next task, and holds a lease while a housekeeping job is pending or
// running, so that two never run on one repository at once.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('pushes_since_gc', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  await db.schema.alterTable('projects').addColumn('housekeeping_lease_until', 'bigint').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('projects').dropColumn('housekeeping_lease_until').execute()
  await db.schema.alterTable('projects').dropColumn('pushes_since_gc').execute()
}
