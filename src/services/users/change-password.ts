// A user changing their own password (the profile's password page, the original's
// Profiles::PasswordsController): the current password proves it is them, the confirmation must
// match, and the instance's password rules and the end of the other sessions are update-user's.
// A wrong current password counts towards the sign-in bans as a wrong password at sign-in does:
// whoever holds a stolen session must not be able to guess the password through this form.
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { passwordMatches } from '../../auth/secrets.js'
import { apiError, validationFailed } from '../../common/errors.js'
import { accountKey, type SignInBans } from '../throttles/sign-in-bans.js'
import { updateUser } from './update-user.js'

export interface ChangePasswordInput {
  currentPassword: string
  password: string
  passwordConfirmation: string
}

/** Where the change comes from, for the sign-in bans. */
export interface PasswordChangeOrigin {
  bans: SignInBans
  address: string
}

/** `by` is the user in the session they change it from, which stays signed in. */
export async function changeOwnPassword(db: Db, by: Actor, input: ChangePasswordInput, origin: PasswordChangeOrigin): Promise<UserRow> {
  const attempt = { address: origin.address, account: accountKey(by.user.id, by.user.username) }
  // As at sign-in, a banned account's right password is refused too.
  if (!await passwordMatches(by.user.password_digest, input.currentPassword) || await origin.bans.accountBanned(attempt)) {
    await origin.bans.failed(attempt)
    throw apiError(400, 'You must provide a valid current password')
  }
  await origin.bans.succeeded(attempt)
  if (input.password !== input.passwordConfirmation) throw validationFailed({ password_confirmation: ["doesn't match Password"] })
  return updateUser(db, by.user, { password: input.password }, { by })
}
