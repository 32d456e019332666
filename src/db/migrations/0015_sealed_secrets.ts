// Secrets at rest: a web hook's token and an integration's settings (passwords, tokens, webhook
// URLs that carry a token) were kept in plain text; they are sealed with the instance's secret box
// (common/secret-box.ts), each in a column named for it, and the plain columns go. Built with the
// box, which the migrator is given.
import { sql, type Kysely, type Migration } from 'kysely'
import type { SecretBox } from '../../common/secret-box.js'

const BATCH = 500

/** Rewrites every row of `table` whose `from` is not null, `id` order, in batches. */
async function rewrite(
  db: Kysely<unknown>, table: string, from: string, to: string, change: (value: string) => string | null,
): Promise<void> {
  for (let after = 0; ;) {
    const { rows } = await sql<{ id: number; value: string }>`select id, ${sql.ref(from)} as value from ${sql.table(table)}
      where id > ${after} and ${sql.ref(from)} is not null order by id limit ${BATCH}`.execute(db)
    if (rows.length === 0) return
    for (const row of rows) await sql`update ${sql.table(table)} set ${sql.ref(to)} = ${change(row.value)} where id = ${row.id}`.execute(db)
    after = rows[rows.length - 1]!.id
  }
}

export function sealSecrets(secrets: SecretBox): Migration {
  return {
    async up(db) {
      await db.schema.alterTable('web_hooks').addColumn('encrypted_token', 'text').execute()
      await rewrite(db, 'web_hooks', 'token', 'encrypted_token', (token) => (token === '' ? null : secrets.seal('web_hooks.token', token)))
      await db.schema.alterTable('web_hooks').dropColumn('token').execute()
      await db.schema.alterTable('integrations').addColumn('encrypted_properties', 'text').execute()
      await rewrite(db, 'integrations', 'properties', 'encrypted_properties',
        (properties) => (properties === '{}' ? null : secrets.seal('integrations.secrets', properties)))
      await db.schema.alterTable('integrations').dropColumn('properties').execute()
    },
    async down(db) {
      await db.schema.alterTable('web_hooks').addColumn('token', 'text').execute()
      await rewrite(db, 'web_hooks', 'encrypted_token', 'token', (sealed) => secrets.open('web_hooks.token', sealed))
      await db.schema.alterTable('web_hooks').dropColumn('encrypted_token').execute()
      await db.schema.alterTable('integrations').addColumn('properties', 'text', (c) => c.notNull().defaultTo('{}')).execute()
      await rewrite(db, 'integrations', 'encrypted_properties', 'properties', (sealed) => secrets.open('integrations.secrets', sealed))
      await db.schema.alterTable('integrations').dropColumn('encrypted_properties').execute()
    },
  }
}
