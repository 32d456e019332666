// A user's explicit choice to be notified about an issue or a merge request or not (POST …/subscribe
// and …/unsubscribe), kept per user and project as the original keeps it; it overrides being
// subscribed as a participant (the finders' isSubscribed).
import type { Db } from '../../db/index.js'
import type { IssuableType } from '../../db/schema.js'
import { flag } from '../../db/values.js'

export async function setSubscription(
  db: Db, userId: number, target: { type: IssuableType; id: number; projectId: number }, subscribed: boolean,
): Promise<void> {
  const now = Date.now()
  await db.insertInto('subscriptions')
    .values({
      user_id: userId, subscribable_type: target.type, subscribable_id: target.id, project_id: target.projectId,
      subscribed: flag(subscribed), created_at: now, updated_at: now,
    })
    .onConflict((oc) => oc.columns(['subscribable_type', 'subscribable_id', 'user_id', 'project_id'])
      .doUpdateSet({ subscribed: flag(subscribed), updated_at: now }))
    .execute()
}
