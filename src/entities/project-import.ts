// ProjectImportStatus of the original (lib/api/entities.rb, release 11.5): the project's identity
// and its import's status, answered by POST /projects/import and GET /projects/:id/import.
import { Type, type Static } from '@sinclair/typebox'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import { ProjectIdentity, presentProjectIdentity } from './project.js'

export const ProjectImportStatus = Type.Composite([ProjectIdentity, Type.Object({
  import_status: Type.String(),
  /** Only when the import failed, as the original exposes it (`if: import_error`). */
  import_error: Type.Optional(Type.String()),
})])

export function presentProjectImportStatus(project: ProjectRow, namespace: NamespaceRow): Static<typeof ProjectImportStatus> {
  return {
    ...presentProjectIdentity(project, namespace),
    import_status: project.import_status,
    ...(project.import_error === null || project.import_error === '' ? {} : { import_error: project.import_error }),
  }
}
