// Impersonation (the admin area's "Impersonate"): a session an administrator started as another
// user remembers that administrator, to show the banner and to give them their own session back.
// Deleting the administrator ends the sessions they impersonate with.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions')
    .addColumn('impersonator_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('impersonator_id').execute()
}
