// A user's explicit choice to be notified about a merge request or not (POST …/subscribe and
// …/unsubscribe), kept per user and target project as the original keeps it.
import type { Db } from '../../db/index.js'
import type { MergeRequestRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'

export async function setMergeRequestSubscription(db: Db, userId: number, mr: MergeRequestRow, subscribed: boolean): Promise<void> {
  const now = Date.now()
  await db.insertInto('subscriptions')
    .values({
      user_id: userId, subscribable_type: 'MergeRequest', subscribable_id: mr.id, project_id: mr.target_project_id,
      subscribed: flag(subscribed), created_at: now, updated_at: now,
    })
    .onConflict((oc) => oc.columns(['subscribable_type', 'subscribable_id', 'user_id', 'project_id'])
      .doUpdateSet({ subscribed: flag(subscribed), updated_at: now }))
    .execute()
}
