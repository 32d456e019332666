// After a key rotation (INGOT_SECRET_KEY replaced, the old key in INGOT_PREVIOUS_SECRET_KEYS), every
// process reseals at start what is still sealed with a previous key, so that the previous key can
// be dropped once one process has started. Each value is replaced only if it is still the one read,
// so processes starting together do not undo each other's work.
import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import type { SecretBox, SecretPurpose } from '../../common/secret-box.js'

/** Every column holding sealed values, with its purpose. A new kind of secret adds its column here. */
const SEALED_COLUMNS: readonly { table: string; column: string; purpose: SecretPurpose }[] = [
  { table: 'web_hooks', column: 'encrypted_token', purpose: 'web_hooks.token' },
  { table: 'integrations', column: 'encrypted_properties', purpose: 'integrations.secrets' },
  { table: 'ci_pipeline_variables', column: 'encrypted_value', purpose: 'ci.pipeline_variables' },
  { table: 'ci_variables', column: 'encrypted_value', purpose: 'ci.variables' },
  { table: 'ci_triggers', column: 'encrypted_token', purpose: 'ci.triggers' },
  { table: 'ci_pipeline_schedule_variables', column: 'encrypted_value', purpose: 'ci.pipeline_schedule_variables' },
]

const BATCH = 500

/**
 * Ids of keys that sealed stored secrets and that Ingot does not have (the key file was lost, or
 * INGOT_SECRET_KEY changed without INGOT_PREVIOUS_SECRET_KEYS), judged by the latest value of each
 * column: a start with the wrong key says so at once, not at the first delivery.
 */
export async function missingSecretKeys(db: Db, secrets: SecretBox): Promise<string[]> {
  const missing = new Set<string>()
  for (const { table, column } of SEALED_COLUMNS) {
    const { rows } = await sql<{ value: string }>`select ${sql.ref(column)} as value from ${sql.table(table)}
      where ${sql.ref(column)} is not null order by id desc limit 1`.execute(db)
    const keyId = rows[0] === undefined ? null : secrets.missingKeyOf(rows[0].value)
    if (keyId !== null) missing.add(keyId)
  }
  return [...missing]
}

/** Reseals values sealed with a previous key; returns how many. Nothing to do without previous keys. */
export async function resealSecrets(db: Db, secrets: SecretBox): Promise<number> {
  if (!secrets.hasPreviousKeys()) return 0
  let resealed = 0
  for (const { table, column, purpose } of SEALED_COLUMNS) {
    for (let after = 0; ;) {
      const { rows } = await sql<{ id: number; value: string }>`select id, ${sql.ref(column)} as value from ${sql.table(table)}
        where id > ${after} and ${sql.ref(column)} is not null order by id limit ${BATCH}`.execute(db)
      if (rows.length === 0) break
      for (const row of rows.filter((r) => secrets.sealedWithPreviousKey(r.value))) {
        const value = secrets.seal(purpose, secrets.open(purpose, row.value))
        const result = await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${value}
          where id = ${row.id} and ${sql.ref(column)} = ${row.value}`.execute(db)
        resealed += Number(result.numAffectedRows ?? 0)
      }
      after = rows[rows.length - 1]!.id
    }
  }
  return resealed
}
