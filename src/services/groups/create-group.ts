// Creates a group, top-level or nested under parent_id, with its creator as Owner (POST /groups).
// Who may create it is the route's question; this checks the group itself.
import type { NamespaceRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import type { Actor } from '../../auth/actor.js'
import { validationFailed } from '../../common/errors.js'
import { OWNER, visibilityLevel, type Visibility } from '../../policies/access-levels.js'
import { getApplicationSettings } from '../settings.js'
import { visibilityErrors } from '../namespaces/visibility-rules.js'
import { collectErrors } from '../validation.js'
import { groupNameErrors, groupPathErrors } from './group-rules.js'
import type { AppContext } from '../../context.js'
import { groupSystemActivities } from '../hooks/system-payloads.js'

export { fullPathTaken } from './group-rules.js'

export interface CreateGroupInput {
  name: string
  path: string
  description?: string
  visibility?: Visibility
  lfs_enabled?: boolean
  request_access_enabled?: boolean
  /** The parent group, already loaded and authorized by the caller. */
  parent?: NamespaceRow | null
}

export async function createGroup(ctx: AppContext, actor: Actor, input: CreateGroupInput): Promise<NamespaceRow> {
  const { db } = ctx
  const parent = input.parent ?? null
  const settings = await getApplicationSettings(db)
  const visibility = input.visibility ?? settings.default_group_visibility
  const level = visibilityLevel(visibility)
  const fullPath = parent === null ? input.path : `${parent.full_path}/${input.path}`
  const errors = collectErrors({
    name: await groupNameErrors(db, input.name, parent),
    path: await groupPathErrors(db, input.path, parent),
    visibility_level: visibilityErrors(visibility, level, parent, actor, settings, 'group'),
  })
  if (errors !== null) throw validationFailed(errors)

  const now = Date.now()
  const created = await db.transaction().execute(async (trx) => {
    const group = await trx.insertInto('namespaces').values({
      kind: 'group',
      name: input.name,
      path: input.path,
      full_path: fullPath,
      full_path_lower: fullPath.toLowerCase(),
      full_name: parent === null ? input.name : `${parent.full_name} / ${input.name}`,
      parent_id: parent?.id ?? null,
      owner_id: null,
      description: input.description ?? '',
      visibility_level: level,
      lfs_enabled: flag(input.lfs_enabled ?? true),
      request_access_enabled: flag(input.request_access_enabled ?? false),
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    await trx.insertInto('members').values({
      source_type: 'group', source_id: group.id, user_id: actor.user.id, access_level: OWNER,
      expires_at: null, created_by_id: actor.user.id, created_at: now, updated_at: now,
    }).execute()
    return group
  })
  for (const event of await groupSystemActivities(db, [created], 'create')) await ctx.activity.publish(event, ctx)
  return created
}
