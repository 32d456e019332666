// Updates a group's settings (PUT /groups/:id). A new path or name is carried into the full_path,
// full_path_lower and full_name of every descendant group in the same transaction; projects follow
// by themselves, since their paths and URLs derive from their namespace.
import { sql } from 'kysely'
import type { Db } from '../../db/index.js'
import type { NamespaceRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import type { Actor } from '../../auth/actor.js'
import { validationFailed } from '../../common/errors.js'
import { visibilityLevel, type Visibility } from '../../policies/access-levels.js'
import { getApplicationSettings } from '../settings.js'
import { visibilityErrors } from '../namespaces/visibility-rules.js'
import { collectErrors } from '../validation.js'
import { groupNameErrors, groupPathErrors, visibilityBelowContentErrors } from './group-rules.js'

export interface UpdateGroupInput {
  name?: string
  path?: string
  description?: string
  visibility?: Visibility
  lfs_enabled?: boolean
  request_access_enabled?: boolean
}

export async function updateGroup(db: Db, actor: Actor, group: NamespaceRow, input: UpdateGroupInput): Promise<NamespaceRow> {
  const parent = group.parent_id === null
    ? null
    : await db.selectFrom('namespaces').selectAll().where('id', '=', group.parent_id).executeTakeFirstOrThrow()
  const name = input.name ?? group.name
  const path = input.path ?? group.path
  const level = input.visibility === undefined ? group.visibility_level : visibilityLevel(input.visibility)
  const errors = collectErrors({
    name: name === group.name ? [] : await groupNameErrors(db, name, parent, group.id),
    path: path === group.path ? [] : await groupPathErrors(db, path, parent, group.id),
    visibility_level: input.visibility === undefined ? [] : [
      ...visibilityErrors(input.visibility, level, parent, actor, await getApplicationSettings(db), 'group'),
      ...await visibilityBelowContentErrors(db, group, level),
    ],
  })
  if (errors !== null) throw validationFailed(errors)

  const fullPath = parent === null ? path : `${parent.full_path}/${path}`
  const fullName = parent === null ? name : `${parent.full_name} / ${name}`
  return db.transaction().execute(async (trx) => {
    const updated = await trx.updateTable('namespaces').set({
      name,
      path,
      full_path: fullPath,
      full_path_lower: fullPath.toLowerCase(),
      full_name: fullName,
      ...(input.description === undefined ? {} : { description: input.description }),
      visibility_level: level,
      ...(input.lfs_enabled === undefined ? {} : { lfs_enabled: flag(input.lfs_enabled) }),
      ...(input.request_access_enabled === undefined ? {} : { request_access_enabled: flag(input.request_access_enabled) }),
      updated_at: Date.now(),
    }).where('id', '=', group.id).returningAll().executeTakeFirstOrThrow()
    if (fullPath !== group.full_path || fullName !== group.full_name) {
      await renameDescendants(trx, group, { fullPath, fullName })
    }
    return updated
  })
}

/**
 * Replaces the group's old full path and full name prefix in every descendant. Prefix lengths are
 * counted in characters (code points), as SQL's substr counts them.
 */
async function renameDescendants(db: Db, group: NamespaceRow, renamed: { fullPath: string; fullName: string }): Promise<void> {
  const pathRest = Array.from(group.full_path).length + 1
  const nameRest = Array.from(group.full_name).length + 1
  await sql`update namespaces set
      full_path = cast(${renamed.fullPath} as text) || substr(full_path, cast(${pathRest} as integer)),
      full_path_lower = cast(${renamed.fullPath.toLowerCase()} as text) || substr(full_path_lower, cast(${pathRest} as integer)),
      full_name = cast(${renamed.fullName} as text) || substr(full_name, cast(${nameRest} as integer))
    where id in (with recursive descendants(id) as (
        select n.id from namespaces n where n.parent_id = ${group.id}
        union all select n.id from namespaces n join descendants d on n.parent_id = d.id
      ) select id from descendants)`.execute(db)
}
