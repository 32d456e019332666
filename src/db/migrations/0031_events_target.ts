// Events by their target: the project export reads the events of a batch of issues, merge
// requests, notes or milestones at once (services/import-export/export-tree-records.ts), which
// without this index would scan every event of the project for each batch.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('events_target').on('events').columns(['target_type', 'target_id', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_target').execute()
}
