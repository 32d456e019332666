// Moves a project into a group's namespace (POST /groups/:id/projects/:project_id, admins). Its
// repository stays where it is (storage paths derive from the project id), its memberships and
// shares stay; only the namespace changes. Refusals answer 400 in the original's form,
// "Failed to transfer project {:new_namespace=>[…]}".
import type { Db } from '../../db/index.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { badRequest } from '../../common/errors.js'
import { visibilityName } from '../../policies/access-levels.js'

async function transferRefusal(db: Db, project: ProjectRow, group: NamespaceRow): Promise<string | null> {
  if (project.namespace_id === group.id) return 'Project is already in this namespace.'
  const [projectClash, groupClash] = await Promise.all([
    db.selectFrom('projects').select('id').where('namespace_id', '=', group.id)
      .where((eb) => eb.or([eb('name', '=', project.name), eb('path_lower', '=', project.path_lower)])).executeTakeFirst(),
    db.selectFrom('namespaces').select('id').where('full_path_lower', '=', `${group.full_path_lower}/${project.path_lower}`).executeTakeFirst(),
  ])
  if (projectClash !== undefined || groupClash !== undefined) return 'Project with same name or path in target namespace already exists'
  if (project.visibility_level > group.visibility_level) {
    return `Project visibility ${visibilityName(project.visibility_level)} is not allowed in a ${visibilityName(group.visibility_level)} group.`
  }
  return null
}

export async function transferProjectToGroup(db: Db, project: ProjectRow, group: NamespaceRow): Promise<ProjectRow> {
  const refusal = await transferRefusal(db, project, group)
  if (refusal !== null) throw badRequest(`Failed to transfer project {:new_namespace=>[${JSON.stringify(refusal)}]}`)
  return db.updateTable('projects').set({ namespace_id: group.id, updated_at: Date.now() })
    .where('id', '=', project.id).returningAll().executeTakeFirstOrThrow()
}
