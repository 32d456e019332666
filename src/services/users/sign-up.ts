// A visitor signing up on the web: allowed while signup_enabled and password sign-in are both on
// (the original's allow_signup?), with the admin API's user validation plus the sign-up domain
// rules, and, while terms are enforced, only with the terms accepted (recorded for the new user).
import type { AppContext } from '../../context.js'
import type { UserRow } from '../../db/schema.js'
import { getApplicationSettings } from '../settings.js'
import { createUser } from './create-user.js'
import { acceptTerms } from './accept-terms.js'

export interface SignUpInput {
  name: string
  username: string
  email: string
  password: string
  termsAccepted: boolean
}

export type SignUpResult =
  | { kind: 'signed_up'; user: UserRow }
  | { kind: 'sign_up_disabled' }
  | { kind: 'terms_not_accepted' }

/** Throws the admin API's validation errors (ApiError) for input it refuses. */
export async function signUp(ctx: AppContext, input: SignUpInput): Promise<SignUpResult> {
  const { db } = ctx
  const settings = await getApplicationSettings(db)
  if (!settings.signup_enabled || !settings.password_authentication_enabled_for_web) return { kind: 'sign_up_disabled' }
  if (settings.enforce_terms && !input.termsAccepted) return { kind: 'terms_not_accepted' }
  const user = await createUser(ctx, {
    name: input.name, username: input.username, email: input.email, password: input.password,
  }, { signUp: true })
  if (settings.enforce_terms) await acceptTerms(db, user.id)
  return { kind: 'signed_up', user }
}
