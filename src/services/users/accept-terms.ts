// Accepting the instance's terms (enforce_terms): recorded once per user; later versions of the
// text do not ask again, as the original (release 11.5) only asks whether a user ever accepted.
import type { Db } from '../../db/index.js'

export async function acceptTerms(db: Db, userId: number): Promise<void> {
  await db.updateTable('users').set({ terms_accepted_at: Date.now() })
    .where('id', '=', userId).where('terms_accepted_at', 'is', null).execute()
}
