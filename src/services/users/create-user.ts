// Creates a user and their personal namespace in one transaction (POST /users, the root seed).
// An email or username taken by another user is 409 as the original answers; other problems
// (a username taken by a group, an identity taken by another user) are 400 per field.
import type { Db } from '../../db/index.js'
import type { NewUser, UserRow } from '../../db/schema.js'
import { MAX_INTEGER, flag, type Flag } from '../../db/values.js'
import { conflict, validationFailed } from '../../common/errors.js'
import { collectErrors } from '../validation.js'
import { generatePassword, hashPassword } from '../../auth/secrets.js'
import { getApplicationSettings } from '../settings.js'
import { signupDomainErrors } from './signup-domains.js'
import { namespacePathErrors } from '../namespaces/path-rules.js'
import { PRIVATE } from '../../policies/access-levels.js'
import type { AppContext } from '../../context.js'
import { userSystemActivity } from '../hooks/system-payloads.js'

export interface UserProfileInput {
  bio?: string
  location?: string
  public_email?: string
  messenger?: string
  professional_network?: string
  microblog?: string
  website_url?: string
  organization?: string
}

export interface CreateUserInput extends UserProfileInput {
  email: string
  username: string
  name: string
  password?: string
  /** No usable password is set; the user resets it. Takes priority over password. */
  reset_password?: boolean
  projects_limit?: number
  extern_uid?: string
  provider?: string
  admin?: boolean
  can_create_group?: boolean
  skip_confirmation?: boolean
  external?: boolean
  private_profile?: boolean
}

export interface CreateUserOptions {
  /** A visitor signing themselves up (the web sign-up), not an administrator: the sign-up domain rules apply. */
  signUp?: boolean
}

const EMAIL = /^[^@\s]+@[^@\s]+$/

export function emailErrors(email: string): string[] {
  return EMAIL.test(email) && email.length <= 255 ? [] : ['is invalid']
}

export function passwordErrors(password: string): string[] {
  if (password.length < 8) return ['is too short (minimum is 8 characters)']
  if (password.length > 128) return ['is too long (maximum is 128 characters)']
  return []
}

/** The original's numericality rule: 0 up to the largest integer the column holds. */
export function projectsLimitErrors(limit: number | undefined): string[] {
  if (limit === undefined) return []
  if (limit < 0) return ['must be greater than or equal to 0']
  return limit > MAX_INTEGER ? [`must be less than or equal to ${MAX_INTEGER}`] : []
}

export function nameErrors(name: string): string[] {
  if (name.trim() === '') return ["can't be blank"]
  return name.length > 128 ? ['is too long (maximum is 128 characters)'] : []
}

/**
 * As the original saves every external user: they can create no groups and no personal projects,
 * whatever was asked.
 */
export function externalUserRights<T extends { can_create_group?: Flag; projects_limit?: number }>(external: boolean, rights: T): T {
  return external ? { ...rights, can_create_group: 0, projects_limit: 0 } : rights
}

export async function emailTaken(db: Db, email: string, exceptUserId?: number): Promise<boolean> {
  let query = db.selectFrom('users').select('id').where('email_lower', '=', email.toLowerCase())
  if (exceptUserId !== undefined) query = query.where('id', '!=', exceptUserId)
  return (await query.executeTakeFirst()) !== undefined
}

/** A user (not a group) with this username, other than exceptUserId. */
export async function usernameTakenByUser(db: Db, username: string, exceptUserId?: number): Promise<boolean> {
  let query = db.selectFrom('users').select('id').where('username_lower', '=', username.toLowerCase())
  if (exceptUserId !== undefined) query = query.where('id', '!=', exceptUserId)
  return (await query.executeTakeFirst()) !== undefined
}

/** An external identity (provider + extern_uid, the uid compared case-insensitively) held by another user. */
export async function identityTaken(db: Db, provider: string, externUid: string, exceptUserId?: number): Promise<boolean> {
  let query = db.selectFrom('identities').select('id')
    .where('provider', '=', provider)
    .where((eb) => eb(eb.fn('lower', ['extern_uid']), '=', externUid.toLowerCase()))
  if (exceptUserId !== undefined) query = query.where('user_id', '!=', exceptUserId)
  return (await query.executeTakeFirst()) !== undefined
}

/** The public email must be one of the user's own addresses (here: their email), or empty. */
export function publicEmailErrors(publicEmail: string | undefined, email: string): string[] {
  if (publicEmail === undefined || publicEmail === '') return []
  return publicEmail.toLowerCase() === email.toLowerCase() ? [] : ['is not an email you own']
}

/** Usernames share the top level of URLs with groups, so a group path takes a username too. */
export async function usernameTaken(db: Db, username: string, exceptUserId?: number): Promise<boolean> {
  let query = db.selectFrom('namespaces').select('id').where('full_path_lower', '=', username.toLowerCase())
  if (exceptUserId !== undefined) {
    query = query.where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '!=', exceptUserId)]))
  }
  return (await query.executeTakeFirst()) !== undefined
}

export async function createUser(
  ctx: AppContext, input: CreateUserInput, options: CreateUserOptions = {},
): Promise<UserRow> {
  const { db } = ctx
  const usePassword = !input.reset_password
  if (await emailTaken(db, input.email)) throw conflict('Email has already been taken')
  if (await usernameTakenByUser(db, input.username)) throw conflict('Username has already been taken')
  const usernameErrors = namespacePathErrors(input.username, true)
  if (await usernameTaken(db, input.username)) usernameErrors.push('has already been taken')
  const identity = input.extern_uid !== undefined && input.provider !== undefined
    ? { provider: input.provider, extern_uid: input.extern_uid }
    : null
  const settings = await getApplicationSettings(db)
  const errors = collectErrors({
    email: [...emailErrors(input.email), ...(options.signUp === true ? signupDomainErrors(settings, input.email) : [])],
    username: usernameErrors,
    name: nameErrors(input.name),
    password: !usePassword ? [] : input.password === undefined ? ["can't be blank"] : passwordErrors(input.password),
    projects_limit: projectsLimitErrors(input.projects_limit),
    public_email: publicEmailErrors(input.public_email, input.email),
    extern_uid: identity !== null && await identityTaken(db, identity.provider, identity.extern_uid) ? ['has already been taken'] : [],
  })
  if (errors !== null) throw validationFailed(errors)

  const passwordDigest = await hashPassword(usePassword && input.password !== undefined ? input.password : generatePassword())
  const now = Date.now()
  let created: UserRow
  try {
    created = await db.transaction().execute(async (trx) => {
      const user = await insertUserWithNamespace(trx, {
        username: input.username,
        username_lower: input.username.toLowerCase(),
        email: input.email,
        email_lower: input.email.toLowerCase(),
        name: input.name,
        password_digest: passwordDigest,
        password_expires_at: null,
        state: 'active',
        admin: flag(input.admin ?? false),
        external: flag(input.external ?? false),
        ghost: 0,
        ...externalUserRights(input.external === true, {
          can_create_group: flag(input.can_create_group ?? true),
          projects_limit: input.projects_limit ?? settings.default_projects_limit,
        }),
        private_profile: flag(input.private_profile ?? false),
        two_factor_enabled: 0,
        bio: input.bio ?? '',
        location: input.location ?? '',
        public_email: input.public_email ?? '',
        messenger: input.messenger ?? '',
        professional_network: input.professional_network ?? '',
        microblog: input.microblog ?? '',
        website_url: input.website_url ?? '',
        organization: input.organization ?? '',
        confirmed_at: input.skip_confirmation ? now : null,
        created_at: now,
        updated_at: now,
      })
      if (identity !== null) {
        await trx.insertInto('identities').values({ user_id: user.id, ...identity, created_at: now }).execute()
      }
      return user
    })
  } catch (err) {
    // A concurrent request took the email, username or identity between the checks and the insert.
    if (await emailTaken(db, input.email)) throw conflict('Email has already been taken')
    if (await usernameTakenByUser(db, input.username)) throw conflict('Username has already been taken')
    if (await usernameTaken(db, input.username)) throw validationFailed({ username: ['has already been taken'] })
    if (identity !== null && await identityTaken(db, identity.provider, identity.extern_uid)) {
      throw validationFailed({ extern_uid: ['has already been taken'] })
    }
    throw err
  }
  await ctx.activity.publish(userSystemActivity(created, 'create'), ctx)
  return created
}

/** Inserts the user row and their personal namespace (path = username); call inside a transaction. */
export async function insertUserWithNamespace(trx: Db, values: NewUser): Promise<UserRow> {
  const user = await trx.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow()
  await trx.insertInto('namespaces').values({
    kind: 'user',
    name: user.username,
    path: user.username,
    full_path: user.username,
    full_path_lower: user.username_lower,
    full_name: user.name,
    parent_id: null,
    owner_id: user.id,
    visibility_level: PRIVATE,
    created_at: user.created_at,
    updated_at: user.created_at,
  }).execute()
  return user
}
