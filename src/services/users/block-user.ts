// Blocking and unblocking a user (POST /users/:id/block, /unblock). A blocked user's tokens are
// refused at authentication. Each answers whether the state changed, as the original does.
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'

export async function blockUser(db: Db, user: UserRow): Promise<boolean> {
  return changeState(db, user, 'active', 'blocked')
}

export async function unblockUser(db: Db, user: UserRow): Promise<boolean> {
  return changeState(db, user, 'blocked', 'active')
}

async function changeState(db: Db, user: UserRow, from: UserRow['state'], to: UserRow['state']): Promise<boolean> {
  const result = await db.updateTable('users').set({ state: to, updated_at: Date.now() })
    .where('id', '=', user.id).where('state', '=', from).executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
