// User entities (spec: User), from the smallest to the largest form:
//   UserBasic      id, name, username, state, avatar_url, web_url (lists, embedded authors)
//   User           + created_at and the public profile (GET /users/:id)
//   UserWithAdmin  + email, is_admin and the account fields (admins, and the current user)
import { Type, type Static } from '@sinclair/typebox'
import type { IdentityRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { canReadUserProfile } from '../policies/user-policy.js'
import { CustomAttribute, IsoDateTime, NullableDate, NullableDateTime, NullableString, type CustomAttributeEntity, type PresentContext } from './common.js'

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

type UserForm = 'basic' | 'profile' | 'admin'

/** Every field of T, each possibly undefined. */
type Sparse<T> = { [K in keyof T]: T[K] | undefined }

/**
 * Every form from one object literal of a fixed shape, the fields beyond the form left undefined
 * (the serializer skips them): user lists and embedded authors present many users per request, and
 * literals assembled from spreads cost several times more.
 */
function presentUserForm(
  user: UserRow, ctx: PresentContext, form: UserForm, account: UserAccountView | null, customAttributes?: CustomAttributeEntity[],
): Sparse<UserWithAdminEntity> {
  const profile = form !== 'basic'
  const admin = form === 'admin' && account !== null
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    state: user.state,
    avatar_url: userAvatarUrl(user, ctx),
    web_url: userWebUrl(user.username, ctx),
    custom_attributes: customAttributes,
    created_at: profile && canReadUserProfile(ctx.actor, user) ? isoTime(user.created_at) : undefined,
    bio: profile ? (user.bio === '' ? null : user.bio) : undefined,
    location: profile ? (user.location === '' ? null : user.location) : undefined,
    public_email: profile ? user.public_email : undefined,
    messenger: profile ? user.messenger : undefined,
    professional_network: profile ? user.professional_network : undefined,
    microblog: profile ? user.microblog : undefined,
    website_url: profile ? user.website_url : undefined,
    organization: profile ? (user.organization === '' ? null : user.organization) : undefined,
    last_sign_in_at: admin ? isoTime(user.last_sign_in_at) : undefined,
    confirmed_at: admin ? isoTime(user.confirmed_at) : undefined,
    last_activity_on: admin ? user.last_activity_on : undefined,
    email: admin ? user.email : undefined,
    theme_id: admin ? user.theme_id : undefined,
    color_scheme_id: admin ? user.color_scheme_id : undefined,
    projects_limit: admin ? user.projects_limit : undefined,
    current_sign_in_at: admin ? isoTime(user.current_sign_in_at) : undefined,
    identities: admin ? account.identities.map((i) => ({ provider: i.provider, extern_uid: i.extern_uid })) : undefined,
    can_create_group: admin ? user.can_create_group === 1 : undefined,
    can_create_project: admin ? user.projects_limit > account.personalProjectCount : undefined,
    two_factor_enabled: admin ? user.two_factor_enabled === 1 : undefined,
    external: admin ? user.external === 1 : undefined,
    private_profile: admin ? user.private_profile === 1 : undefined,
    is_admin: admin ? user.admin === 1 : undefined,
  }
}

export function presentUserBasic(user: UserRow, ctx: PresentContext, customAttributes?: CustomAttributeEntity[]): UserBasicEntity {
  return presentUserForm(user, ctx, 'basic', null, customAttributes) as UserBasicEntity
}

export function presentUser(user: UserRow, ctx: PresentContext, customAttributes?: CustomAttributeEntity[]): UserEntity {
  return presentUserForm(user, ctx, 'profile', null, customAttributes) as UserEntity
}

export function presentUserWithAdmin(view: UserAccountView, ctx: PresentContext, customAttributes?: CustomAttributeEntity[]): UserWithAdminEntity {
  return presentUserForm(view.user, ctx, 'admin', view, customAttributes) as UserWithAdminEntity
}
