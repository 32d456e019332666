// ProjectImportStatus of the original (lib/api/entities.rb, release 11.5): the project's identity
// and its import's status, answered by POST /projects/import and GET /projects/:id/import.
import { Type, type Static } from '@sinclair/typebox'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'

const NullableString = Type.Union([Type.String(), Type.Null()])

export const ProjectImportStatus = Type.Object({
  id: Type.Integer(),
  description: NullableString,
  name: Type.String(),
  name_with_namespace: Type.String(),
  path: Type.String(),
  path_with_namespace: Type.String(),
  created_at: Type.String(),
  import_status: Type.String(),
  /** Only when the import failed, as the original exposes it (`if: import_error`). */
  import_error: Type.Optional(Type.String()),
})

export function presentProjectImportStatus(project: ProjectRow, namespace: NamespaceRow): Static<typeof ProjectImportStatus> {
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: `${namespace.full_name} / ${project.name}`,
    path: project.path,
    path_with_namespace: `${namespace.full_path}/${project.path}`,
    created_at: isoTime(project.created_at),
    import_status: project.import_status,
    ...(project.import_error === null || project.import_error === '' ? {} : { import_error: project.import_error }),
  }
}
