// Subscribing to a label, per project as the original keeps label subscriptions (projectId null for
// a group's label read through the group).
import type { Db } from '../../db/index.js'
import { flag } from '../../db/values.js'
import { isUniqueViolation } from '../projects/create-project.js'

export interface LabelSubscription {
  userId: number
  labelId: number
  projectId: number | null
}

/** Sets the subscription; false when it was in that state already (the API's 304). */
export async function setLabelSubscription(db: Db, target: LabelSubscription, subscribed: boolean): Promise<boolean> {
  try {
    return await writeSubscription(db, target, subscribed)
  } catch (err) {
    // A concurrent request of the same caller subscribed first.
    if (isUniqueViolation(err)) return false
    throw err
  }
}

function writeSubscription(db: Db, target: LabelSubscription, subscribed: boolean): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('subscriptions').select(['id', 'subscribed'])
      .where('subscribable_type', '=', 'Label').where('subscribable_id', '=', target.labelId).where('user_id', '=', target.userId)
      .where('project_id', target.projectId === null ? 'is' : '=', target.projectId)
      .executeTakeFirst()
    if ((existing?.subscribed === 1) === subscribed) return false
    const now = Date.now()
    if (existing !== undefined) {
      await trx.updateTable('subscriptions').set({ subscribed: flag(subscribed), updated_at: now }).where('id', '=', existing.id).execute()
    } else {
      await trx.insertInto('subscriptions').values({
        user_id: target.userId, subscribable_type: 'Label', subscribable_id: target.labelId, project_id: target.projectId,
        subscribed: flag(subscribed), created_at: now, updated_at: now,
      }).execute()
    }
    return true
  })
}
