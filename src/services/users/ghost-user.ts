// The ghost: the placeholder user that keeps the contributions of deleted users. Created on first
// need; it has no password, is blocked (it can never authenticate) and is hidden from every lookup.
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { insertUserWithNamespace } from './create-user.js'

const GHOST_BIO = 'This is a "Ghost User", created to hold all issues authored by users that have since been deleted. This user cannot be removed.'

/**
 * The ghost user, created (as `ghost`, or `ghost1`, `ghost2`… when taken) if there is none yet, in a
 * transaction of its own: call it with the database, not inside another transaction.
 */
export async function ensureGhostUser(db: Db, emailDomain: string): Promise<UserRow> {
  const existing = await findGhostUser(db)
  if (existing !== undefined) return existing
  try {
    return await db.transaction().execute((trx) => createGhostUser(trx, emailDomain))
  } catch (err) {
    // Another request created it at the same time.
    const raced = await findGhostUser(db)
    if (raced !== undefined) return raced
    throw err
  }
}

function findGhostUser(db: Db): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('ghost', '=', 1).orderBy('id').executeTakeFirst()
}

async function createGhostUser(trx: Db, emailDomain: string): Promise<UserRow> {
  const username = await firstFree('ghost', async (candidate) =>
    (await trx.selectFrom('namespaces').select('id').where('full_path_lower', '=', candidate).executeTakeFirst()) !== undefined)
  const email = await firstFree('ghost', async (candidate) =>
    (await trx.selectFrom('users').select('id').where('email_lower', '=', `${candidate}@${emailDomain}`.toLowerCase()).executeTakeFirst()) !== undefined)
  const now = Date.now()
  return insertUserWithNamespace(trx, {
    username,
    username_lower: username,
    email: `${email}@${emailDomain}`,
    email_lower: `${email}@${emailDomain}`.toLowerCase(),
    name: 'Ghost User',
    bio: GHOST_BIO,
    password_digest: null,
    password_expires_at: null,
    state: 'blocked',
    ghost: 1,
    can_create_group: 0,
    projects_limit: 0,
    confirmed_at: now,
    created_at: now,
    updated_at: now,
  })
}

/** `base`, or `base1`, `base2`… : the first one `taken` says is free. */
async function firstFree(base: string, taken: (candidate: string) => Promise<boolean>): Promise<string> {
  for (let n = 0; ; n += 1) {
    const candidate = n === 0 ? base : `${base}${n}`
    if (!(await taken(candidate))) return candidate
  }
}
