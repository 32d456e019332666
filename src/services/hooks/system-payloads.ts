// The bodies of the system hooks' instance events (the original's SystemHooksService, release
// 11.5): project_create/destroy, user_create/destroy and group_create/destroy. Services build them
// (a destroy's before the rows go) and publish them as `system` activities after their commit.
import type { Db } from '../../db/index.js'
import type { NamespaceRow, ProjectRow, UserRow } from '../../db/schema.js'
import { OWNER, visibilityName } from '../../policies/access-levels.js'
import type { SystemActivity } from '../activity/activity.js'
import { isoTime } from '../../db/values.js'

type SystemEvent = 'create' | 'destroy'

/** Ruby's Time#xmlschema: whole seconds, `Z`. */
function xmlschema(ms: number): string {
  return isoTime(ms).replace(/\.\d{3}Z$/, 'Z')
}

function activity(eventName: string, payload: Record<string, unknown>, record: { created_at: number; updated_at: number }): SystemActivity {
  return {
    kind: 'system',
    eventName,
    payload: { event_name: eventName, created_at: xmlschema(record.created_at), updated_at: xmlschema(record.updated_at), ...payload },
  }
}

/** project_create / project_destroy for each project, owners loaded in one query each. */
export async function projectSystemActivities(db: Db, projectIds: readonly number[], event: SystemEvent): Promise<SystemActivity[]> {
  if (projectIds.length === 0) return []
  const projects: ProjectRow[] = await db.selectFrom('projects').selectAll().where('id', 'in', [...projectIds]).orderBy('id').execute()
  const namespaces = await db.selectFrom('namespaces').selectAll().where('id', 'in', [...new Set(projects.map((p) => p.namespace_id))]).execute()
  const ownerIds = namespaces.flatMap((ns) => (ns.owner_id === null ? [] : [ns.owner_id]))
  const owners = ownerIds.length === 0 ? [] : await db.selectFrom('users').select(['id', 'name', 'email']).where('id', 'in', ownerIds).execute()
  return projects.flatMap((project) => {
    const namespace = namespaces.find((ns) => ns.id === project.namespace_id)
    if (namespace === undefined) return []
    // A personal project is owned by its user; a group's by the group, which has no email.
    const owner = namespace.owner_id === null ? null : owners.find((user) => user.id === namespace.owner_id)
    return [activity(`project_${event}`, {
      name: project.name,
      path: project.path,
      path_with_namespace: `${namespace.full_path}/${project.path}`,
      project_id: project.id,
      owner_name: owner?.name ?? namespace.name,
      owner_email: owner?.email ?? '',
      project_visibility: visibilityName(project.visibility_level),
    }, project)]
  })
}

export function userSystemActivity(user: UserRow, event: SystemEvent): SystemActivity {
  return activity(`user_${event}`, { name: user.name, email: user.email, user_id: user.id, username: user.username }, user)
}

/** group_create / group_destroy for each group, named with its first Owner. */
export async function groupSystemActivities(db: Db, groups: readonly NamespaceRow[], event: SystemEvent): Promise<SystemActivity[]> {
  if (groups.length === 0) return []
  const owners = await db.selectFrom('members').innerJoin('users', 'users.id', 'members.user_id')
    .select(['members.source_id', 'users.name', 'users.email'])
    .where('members.source_type', '=', 'group').where('members.source_id', 'in', groups.map((g) => g.id))
    .where('members.access_level', '=', OWNER).orderBy('members.id').execute()
  return groups.map((group) => {
    const owner = owners.find((row) => row.source_id === group.id)
    return activity(`group_${event}`, {
      name: group.name,
      path: group.path,
      full_path: group.full_path,
      group_id: group.id,
      owner_name: owner?.name ?? null,
      owner_email: owner?.email ?? null,
    }, group)
  })
}
