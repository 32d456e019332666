// Who may read what of a user: a private profile (its creation date, its activity) shows only to
// the user and to administrators.
import type { Actor } from '../auth/actor.js'
import type { UserRow } from '../db/schema.js'

export function canReadUserProfile(actor: Actor | null, user: Pick<UserRow, 'id' | 'private_profile'>): boolean {
  return user.private_profile === 0 || actor?.user.admin === 1 || actor?.user.id === user.id
}
