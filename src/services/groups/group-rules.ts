// The checks a group's name, path and visibility must pass on create and update, with the
// original's messages. A group path is a route like a project path, so within a parent it may
// not repeat a project's path either.
import type { Db } from '../../db/index.js'
import type { NamespaceRow, VisibilityLevel } from '../../db/schema.js'
import { visibilityName } from '../../policies/access-levels.js'
import { namespacePathErrors } from '../namespaces/path-rules.js'

export async function fullPathTaken(db: Db, fullPath: string, exceptNamespaceId?: number): Promise<boolean> {
  let query = db.selectFrom('namespaces').select('id').where('full_path_lower', '=', fullPath.toLowerCase())
  if (exceptNamespaceId !== undefined) query = query.where('id', '!=', exceptNamespaceId)
  return (await query.executeTakeFirst()) !== undefined
}

/** Problems with `path` for a group inside `parent` (top level when null). */
export async function groupPathErrors(db: Db, path: string, parent: NamespaceRow | null, exceptGroupId?: number): Promise<string[]> {
  const errors = namespacePathErrors(path, parent === null)
  if (errors.length > 0) return errors
  const fullPath = parent === null ? path : `${parent.full_path}/${path}`
  const projectClash = parent !== null && (await db.selectFrom('projects').select('id')
    .where('namespace_id', '=', parent.id).where('path_lower', '=', path.toLowerCase()).executeTakeFirst()) !== undefined
  if (projectClash || await fullPathTaken(db, fullPath, exceptGroupId)) errors.push('has already been taken')
  return errors
}

/** Problems with `name`; subgroups of one parent need distinct names. */
export async function groupNameErrors(db: Db, name: string, parent: NamespaceRow | null, exceptGroupId?: number): Promise<string[]> {
  if (name.trim() === '') return ["can't be blank"]
  if (name.length > 255) return ['is too long (maximum is 255 characters)']
  if (parent === null) return []
  let sibling = db.selectFrom('namespaces').select('id')
    .where('kind', '=', 'group').where('parent_id', '=', parent.id).where('name', '=', name)
  if (exceptGroupId !== undefined) sibling = sibling.where('id', '!=', exceptGroupId)
  return (await sibling.executeTakeFirst()) === undefined ? [] : ['has already been taken']
}

/**
 * Problems with lowering a group's visibility to `level`: its subgroups and its projects may not be
 * more visible than the group holding them.
 */
export async function visibilityBelowContentErrors(db: Db, group: NamespaceRow, level: VisibilityLevel): Promise<string[]> {
  if (level >= group.visibility_level) return []
  const visibility = visibilityName(level)
  const [subgroup, project] = await Promise.all([
    db.selectFrom('namespaces').select('id').where('parent_id', '=', group.id).where('visibility_level', '>', level).executeTakeFirst(),
    db.selectFrom('projects').select('id').where('namespace_id', '=', group.id).where('visibility_level', '>', level).executeTakeFirst(),
  ])
  const errors: string[] = []
  if (subgroup !== undefined) errors.push(`${visibility} is not allowed since there are sub-groups with higher visibility.`)
  if (project !== undefined) errors.push(`${visibility} is not allowed since this group contains projects with higher visibility.`)
  return errors
}
