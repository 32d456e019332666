// Moves a project into another namespace: into a group (POST /groups/:id/projects/:project_id,
// admins), or, on the project's settings page, by its Owner into a namespace they may create
// projects in (the original's Projects::TransferService). Its repository stays where it is (storage
// paths derive from the project id), its memberships and shares stay; only the namespace changes.
// The API's refusals answer 400 in the original's form, "Failed to transfer project
// {:new_namespace=>[…]}"; an Owner's are the sentences themselves.
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import type { NamespaceRow, ProjectRow } from '../../db/schema.js'
import { badRequest } from '../../common/errors.js'
import { visibilityName } from '../../policies/access-levels.js'
import { mayCreateProjectsIn } from '../projects/create-project.js'

async function transferRefusal(db: Db, project: ProjectRow, namespace: NamespaceRow): Promise<string | null> {
  if (project.namespace_id === namespace.id) return 'Project is already in this namespace.'
  const [projectClash, groupClash] = await Promise.all([
    db.selectFrom('projects').select('id').where('namespace_id', '=', namespace.id)
      .where((eb) => eb.or([eb('name', '=', project.name), eb('path_lower', '=', project.path_lower)])).executeTakeFirst(),
    db.selectFrom('namespaces').select('id').where('full_path_lower', '=', `${namespace.full_path_lower}/${project.path_lower}`).executeTakeFirst(),
  ])
  if (projectClash !== undefined || groupClash !== undefined) return 'Project with same name or path in target namespace already exists'
  // A personal namespace takes a project of any visibility; a group none more visible than itself.
  if (namespace.kind === 'group' && project.visibility_level > namespace.visibility_level) {
    return `Project visibility ${visibilityName(project.visibility_level)} is not allowed in a ${visibilityName(namespace.visibility_level)} group.`
  }
  return null
}

function moveProject(db: Db, project: ProjectRow, namespace: NamespaceRow): Promise<ProjectRow> {
  return db.updateTable('projects').set({ namespace_id: namespace.id, updated_at: Date.now() })
    .where('id', '=', project.id).returningAll().executeTakeFirstOrThrow()
}

export async function transferProjectToGroup(db: Db, project: ProjectRow, group: NamespaceRow): Promise<ProjectRow> {
  const refusal = await transferRefusal(db, project, group)
  if (refusal !== null) throw badRequest(`Failed to transfer project {:new_namespace=>[${JSON.stringify(refusal)}]}`)
  return moveProject(db, project, group)
}

/** An Owner's transfer (the caller checked they own the project): only where they may create projects. */
export async function transferProject(db: Db, actor: Actor, project: ProjectRow, namespace: NamespaceRow): Promise<ProjectRow> {
  if (!await mayCreateProjectsIn(db, actor, namespace)) throw badRequest('Transfer failed, please contact an admin.')
  const refusal = await transferRefusal(db, project, namespace)
  if (refusal !== null) throw badRequest(refusal)
  return moveProject(db, project, namespace)
}
