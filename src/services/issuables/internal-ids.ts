// Per-project (and per-group) numbers: the iids of issues, merge requests and milestones. One upsert
// bumps the owner's sequence inside the creating transaction, so concurrent creators on either
// database serialize on the sequence row and never share or skip a number.
import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import type { InternalIdsTable } from '../../db/schema.js'

export async function nextInternalId(
  trx: Db, owner: { type: InternalIdsTable['owner_type']; id: number }, usage: InternalIdsTable['usage'],
): Promise<number> {
  const row = await trx.insertInto('internal_ids')
    .values({ owner_type: owner.type, owner_id: owner.id, usage, last_value: 1 })
    .onConflict((oc) => oc.columns(['owner_type', 'owner_id', 'usage'])
      .doUpdateSet({ last_value: sql<number>`internal_ids.last_value + 1` }))
    .returning('last_value')
    .executeTakeFirstOrThrow()
  return Number(row.last_value)
}
