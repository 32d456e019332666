// A user changing their own password (the profile's password page, the original's
// Profiles::PasswordsController): the current password proves it is them, the confirmation must
// match, and the instance's password rules and the end of the other sessions are update-user's.
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { passwordMatches } from '../../auth/secrets.js'
import { apiError, validationFailed } from '../../common/errors.js'
import { updateUser } from './update-user.js'

export interface ChangePasswordInput {
  currentPassword: string
  password: string
  passwordConfirmation: string
}

/** `by` is the user in the session they change it from, which stays signed in. */
export async function changeOwnPassword(db: Db, by: Actor, input: ChangePasswordInput): Promise<UserRow> {
  if (!await passwordMatches(by.user.password_digest, input.currentPassword)) {
    throw apiError(400, 'You must provide a valid current password')
  }
  if (input.password !== input.passwordConfirmation) throw validationFailed({ password_confirmation: ["doesn't match Password"] })
  return updateUser(db, by.user, { password: input.password }, { by })
}
