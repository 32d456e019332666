// User entities (spec: User), from the smallest to the largest form:
//   UserBasic      id, name, username, state, avatar_url, web_url (lists, embedded authors)
//   User           + created_at and the public profile (GET /users/:id)
//   UserWithAdmin  + email, is_admin and the account fields (admins, and the current user)
import { Type, type Static } from '@sinclair/typebox'
import type { IdentityRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { canReadUserProfile } from '../policies/user-policy.js'
import { CustomAttribute, IsoDateTime, Nullable, NullableDate, NullableDateTime, NullableString, type CustomAttributeEntity, type PresentContext } from './common.js'

export const UserBasic = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  username: Type.String(),
  state: Type.String(),
  avatar_url: NullableString,
  web_url: Type.String(),
  custom_attributes: Type.Optional(Type.Array(CustomAttribute)),
})
export type UserBasicEntity = Static<typeof UserBasic>

const profileFields = {
  /** Hidden on a private profile from everyone but the user and administrators. */
  created_at: Type.Optional(IsoDateTime),
  bio: NullableString,
  location: NullableString,
  public_email: Type.String(),
  messenger: Type.String(),
  professional_network: Type.String(),
  microblog: Type.String(),
  website_url: Type.String(),
  organization: NullableString,
}

export const User = Type.Composite([UserBasic, Type.Object(profileFields)])
export type UserEntity = Static<typeof User>

export const Identity = Type.Object({ provider: Type.String(), extern_uid: Type.String() })

export const UserWithAdmin = Type.Composite([User, Type.Object({
  last_sign_in_at: NullableDateTime,
  confirmed_at: NullableDateTime,
  last_activity_on: NullableDate,
  email: Type.String(),
  theme_id: Type.Integer(),
  color_scheme_id: Type.Integer(),
  projects_limit: Type.Integer(),
  current_sign_in_at: NullableDateTime,
  identities: Type.Array(Identity),
  can_create_group: Type.Boolean(),
  can_create_project: Type.Boolean(),
  two_factor_enabled: Type.Boolean(),
  external: Type.Boolean(),
  private_profile: Type.Boolean(),
  is_admin: Type.Boolean(),
})])
export type UserWithAdminEntity = Static<typeof UserWithAdmin>

/**
 * The response schema of routes that answer a smaller or a larger form depending on the caller
 * (GET /users, GET /users/:id): UserBasic's fields required, every other field optional.
 */
export const UserAnyForm = Type.Object({ ...Type.Partial(UserWithAdmin).properties, ...UserBasic.properties })

/** The brief user embedded in other resources, with `created_at` where the spec shows it. */
export const UserWithCreatedAt = Type.Composite([UserBasic, Type.Object({ created_at: IsoDateTime })])

export const NullableUserBasic = Nullable(UserBasic)

/** What the larger forms need beyond the row, loaded in bulk by the caller. */
export interface UserAccountView {
  user: UserRow
  identities: IdentityRow[]
  /** Projects in the user's personal namespace, for can_create_project. */
  personalProjectCount: number
}

export function userWebUrl(username: string, ctx: PresentContext): string {
  return `${ctx.baseUrl}/${username}`
}

export function userAvatarUrl(user: Pick<UserRow, 'avatar_path'>, ctx: PresentContext): string | null {
  return user.avatar_path === null ? null : `${ctx.baseUrl}/uploads/${user.avatar_path}`
}

export function presentUserBasic(user: UserRow, ctx: PresentContext, customAttributes?: CustomAttributeEntity[]): UserBasicEntity {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    state: user.state,
    avatar_url: userAvatarUrl(user, ctx),
    web_url: userWebUrl(user.username, ctx),
    ...(customAttributes === undefined ? {} : { custom_attributes: customAttributes }),
  }
}

export function presentUser(user: UserRow, ctx: PresentContext, customAttributes?: CustomAttributeEntity[]): UserEntity {
  return {
    ...presentUserBasic(user, ctx, customAttributes),
    ...(canReadUserProfile(ctx.actor, user) ? { created_at: isoTime(user.created_at) } : {}),
    bio: user.bio === '' ? null : user.bio,
    location: user.location === '' ? null : user.location,
    public_email: user.public_email,
    messenger: user.messenger,
    professional_network: user.professional_network,
    microblog: user.microblog,
    website_url: user.website_url,
    organization: user.organization === '' ? null : user.organization,
  }
}

export function presentUserWithAdmin(view: UserAccountView, ctx: PresentContext, customAttributes?: CustomAttributeEntity[]): UserWithAdminEntity {
  const { user } = view
  return {
    ...presentUser(user, ctx, customAttributes),
    last_sign_in_at: isoTime(user.last_sign_in_at),
    confirmed_at: isoTime(user.confirmed_at),
    last_activity_on: user.last_activity_on,
    email: user.email,
    theme_id: user.theme_id,
    color_scheme_id: user.color_scheme_id,
    projects_limit: user.projects_limit,
    current_sign_in_at: isoTime(user.current_sign_in_at),
    identities: view.identities.map((i) => ({ provider: i.provider, extern_uid: i.extern_uid })),
    can_create_group: user.can_create_group === 1,
    can_create_project: user.projects_limit > view.personalProjectCount,
    two_factor_enabled: user.two_factor_enabled === 1,
    external: user.external === 1,
    private_profile: user.private_profile === 1,
    is_admin: user.admin === 1,
  }
}
