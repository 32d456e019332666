// The embedded job engine (jobs/table-store.ts) keeps every job's state: waiting, running under a
// short lease that its process renews, or dead after its last attempt (kept for operators to list
// and retry). A running job may hold an exclusive key (one running per key); keys are prefixed with
// their kind. Kinds are renamed to `<capability>.<verb_object>`; recurring jobs are dropped, as they
// are scheduled anew by cron at start.
import { sql, type Kysely } from 'kysely'

const RENAMED_KINDS: readonly [string, string][] = [
  ['notifications.event', 'notifications.fan_out'],
  ['integrations.emails_on_push', 'integrations.send_push_email'],
  ['integrations.chat_webhook', 'integrations.post_chat_message'],
  ['merge_requests.recheck', 'merge_requests.recheck_merge_status'],
  ['project.refresh_statistics', 'projects.refresh_statistics'],
  ['project.housekeeping', 'projects.housekeep_repository'],
]

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from jobs where unique_key like 'recurring:%'`.execute(db)
  for (const [from, to] of RENAMED_KINDS) await sql`update jobs set kind = ${to} where kind = ${from}`.execute(db)
  // Keys hold per kind, so the one unique column holds them prefixed with the kind.
  await sql`update jobs set unique_key = kind || ':' || unique_key where unique_key is not null`.execute(db)
  // Housekeeping holds one running job per repository: its key is exclusive.
  await db.schema.alterTable('jobs').addColumn('exclusive_key', 'text').execute()
  await sql`update jobs set exclusive_key = unique_key where kind = 'projects.housekeep_repository'`.execute(db)
  // Every process stopped for the upgrade: no claim survives it.
  await db.schema.alterTable('jobs').dropColumn('locked_until').execute()
  await db.schema.alterTable('jobs').addColumn('state', 'text', (c) => c.notNull().defaultTo('waiting')).execute()
  await db.schema.alterTable('jobs').addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(5)).execute()
  await db.schema.alterTable('jobs').addColumn('lease_until', 'bigint').execute()
  await db.schema.alterTable('jobs').addColumn('claim', 'text').execute()
  await db.schema.alterTable('jobs').addColumn('started_at', 'bigint').execute()
  await db.schema.alterTable('jobs').addColumn('finished_at', 'bigint').execute()
  await db.schema.alterTable('jobs').addColumn('request_id', 'text').execute()
  await db.schema.dropIndex('jobs_run_at').execute()
  await db.schema.createIndex('jobs_state_kind_run_at').on('jobs').columns(['state', 'kind', 'run_at']).execute()
  await db.schema.createIndex('jobs_state_lease_until').on('jobs').columns(['state', 'lease_until']).execute()
  await db.schema.createIndex('jobs_exclusive_key').on('jobs').columns(['exclusive_key', 'state']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from jobs where state <> 'waiting'`.execute(db)
  await db.schema.dropIndex('jobs_exclusive_key').execute()
  await db.schema.dropIndex('jobs_state_lease_until').execute()
  await db.schema.dropIndex('jobs_state_kind_run_at').execute()
  for (const column of ['request_id', 'finished_at', 'started_at', 'claim', 'lease_until', 'max_attempts', 'state', 'exclusive_key']) {
    await db.schema.alterTable('jobs').dropColumn(column).execute()
  }
  await db.schema.alterTable('jobs').addColumn('locked_until', 'bigint').execute()
  await sql`update jobs set unique_key = substr(unique_key, length(kind) + 2) where unique_key is not null`.execute(db)
  for (const [from, to] of RENAMED_KINDS) await sql`update jobs set kind = ${from} where kind = ${to}`.execute(db)
  await db.schema.createIndex('jobs_run_at').on('jobs').columns(['run_at', 'id']).execute()
}
