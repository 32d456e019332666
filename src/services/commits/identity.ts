// The identity a user's API writes carry in git (committer, and author unless overridden): the
// account's name and email, as the original signs web and API commits.
import type { UserRow } from '../../db/schema.js'

export interface GitIdentity {
  name: string
  email: string
}

export function gitIdentityOf(user: Pick<UserRow, 'name' | 'email'>): GitIdentity {
  return { name: user.name, email: user.email }
}
