// The maintained counts of the counters table (kept by triggers; see migration 0001), read through
// the read cache. The triggers write counters when users or projects change, so the cache depends
// on those tables too.
import type { Db } from '../db/index.js'
import { readCacheOf } from '../db/read-cache.js'

export type CounterName = 'users' | `projects.visibility.${0 | 10 | 20}`

export async function counterValue(db: Db, name: CounterName): Promise<number> {
  const load = async () => {
    const row = await db.selectFrom('counters').select('value').where('name', '=', name).executeTakeFirst()
    return Number(row?.value ?? 0)
  }
  const cache = readCacheOf<number>(db, 'counters', { tables: ['counters', 'users', 'projects'], maxWeight: 16 })
  return cache === null ? load() : cache.get(name, load)
}

/** How many users, projects and groups the instance holds (the admin area's overview). */
export async function instanceCounts(db: Db): Promise<{ users: number; projects: number; groups: number }> {
  const count = (rows: { n: string | number | bigint } | undefined) => Number(rows?.n ?? 0)
  const [users, projects, groups] = await Promise.all([
    db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
    db.selectFrom('projects').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst(),
    db.selectFrom('namespaces').select((eb) => eb.fn.countAll().as('n')).where('kind', '=', 'group').executeTakeFirst(),
  ])
  return { users: count(users), projects: count(projects), groups: count(groups) }
}
