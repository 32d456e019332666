// Subscribing to an issue (POST …/subscribe, …/unsubscribe): the caller's explicit choice, which
// overrides being subscribed as a participant (finders/issues-finder.ts isSubscribed).
import type { Db } from '../../db/index.js'
import type { IssueRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { isUniqueViolation } from '../projects/create-project.js'

export async function setIssueSubscription(db: Db, userId: number, issue: IssueRow, subscribed: boolean): Promise<void> {
  const now = Date.now()
  const choose = () => db.transaction().execute(async (trx) => {
    const updated = await trx.updateTable('subscriptions').set({ subscribed: flag(subscribed), updated_at: now })
      .where('subscribable_type', '=', 'Issue').where('subscribable_id', '=', issue.id).where('user_id', '=', userId)
      .executeTakeFirst()
    if (Number(updated.numUpdatedRows) > 0) return
    await trx.insertInto('subscriptions').values({
      user_id: userId, subscribable_type: 'Issue', subscribable_id: issue.id, project_id: issue.project_id,
      subscribed: flag(subscribed), created_at: now, updated_at: now,
    }).execute()
  })
  try {
    await choose()
  } catch (err) {
    // A concurrent request of the same caller chose first; this choice is the later one.
    if (isUniqueViolation(err)) await choose()
    else throw err
  }
}
