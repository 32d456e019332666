// Updates a user's account and profile (PUT /users/:id). A username change renames the personal
// namespace, a name change its full name; a new password set for someone else must be changed at
// their next sign-in, and any new password ends the user's web sessions — whoever held one with the
// old password (a stolen cookie too) is signed out — but the session making the change.
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import type { UserRow, UserUpdate } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { apiError, validationFailed } from '../../common/errors.js'
import { hashPassword } from '../../auth/secrets.js'
import { namespacePathErrors } from '../namespaces/path-rules.js'
import { collectErrors } from '../validation.js'
import {
  emailErrors, emailTaken, externalUserRights, identityTaken, nameErrors, passwordErrors, projectsLimitErrors,
  publicEmailErrors, usernameTaken, usernameTakenByUser, type UserProfileInput,
} from './create-user.js'

export interface UpdateUserInput extends UserProfileInput {
  email?: string
  username?: string
  name?: string
  password?: string
  /** Accepted for compatibility: Ingot sends no confirmation mail, so a new email applies at once. */
  skip_reconfirmation?: boolean
  projects_limit?: number
  /** With provider: sets the user's identity for that provider (added when they have none). */
  extern_uid?: string
  provider?: string
  admin?: boolean
  can_create_group?: boolean
  external?: boolean
  private_profile?: boolean
}

const PROFILE_FIELDS = [
  'bio', 'location', 'public_email', 'messenger', 'professional_network', 'microblog', 'website_url', 'organization',
] as const

export interface UpdateUserOptions {
  /** Who makes the change (none from the command line): a user changing their own password keeps the session they do it in. */
  by?: Actor | null
}

export async function updateUser(db: Db, user: UserRow, input: UpdateUserInput, options: UpdateUserOptions = {}): Promise<UserRow> {
  // The original answers these clashes with 404, not 409 (spec: Errors, rule 3).
  if (input.email !== undefined && await emailTaken(db, input.email, user.id)) throw apiError(404, 'Email has already been taken')
  if (input.username !== undefined && await usernameTakenByUser(db, input.username, user.id)) {
    throw apiError(404, 'Username has already been taken')
  }
  const usernameErrors = input.username === undefined ? [] : namespacePathErrors(input.username, true)
  if (input.username !== undefined && await usernameTaken(db, input.username, user.id)) usernameErrors.push('has already been taken')
  const identity = input.extern_uid !== undefined && input.provider !== undefined
    ? { provider: input.provider, extern_uid: input.extern_uid }
    : null
  const errors = collectErrors({
    email: input.email === undefined ? [] : emailErrors(input.email),
    username: usernameErrors,
    name: input.name === undefined ? [] : nameErrors(input.name),
    password: input.password === undefined ? [] : passwordErrors(input.password),
    projects_limit: projectsLimitErrors(input.projects_limit),
    public_email: input.public_email === undefined ? [] : publicEmailErrors(input.public_email, input.email ?? user.email),
    extern_uid: identity !== null && await identityTaken(db, identity.provider, identity.extern_uid, user.id) ? ['has already been taken'] : [],
  })
  if (errors !== null) throw validationFailed(errors)

  const now = Date.now()
  const changes: UserUpdate = { updated_at: now }
  for (const field of PROFILE_FIELDS) if (input[field] !== undefined) changes[field] = input[field]
  if (input.email !== undefined) Object.assign(changes, { email: input.email, email_lower: input.email.toLowerCase() })
  if (input.username !== undefined) Object.assign(changes, { username: input.username, username_lower: input.username.toLowerCase() })
  if (input.name !== undefined) changes.name = input.name
  if (input.password !== undefined) {
    // A password set by someone else must be changed at the next sign-in; one the user chose need not.
    const ownPassword = options.by?.user.id === user.id
    Object.assign(changes, { password_digest: await hashPassword(input.password), password_expires_at: ownPassword ? null : now })
  }
  if (input.projects_limit !== undefined) changes.projects_limit = input.projects_limit
  if (input.admin !== undefined) changes.admin = flag(input.admin)
  if (input.can_create_group !== undefined) changes.can_create_group = flag(input.can_create_group)
  if (input.external !== undefined) changes.external = flag(input.external)
  if (input.private_profile !== undefined) changes.private_profile = flag(input.private_profile)
  Object.assign(changes, externalUserRights(input.external ?? user.external === 1, {}))

  try {
    return await db.transaction().execute(async (trx) => {
      const updated = await trx.updateTable('users').set(changes).where('id', '=', user.id).returningAll().executeTakeFirstOrThrow()
      if (input.username !== undefined || input.name !== undefined) {
        await trx.updateTable('namespaces').set({
          name: updated.username,
          path: updated.username,
          full_path: updated.username,
          full_path_lower: updated.username_lower,
          full_name: updated.name,
          updated_at: now,
        }).where('owner_id', '=', user.id).where('kind', '=', 'user').execute()
      }
      if (identity !== null) await setIdentity(trx, user.id, identity, now)
      if (input.password !== undefined) {
        const kept = options.by?.user.id === user.id ? options.by.sessionId : undefined
        await trx.deleteFrom('sessions').where('user_id', '=', user.id)
          .$if(kept !== undefined, (q) => q.where('id', '<>', kept!)).execute()
      }
      return updated
    })
  } catch (err) {
    // A concurrent request took the email, username or identity between the checks and the update.
    if (input.email !== undefined && await emailTaken(db, input.email, user.id)) throw apiError(404, 'Email has already been taken')
    if (input.username !== undefined && await usernameTaken(db, input.username, user.id)) {
      throw apiError(404, 'Username has already been taken')
    }
    if (identity !== null && await identityTaken(db, identity.provider, identity.extern_uid, user.id)) {
      throw validationFailed({ extern_uid: ['has already been taken'] })
    }
    throw err
  }
}

/** The user's identity for the provider gets this uid; one is added when they have none. */
async function setIdentity(trx: Db, userId: number, identity: { provider: string; extern_uid: string }, now: number): Promise<void> {
  const existing = await trx.selectFrom('identities').select('id')
    .where('user_id', '=', userId).where('provider', '=', identity.provider).executeTakeFirst()
  if (existing === undefined) {
    await trx.insertInto('identities').values({ user_id: userId, ...identity, created_at: now }).execute()
  } else {
    await trx.updateTable('identities').set({ extern_uid: identity.extern_uid }).where('id', '=', existing.id).execute()
  }
}
