// Who may read what of a user: a private profile (its creation date, its activity) shows only to
// the user and to administrators; which scopes a user may hand out.
import type { Actor, Scope } from '../auth/actor.js'
import type { UserRow } from '../db/schema.js'

export function canReadUserProfile(actor: Actor | null, user: Pick<UserRow, 'id' | 'private_profile'>): boolean {
  return user.private_profile === 0 || actor?.user.admin === 1 || actor?.user.id === user.id
}

/** The scopes a user may give a token or an application (the original's available_scopes_for): sudo for administrators only. */
export function grantableScopes(user: Pick<UserRow, 'admin'>, scopes: readonly Scope[]): Scope[] {
  return scopes.filter((scope) => scope !== 'sudo' || user.admin === 1)
}
